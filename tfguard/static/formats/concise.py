"""The ``concise`` format: one line per finding (``path:line:col: CODE [*] message``), as ruff's ``concise``.

Nothing under the line (no ``help:``, no ``via``): the whole message stays on it, for editors and ``grep``.
"""

from __future__ import annotations

from tfguard.static.finding import SAFE, CheckResult, Finding
from tfguard.static.formats.options import PLAIN, RenderOptions
from tfguard.static.formats.text import display_path


def format_finding(finding: Finding) -> str:
    """Return the one line of a finding; ``[*]`` marks one that ``--fix`` fixes."""
    marker = " [*]" if finding.fix is not None and finding.fix.applicability == SAFE else ""
    return f"{display_path(finding.path)}:{finding.line}:{finding.column}: {finding.code}{marker} {finding.message}"


def render(result: CheckResult, options: RenderOptions = PLAIN) -> str:
    """Return a line per finding, then a ``path: error: message`` line per file that could not be checked."""
    lines = [format_finding(f) for f in sorted(result.findings, key=Finding.sort_key)]
    lines += [f"{display_path(e.path)}: error: {e.message}" for e in sorted(result.errors, key=lambda e: e.path)]
    return "".join(line + "\n" for line in lines)
