"""``tfguard check --callers FILES``: the named files and the findings they cause in the rest of the project.

The pre-commit hook gets the staged files only. A change in one of them can make a loop in another file build ops
(``run_epoch`` in the staged ``model.py`` now builds one, and ``train.py``'s loop calls it): the checker reports
that at the caller, in ``train.py``, with the chain of calls down to the staged line. With ``--callers`` the whole
project (the folder the command runs in) is checked, and the findings kept are those of the named files and those
whose chain of calls goes through one of them, each saying which named file it goes through. A kept finding of a
file that was not named loses its fix: ``--fix`` edits only the named files (a hook must not rewrite unstaged
files).
"""

from __future__ import annotations

import dataclasses
import os
from typing import List, Sequence, Set

from tfguard.static.finding import CheckResult, Finding


def _key(path: str) -> str:
    return os.path.normcase(os.path.abspath(path))


def project_paths(named: Sequence[str]) -> List[str]:
    """The paths to check for ``--callers``: the folder the command runs in, and any named file outside it."""
    here = _key(".")
    outside = [p for p in named if not _key(p).startswith(here + os.sep)]
    return ["."] + outside


def through_named(result: CheckResult, named: Sequence[str]) -> CheckResult:
    """Keep the findings and errors of the ``named`` files, and the findings of other files whose chain of calls
    goes through a named file (its message names that file and line; its fix is dropped)."""
    keys: Set[str] = {_key(p) for p in named}
    kept: List[Finding] = []
    for finding in result.findings:
        if _key(finding.path) in keys:
            kept.append(finding)
            continue
        link = next((link for link in finding.chain if _key(link.path) in keys), None)
        if link is not None:
            headline = finding.headline + " (through %s:%d in %s, a file checked for this change)" % (
                os.path.relpath(link.path), link.line, link.function)
            kept.append(dataclasses.replace(finding, headline=headline, fix=None,
                                            no_fix=finding.no_fix or "in a file that was not named"))
    return dataclasses.replace(result, findings=kept,
                               errors=[e for e in result.errors if _key(e.path) in keys])
