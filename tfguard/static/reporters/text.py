"""The default, pyflakes-style text format."""

from __future__ import annotations

from collections import Counter
from typing import List

from tfguard.static.engine import CheckResult
from tfguard.static.finding import SAFE, UNSAFE, Finding
from tfguard.static.registry import SEVERITIES


def format_finding(finding: Finding) -> List[str]:
    """Return ``path:line:col: CODE message`` and one ``via`` line per chain hop.

    A finding that ``--fix`` fixes is marked ``[*]`` after its code, as ruff does.
    """
    marker = " [*]" if finding.fix is not None and finding.fix.applicability == SAFE else ""
    lines = [f"{finding.path}:{finding.line}:{finding.column}: {finding.code}{marker} {finding.message}"]
    lines.extend(f"    via {link.path}:{link.line} in {link.function}()" for link in finding.chain)
    return lines


def fix_lines(finding: Finding) -> List[str]:
    """Return the ``--show-fixes`` line of a finding: its fix and how safe it is, or why it has none."""
    if finding.fix is not None:
        return [f"    fix ({finding.fix.applicability}): {finding.fix.message}"]
    return [f"    no fix: {finding.no_fix}"] if finding.no_fix else []


def render(result: CheckResult, show_fixes: bool = False) -> str:
    """Return every finding (with ``show_fixes``, each one's fix or why it has none), then every file error."""
    lines: List[str] = []
    for finding in sorted(result.findings, key=Finding.sort_key):
        lines.extend(format_finding(finding))
        if show_fixes:
            lines.extend(fix_lines(finding))
    lines.extend(f"{error.path}: error: {error.message}" for error in sorted(result.errors, key=lambda e: e.path))
    return "".join(line + "\n" for line in lines)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def summary(result: CheckResult) -> str:
    """Return the one-line summary, e.g. ``Found 3 findings (2 errors, 1 warning) in 5 files.``"""
    files = _plural(result.files_checked, "file")
    if result.python2_files:
        files += f", {len(result.python2_files)} of them read as Python 2"
    unchecked = f" {_plural(len(result.errors), 'file')} could not be checked." if result.errors else ""
    if not result.findings:
        if result.errors:
            return f"No findings in {files}.{unchecked}"
        return f"All checks passed ({files})."
    counts = Counter(finding.severity for finding in result.findings)
    parts = [_plural(counts[severity], severity) if severity != "info" else f"{counts[severity]} info"
             for severity in SEVERITIES if counts[severity]]
    return f"Found {_plural(len(result.findings), 'finding')} ({', '.join(parts)}) in {files}.{unchecked}"


def fixable_summary(result: CheckResult) -> str:
    """Return what ``--fix`` could do, as ruff says it, or "" when no finding has a fix.

    ``[*] 2 fixable with `--fix` (1 hidden fix can be enabled with `--unsafe-fixes`).``, or, with no safe fix,
    ``No fixes available (1 hidden fix can be enabled with `--fix --unsafe-fixes`).``
    """
    safe = sum(1 for f in result.findings if f.fix is not None and f.fix.applicability == SAFE)
    unsafe = sum(1 for f in result.findings if f.fix is not None and f.fix.applicability == UNSAFE)
    hidden = (f"{unsafe} hidden fix{'' if unsafe == 1 else 'es'} can be enabled with "
              f"`{'--unsafe-fixes' if safe else '--fix --unsafe-fixes'}`")
    if safe:
        return f"[*] {safe} fixable with `--fix`" + (f" ({hidden})." if unsafe else ".")
    if unsafe:
        return f"No fixes available ({hidden})."
    return ""
