"""The ``table`` format: one table per file, then a count per code."""

from __future__ import annotations

from collections import Counter
from itertools import groupby
from typing import List

from tfguard.static.engine import CheckResult
from tfguard.static.finding import Finding


def code_counts(findings: List[Finding]) -> List[List[object]]:
    """Return ``[count, code, name]`` rows, most frequent code first, then by code."""
    counts = Counter((f.code, f.name) for f in findings)
    return [[n, code, name] for (code, name), n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def _location(finding: Finding) -> str:
    return f"{finding.line}:{finding.column}"


def render(result: CheckResult) -> str:
    """Return a table of findings under a heading per file, file errors, and a per-code count footer."""
    from tabulate import tabulate  # imported only when a table is printed

    blocks: List[str] = []
    findings = sorted(result.findings, key=Finding.sort_key)
    for path, group in groupby(findings, key=lambda f: f.path):
        rows = []
        for finding in group:
            message = finding.message
            message += "".join(f"\nvia {link.path}:{link.line} in {link.function}()" for link in finding.chain)
            rows.append([_location(finding), finding.code, finding.severity, message])
        blocks.append(f"{path}\n" + tabulate(rows, headers=["line:col", "code", "severity", "message"]))
    if result.errors:
        rows = [[e.path, e.message] for e in sorted(result.errors, key=lambda e: e.path)]
        blocks.append("files not checked\n" + tabulate(rows, headers=["path", "error"]))
    if findings:
        blocks.append(tabulate(code_counts(findings), headers=["count", "code", "name"]))
    return "".join(block + "\n\n" for block in blocks).rstrip("\n") + "\n" if blocks else ""
