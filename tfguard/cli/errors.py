"""What every command shares: the program name, the exit statuses and the one-line usage error."""

from __future__ import annotations

PROG = "tfguard"

#: Exit statuses.
EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A bad command line or input; the message is one line, printed after ``tfguard: error:``."""
