"""``--statistics``: how many findings of each code, instead of the findings themselves."""

from __future__ import annotations

import json

from tfguard.static.finding import CheckResult
from tfguard.static.reporters.table import code_counts


def render(result: CheckResult) -> str:
    """Return ``count code name`` rows, most frequent first; empty when there are no findings."""
    from tabulate import tabulate  # imported only when a table is printed

    rows = code_counts(result.findings)
    return tabulate(rows, tablefmt="plain") + "\n" if rows else ""


def render_json(result: CheckResult) -> str:
    """Return the counts as a JSON list of ``{"code", "name", "count"}``."""
    rows = [{"code": code, "name": name, "count": count} for count, code, name in code_counts(result.findings)]
    return json.dumps(rows, indent=2) + "\n"
