"""The ``grouped`` format: the findings under the name of their file, as ruff's ``grouped``: a file's name once,
then ``line:col CODE [*] message`` indented, one line each."""

from __future__ import annotations

from itertools import groupby
from typing import List

from tfguard.static.finding import SAFE, CheckResult, Finding
from tfguard.static.formats.options import PLAIN, RenderOptions
from tfguard.static.formats.text import display_path


def render(result: CheckResult, options: RenderOptions = PLAIN) -> str:
    """Return each file's name and its findings, a blank line between files, then the files not checked."""
    lines: List[str] = []
    findings = sorted(result.findings, key=Finding.sort_key)
    for path, group in groupby(findings, key=lambda finding: finding.path):
        items = list(group)
        width = max(len(f"{f.line}:{f.column}") for f in items)
        lines.append(f"{display_path(path)}:")
        for finding in items:
            marker = " [*]" if finding.fix is not None and finding.fix.applicability == SAFE else ""
            place = f"{finding.line}:{finding.column}".ljust(width)
            lines.append(f"  {place} {finding.code}{marker} {finding.message}")
        lines.append("")
    lines += [f"{display_path(e.path)}: error: {e.message}" for e in sorted(result.errors, key=lambda e: e.path)]
    return "".join(line + "\n" for line in lines)
