"""Why a finding has no fix: planners raise :class:`NoFix` with the reason, which the report then gives."""

from __future__ import annotations

#: The reason given for a finding whose fix could not be planned for a reason no planner named.
UNPLANNED = "tfguard found no edit it could make here"
#: The reason given for every finding of a Python 2 file.
PYTHON2 = "the file is read as Python 2: fixes are planned on its Python 3 conversion, whose text is not the file's"


class NoFix(Exception):
    """Raised by a fix planner that will not offer a fix; ``str()`` is the reason, for the user."""


def no_rule_fix(code: str) -> str:
    """Return the reason given for a finding of a rule that has no fix."""
    return f"{code} has no automatic fix (see `tfguard rule {code}`)"
