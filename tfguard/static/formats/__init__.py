"""Output formats of ``tfguard check``: one module per format, each a pure function of the result.

A reporter takes the :class:`~tfguard.static.finding.CheckResult` and returns the
whole report as text; the command line decides where it goes.  Adding a
format is one module here plus one entry in :data:`REPORTERS`.
"""

from __future__ import annotations

from typing import Callable, Dict

from tfguard.static.finding import CheckResult
from tfguard.static.formats import concise, github, gitlab, grouped, json, junit, pylint, sarif, table, text

Reporter = Callable[[CheckResult], str]

#: Format name -> reporter, in the order ``--output-format`` lists them (``text``/``full`` also take colour).
REPORTERS: Dict[str, Reporter] = {
    "text": text.render,
    "full": text.render_full,
    "json": json.render,
    "table": table.render,
    "sarif": sarif.render,
    "github": github.render,
    "concise": concise.render,
    "grouped": grouped.render,
    "pylint": pylint.render,
    "junit": junit.render,
    "gitlab": gitlab.render,
}

__all__ = ["REPORTERS", "Reporter"]
