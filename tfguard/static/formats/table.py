"""The ``table`` format: one table per file, then a count per code."""

from __future__ import annotations

import shutil
import textwrap
from collections import Counter
from itertools import groupby
from typing import List

from tfguard.static.finding import CheckResult, Finding
from tfguard.static.formats.options import PLAIN, RenderOptions
from tfguard.static.formats.text import display_path


def code_counts(findings: List[Finding]) -> List[List[object]]:
    """Return ``[count, code, name]`` rows, most frequent code first, then by code."""
    counts = Counter((f.code, f.name) for f in findings)
    return [[n, code, name] for (code, name), n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def _location(finding: Finding) -> str:
    return f"{finding.line}:{finding.column}"


def message_width() -> int:
    """The width of the message column: what the terminal leaves after the other columns (``COLUMNS`` when
    set, 100 when not on a terminal), at least 40; the other columns take about 34."""
    columns = shutil.get_terminal_size((100, 24)).columns
    return max(40, columns - 34)


def _cell(finding: Finding, width: int) -> str:
    """The message cell: what, then ``help:`` and ``via`` lines, each wrapped to ``width``."""
    lines = textwrap.wrap(finding.headline, width) or [""]
    if finding.help:
        lines += textwrap.wrap("help: " + finding.help, width, subsequent_indent="  ")
    for link in finding.chain:
        place = f"line {link.line}" if link.path == finding.path else f"{display_path(link.path)}:{link.line}"
        lines += textwrap.wrap(f"via {place} in {link.function}()", width, subsequent_indent="  ")
    return "\n".join(lines)


def render(result: CheckResult, options: RenderOptions = PLAIN) -> str:
    """Return a table of findings under a heading per file, file errors, and a per-code count footer.

    Messages are wrapped to the terminal's width, what is wrong first, then the ``help:`` line.
    """
    from tabulate import tabulate  # imported only when a table is printed

    width = message_width()
    blocks: List[str] = []
    findings = sorted(result.findings, key=Finding.sort_key)
    for path, group in groupby(findings, key=lambda f: f.path):
        rows = [[_location(finding), finding.code, finding.severity, _cell(finding, width)] for finding in group]
        blocks.append(f"{display_path(path)}\n" + tabulate(rows, headers=["line:col", "code", "severity", "message"]))
    if result.errors:
        rows = [[e.path, e.message] for e in sorted(result.errors, key=lambda e: e.path)]
        blocks.append("files not checked\n" + tabulate(rows, headers=["path", "error"]))
    if findings:
        blocks.append(tabulate(code_counts(findings), headers=["count", "code", "name"]))
    return "".join(block + "\n\n" for block in blocks).rstrip("\n") + "\n" if blocks else ""
