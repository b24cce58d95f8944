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


def render(result: CheckResult) -> str:
    """Return every finding, then every file error as ``path: error: message``."""
    lines: List[str] = []
    for finding in sorted(result.findings, key=Finding.sort_key):
        lines.extend(format_finding(finding))
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
    """Return ``N fixable with `--fix`.`` (and how many more with ``--unsafe-fixes``), or "" when none is."""
    safe = sum(1 for f in result.findings if f.fix is not None and f.fix.applicability == SAFE)
    unsafe = sum(1 for f in result.findings if f.fix is not None and f.fix.applicability == UNSAFE)
    parts = []
    if safe:
        parts.append(f"[*] {safe} fixable with `--fix`.")
    if unsafe:
        parts.append(f"{unsafe} more with `--fix --unsafe-fixes`.")
    return " ".join(parts)
