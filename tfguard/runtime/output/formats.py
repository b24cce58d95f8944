"""The runtime's output formats: one entry per format in `FORMATS`, like the checker's REPORTERS.

Every format is a function of the run's JSON document (``tfguard run --json``, validated by
run-report.schema.json): ``render(document, width)`` returns the whole output as text (``text``, ``json``), or
``write(document, path)`` writes it (``plot``: a PNG; ``tensorboard``: event files). The command line decides
where it goes (`deliver`). TensorBoard is also written while the program runs (output/tensorboard.py, from the
live recorder); its entry here writes a finished document's series.

Adding a format is its module here (a pure function of the document) plus one entry in `FORMATS`, and the
command's option that asks for it. Each entry imports its module only when used: the text report loads tabulate,
the plot matplotlib, TensorBoard TensorFlow.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, NamedTuple, Optional

#: The JSON Schema (draft 2020-12) of the JSON document, shipped with the package; its version is the document's.
SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run-report.schema.json")


def document_schema() -> Dict[str, Any]:
    """The JSON Schema of the run document (``tfguard run --json``) and of ``Report.to_dict()``."""
    with open(SCHEMA_PATH, encoding="utf-8") as handle:
        return json.load(handle)


class OutputFormat(NamedTuple):
    """One output format of the runtime report."""

    #: How it is asked for (``tfguard run --json FILE``, ``tfguard report --plot FILE``).
    option: str
    summary: str
    #: document, width (None: 80 or COLUMNS; 0: wide) -> the whole output as text; None for a `write` format.
    render: Optional[Callable[[Dict[str, Any], Optional[int]], str]] = None
    #: document, path -> None (writes the file or folder); None for a `render` format.
    write: Optional[Callable[[Dict[str, Any], str], None]] = None


def _text(document: Dict[str, Any], width: Optional[int]) -> str:
    from tfguard.printable import printable
    from tfguard.runtime.output.text import render_document

    # Names and messages come from the guarded program (its file and function names): escaped for the terminal.
    return printable(render_document(document, width))


def _json(document: Dict[str, Any], width: Optional[int]) -> str:
    return json.dumps(document, indent=1) + "\n"


def _plot(document: Dict[str, Any], path: str) -> None:
    from tfguard.runtime.output.plot import plot_report

    title = "tfguard run " + " ".join(document["command"]) if document.get("command") else None
    plot_report(document, path, title=title)


def _tensorboard(document: Dict[str, Any], path: str) -> None:
    from tfguard.runtime.output.tensorboard import TensorBoardExport

    export = TensorBoardExport(path)
    export.start(None)  # no recorder: nothing written while running, only the document's series
    export.close(document)


def _html(document: Dict[str, Any], path: str) -> None:
    from tfguard.runtime.output.html import render_report, write_page

    write_page(path, render_report(document))


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


def deliver(name: str, document: Dict[str, Any], path: str, width: Optional[int] = 0) -> None:
    """Put format `name` of `document` at `path`: a `render` format's text written to the file (UTF-8), a `write`
    format written by it. OSError when the file cannot be written (the command line says so in one line)."""
    output = FORMATS[name]
    if output.render is None:
        assert output.write is not None
        output.write(document, path)
        return
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(output.render(document, width))


__all__ = ["FORMATS", "SCHEMA_PATH", "OutputFormat", "deliver", "document_schema"]
