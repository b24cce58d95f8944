"""The runtime's output formats: one entry per format in `FORMATS`, like the checker's REPORTERS.

Every format is a function of the run verdict (verdict.RunVerdict, judged once): ``render(verdict, width)``
returns the whole output as text (``text``; ``json``: the document, validated by run-report.schema.json), or
``write(verdict, path)`` writes it (``plot``: a PNG; ``tensorboard``: event files; ``html``: a page). The command
line decides where it goes (`deliver`). TensorBoard is also written while the program runs (output/tensorboard.py,
from the live recorder); its entry here writes a finished run's series (its busiest session's).

Adding a format is its module here (a pure function of the verdict) plus one entry in `FORMATS`, and the
command's option that asks for it. Each entry imports its module only when used: the text report loads tabulate,
the plot matplotlib, TensorBoard TensorFlow.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, NamedTuple, Optional

from tfguard.runtime.verdict import RunVerdict

#: The JSON Schema (draft 2020-12) of the JSON document, shipped with the package; its version is the document's.
SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run-report.schema.json")


def document_schema() -> Dict[str, Any]:
    """The JSON Schema of the run document (``tfguard run --json``, ``RunVerdict.to_document()``)."""
    with open(SCHEMA_PATH, encoding="utf-8") as handle:
        return json.load(handle)


class OutputFormat(NamedTuple):
    """One output format of the runtime report."""

    #: How it is asked for (``tfguard run --json FILE``, ``tfguard report --plot FILE``).
    option: str
    summary: str
    #: verdict, width (None: 80 or COLUMNS; 0: wide) -> the whole output as text; None for a `write` format.
    render: Optional[Callable[[RunVerdict, Optional[int]], str]] = None
    #: verdict, path -> None (writes the file or folder); None for a `render` format.
    write: Optional[Callable[[RunVerdict, str], None]] = None


def _text(verdict: RunVerdict, width: Optional[int]) -> str:
    from tfguard.runtime.output.text import render_verdict

    return render_verdict(verdict, width)


def _json(verdict: RunVerdict, width: Optional[int]) -> str:
    return json.dumps(verdict.to_document(), indent=1) + "\n"


def _busiest_figures(verdict: RunVerdict) -> Dict[str, Any]:
    """The figures of the session a plot or TensorBoard shows: the busiest (ValueError when none)."""
    if verdict.busiest is None:
        raise ValueError("the run has no session")
    return verdict.busiest.figures


def _plot(verdict: RunVerdict, path: str) -> None:
    from tfguard.runtime.output.plot import plot_report

    plot_report(_busiest_figures(verdict), path, title="tfguard run " + verdict.command if verdict.command else None)


def _tensorboard(verdict: RunVerdict, path: str) -> None:
    from tfguard.runtime.output.tensorboard import TensorBoardExport

    export = TensorBoardExport(path)
    export.start(None)  # no recorder: nothing written while running, only the run's series
    export.close(_busiest_figures(verdict))


def _html(verdict: RunVerdict, path: str) -> None:
    from tfguard.runtime.output.html.page import render_report, write_page

    write_page(path, render_report(verdict))


#: Format name -> format, in the order the help lists them.
FORMATS: Dict[str, OutputFormat] = {
    "text": OutputFormat("tfguard run (stderr, unless -q), tfguard report FILE", "the report tables", render=_text),
    "json": OutputFormat("tfguard run --json FILE", "the run document (run-report.schema.json)", render=_json),
    "plot": OutputFormat("tfguard report FILE --plot PNG", "step intervals and graph size against runs",
                         write=_plot),
    "tensorboard": OutputFormat("tfguard run --tensorboard LOGDIR", "tfguard/step_interval, tfguard/graph_ops and "
                                "tfguard/host_fraction as TensorBoard scalars", write=_tensorboard),
    "html": OutputFormat("tfguard run --html FILE, tfguard report FILE [FILE] --html FILE", "the report as one "
                         "offline HTML page (verdicts, diagnostics with their lines, charts)", write=_html),
}


def deliver(name: str, verdict: RunVerdict, path: str, width: Optional[int] = 0) -> None:
    """Put format `name` of `verdict` at `path`: a `render` format's text written to the file (UTF-8), a `write`
    format written by it. OSError when the file cannot be written (the command line says so in one line)."""
    output = FORMATS[name]
    if output.render is None:
        assert output.write is not None
        output.write(verdict, path)
        return
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(output.render(verdict, width))


__all__ = ["FORMATS", "SCHEMA_PATH", "OutputFormat", "deliver", "document_schema"]
