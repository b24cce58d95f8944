"""``--statistics``: how many findings of each code, instead of the findings themselves."""

from __future__ import annotations

import json
from typing import List

from tfguard.static.finding import SAFE, CheckResult, Finding
from tfguard.static.formats.table import code_counts


def fixable_codes(findings: List[Finding], unsafe: bool = False) -> set:
    """The codes with a finding that ``--fix`` would fix (``unsafe``: with ``--unsafe-fixes``)."""
    return {f.code for f in findings if f.fix is not None and (unsafe or f.fix.applicability == SAFE)}


def render(result: CheckResult, unsafe: bool = False) -> str:
    """Return ``count code [*] name`` rows, most frequent first, ``[*]`` marking a code ``--fix`` fixes (``[ ]``
    one it does not), as ruff does; empty when there are no findings."""
    from tabulate import tabulate  # imported only when a table is printed

    fixable = fixable_codes(result.findings, unsafe)
    rows = [[count, code, ("[*] " if code in fixable else "[ ] ") + name]
            for count, code, name in code_counts(result.findings)]
    return tabulate(rows, tablefmt="plain") + "\n" if rows else ""


def render_json(result: CheckResult, unsafe: bool = False) -> str:
    """Return the counts as a JSON list of ``{"code", "name", "count", "fixable"}``."""
    fixable = fixable_codes(result.findings, unsafe)
    rows = [{"code": code, "name": name, "count": count, "fixable": code in fixable}
            for count, code, name in code_counts(result.findings)]
    return json.dumps(rows, indent=2) + "\n"
