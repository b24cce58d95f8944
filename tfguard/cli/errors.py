"""What every command shares: the program name, the exit statuses and the one-line usage error."""

from __future__ import annotations

from typing import Optional, Sequence

PROG = "tfguard"

#: Exit statuses.
EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A bad command line or input; the message is one line, printed after ``tfguard: error:``."""


#: Commands that load the checker, whose astroid 3 has no Python 3.7 release (docs/supported-versions.md).
_CHECKER_COMMANDS = ("check", "rules", "rule", "server")
_CHECKER_PYTHON = (3, 8)


def checker_python_error(command: str, version: Sequence[int]) -> Optional[str]:
    """The one line refusing `tfguard COMMAND` on a Python the checker does not run on, else None."""
    if command not in _CHECKER_COMMANDS or tuple(version[:2]) >= _CHECKER_PYTHON:
        return None
    running = ".".join(str(part) for part in version[:3])
    return (f"tfguard {command} needs Python 3.8 or newer (this is Python {running}; tfguard run, report, demo, "
            "GuardHook and pytest --tfguard work here): `tfguard check` run here finds a newer Python on this "
            "machine and runs the checker there (docs/supported-versions.md)")
