"""Output formats of ``tfguard check``: one module per format, each a pure function of the result.

A format's ``render`` takes the :class:`~tfguard.static.finding.CheckResult` and the
:class:`~tfguard.static.formats.options.RenderOptions` (colour, ``--show-fixes``, ``--docs-url``: each format
reads those that concern it) and returns the whole output as text; the command line decides where it goes.
Adding a format is one module here plus one entry in :data:`REPORTERS`.  ``--statistics`` is no format: it
replaces the findings by their count per code (:mod:`.statistics`).
"""

from __future__ import annotations

from typing import Callable, Dict

from tfguard.static.finding import CheckResult
from tfguard.static.formats import concise, github, gitlab, grouped, json, junit, pylint, sarif, table, text
from tfguard.static.formats.options import PLAIN, RenderOptions

Reporter = Callable[[CheckResult, RenderOptions], str]

#: Format name -> its render function, in the order ``--output-format`` lists them.
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

__all__ = ["PLAIN", "REPORTERS", "RenderOptions", "Reporter"]
