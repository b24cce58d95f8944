"""``tfguard check --fix``: planning the edits that fix findings, and applying them safely.

* a rule declares its fix (``fix = FixOffer(applicability, what, plan)``, see :mod:`tfguard.static.registry`), the
  ``plan`` function living in the module of its family here (:mod:`.hoist`, :mod:`.pipeline`, :mod:`.cadence`,
  :mod:`.assign`, :mod:`.retracing`); :mod:`~tfguard.static.fixes.availability` reads those declarations for
  ``tfguard rule CODE``;
* :mod:`~tfguard.static.fixes.planner` attaches a :class:`~tfguard.static.finding.Fix` to the findings of one
  analysed module: each rule's ``plan`` runs with the node the rule reported the finding at;
* :mod:`~tfguard.static.fixes.edits` applies the edits of several fixes to a text in one consistent pass;
* :mod:`~tfguard.static.fixes.fix_files` fixes files: re-checks after each pass, validates, writes atomically.
"""
