"""The ``tfguard`` command line: ``check``, ``rules``/``rule``, ``run``, ``report`` and ``demo``.

One module per command; :mod:`tfguard.cli.errors` holds what they share, so no command imports another.
"""

from __future__ import annotations

from tfguard.cli.errors import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, EXIT_INTERRUPTED, PROG, UsageError
from tfguard.cli.main import build_parser, main
from tfguard.cli.rules import rule_rows, rules_markdown

__all__ = ["EXIT_CLEAN", "EXIT_ERROR", "EXIT_FINDINGS", "EXIT_INTERRUPTED", "PROG", "UsageError", "build_parser",
           "main", "rule_rows", "rules_markdown"]
