"""Views of several runs' documents together (``tfguard report A.json B.json``, ``tfguard report DIR``): ``cluster``
sets a cluster's tasks side by side, ``compare`` the A/B table of separate runs. Reads the JSON documents
``tfguard run --json``/``--json-dir`` write (or a bare ``report.to_dict()``); imports nothing of the static side, and
no TensorFlow.
"""
