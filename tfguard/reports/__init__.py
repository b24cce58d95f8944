"""Reports that put several runtime reports together: ``cluster`` sets a TF1 cluster's workers side by side
(``tfguard report DIR``). Reads the JSON documents ``tfguard run --json``/``--json-dir`` write (or a bare
``report.to_dict()``); imports nothing of the static side, and no TensorFlow.
"""
