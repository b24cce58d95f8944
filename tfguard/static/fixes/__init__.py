"""``tfguard check --fix``: planning the edits that fix findings, and applying them safely.

* :mod:`~tfguard.static.fixes.availability` says, per rule, whether fixes exist (no astroid needed);
* :mod:`~tfguard.static.fixes.planner` attaches a :class:`~tfguard.static.finding.Fix` to the findings of one
  analysed module, dispatching to one module per rule family (:mod:`.hoist`, :mod:`.pipeline`,
  :mod:`.frequency`, :mod:`.assign`);
* :mod:`~tfguard.static.fixes.edits` applies the edits of several fixes to a text in one consistent pass;
* :mod:`~tfguard.static.fixes.fix_files` fixes files: re-checks after each pass, validates, writes atomically.
"""
