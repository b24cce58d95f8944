"""``tfguard server``: the checker as a language server over stdio (pygls), for editors.

One module per job:

* :mod:`.protocol` registers the LSP features on a pygls server and runs it (the only module that knows LSP
  messages end to end);
* :mod:`.state` holds what outlives one request: each project's analyses, the settings, the runtime report,
  the last check of each open file;
* :mod:`.overlay` is the project view the interprocedural analysis reads: the editor's unsaved buffers first,
  the files on disk around them after;
* :mod:`.configuration` finds each file's settings as ``tfguard check`` does and notices when they change;
* :mod:`.checking` checks one buffer (diagnostics fast, fixes planned only when a code action asks);
* :mod:`.diagnostics` turns findings into LSP diagnostics (ranges in the client's position encoding);
* :mod:`.actions` builds the code actions: a finding's fix, fix all safe, add ``# noqa: CODE``;
* :mod:`.hover` says what a flagged line's or a ``# noqa`` comment's codes mean;
* :mod:`.runtime_findings` reads the last ``tfguard run --json`` report into findings on the lines they blame.

pygls is an optional dependency (the ``server`` extra: ``pip install '.[server]'`` in a checkout); nothing
else in tfguard imports this package.
"""
