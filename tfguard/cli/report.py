"""``tfguard report FILE.json``: print (and plot) the run document saved by ``tfguard run --json``.

Several files, a folder or a glob: cluster tasks' reports (a ``task`` entry from ``--json-dir``, or files named
``<job>-<index>.json``) get the cluster view, reports of separate runs the A/B comparison (cluster_view.py);
``--cluster`` / ``--compare`` say which when the files cannot."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from tfguard.cli import cluster_view
from tfguard.cli.errors import UsageError
from tfguard.cli.html_page import check_html_path, write_html
from tfguard.printable import printable_line
from tfguard.runtime.output.schema_check import first_problem


def add_parser(commands: Any) -> None:
    """Register ``tfguard report`` on the CLI's subcommand parsers."""
    report = commands.add_parser("report", help="print (and plot) a runtime report saved as JSON",
                                 description="Print the tables of a report written by `tfguard run --json` "
                                             "(or a `report.to_dict()` saved as JSON).")
    report.add_argument("file", metavar="FILE.json", nargs="+",
                        help="the saved report; several, a folder or a glob (one per cluster task, as "
                             "`tfguard run --json-dir` writes them) put the tasks side by side")
    report.add_argument("--plot", metavar="PNG", help="also draw step interval and graph size against step "
                                                      "into this PNG file, one picture of all the runs compared "
                                                      "(needs matplotlib)")
    report.add_argument("--html", metavar="FILE", help="also write the report as one self-contained HTML page to "
                                                       "FILE; two reports of separate runs: side by side on one "
                                                       "page (opens offline)")
    report.add_argument("--wide", action="store_true", help="print lines and cells in full (by default they fit "
                                                            "80 columns, or COLUMNS)")
    cluster_view.add_arguments(report)


def load_document(path: str) -> Any:
    """Read and check a saved report, into its run verdict (an earlier version converted); bad files raise a
    one-line UsageError."""
    from tfguard.runtime.judge.judgement import completed
    from tfguard.runtime.verdict import DOCUMENT_VERSION, READS, RunVerdict

    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        raise UsageError("report not found: %s" % path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError("cannot read %s: %s" % (path, getattr(exc, "strerror", None) or exc)) from None
    except ValueError as exc:
        raise UsageError("%s is not JSON: %s" % (path, exc)) from None
    if not isinstance(data, dict) or data.get("version") not in (DOCUMENT_VERSION,) + READS:
        raise UsageError("%s is not a tfguard runtime report (version %s)" % (path, DOCUMENT_VERSION))
    # A session's own document (or an earlier version's run) has its figures and diagnostics at the top.
    sessions = [data] if "mode" in data else data.get("sessions") or []
    needed = ("runs", "signatures", "growth_sites", "diagnostics") if "mode" in data else \
        ("runs", "signatures", "growth_sites")
    for session in sessions:
        missing = [k for k in needed if k not in session] if isinstance(session, dict) else ["its sessions"]
        if missing:
            raise UsageError("%s is not a complete tfguard runtime report (missing %s)" % (path, ", ".join(missing)))
    # Only a document that fits the shipped schema reaches the tables and the page: a report file may come from
    # anyone (a fork's CI artifact), and a value of the wrong type must be refused here, in one line. An earlier
    # version's document is checked as the current document it reads as.
    problem = first_problem(data) if data.get("version") == DOCUMENT_VERSION else None
    try:
        verdict = RunVerdict.from_document(data)
        if problem is None and data.get("version") != DOCUMENT_VERSION:
            problem = first_problem(verdict.to_document())
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise UsageError("%s is not a complete tfguard runtime report (%s)" % (path, _printable(str(exc)))) from None
    if problem:
        raise UsageError("%s does not fit the run-report schema (%s)" % (path, _printable(problem)))
    return completed(verdict)


def _printable(text: str, limit: int = 160) -> str:
    """`text` (from a file anyone may have written) with control characters escaped, cut to `limit`."""
    shown = printable_line(text)
    return shown if len(shown) <= limit else shown[:limit - 3] + "..."


def _check_plot_folder(plot: str) -> None:
    folder = os.path.dirname(os.path.abspath(plot))
    if not os.path.isdir(folder):
        raise UsageError("cannot write --plot %s: no such folder" % plot)


def _plot(draw: Any, path: str) -> None:
    """Call `draw()` (which writes `path`), one line for what went wrong."""
    from tfguard.runtime.output.plot import PlotUnavailable

    try:
        draw()
    except PlotUnavailable as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError("cannot write %s: %s" % (path, exc.strerror or exc)) from None
    print("tfguard: wrote %s" % path, file=sys.stderr)


def run_command(args: argparse.Namespace) -> int:
    """Run ``tfguard report``; return the exit status."""
    try:
        return _report(args)
    except (TypeError, KeyError, IndexError, AttributeError, ValueError) as exc:
        # The schema leaves some parts free (a diagnostic's evidence, the placement report): a value there that
        # tfguard never writes must still end in one line, not in a traceback or an "internal error".
        raise UsageError("cannot show %s: a value does not fit what tfguard writes (%s: %s)" % (
            " ".join(args.file) if isinstance(args.file, list) else args.file, type(exc).__name__,
            _printable(str(exc), 80))) from None


def _report(args: argparse.Namespace) -> int:
    from tfguard.runtime.output.formats import FORMATS, deliver

    width = 0 if args.wide else None
    if args.html:
        check_html_path(args.html)
    if cluster_view.is_cluster(args.file) or args.cluster or args.compare:
        return cluster_view.run_several(args, load_document, width)
    args.file = args.file[0]
    verdict = load_document(args.file)
    if args.plot and not verdict.sessions:
        raise UsageError("%s has no session to plot" % args.file)
    if args.plot:
        _check_plot_folder(args.plot)
    print(FORMATS["text"].render(verdict, width))
    if args.html:
        write_html(args.html, lambda: deliver("html", verdict, args.html))
    if args.plot:
        _plot(lambda: deliver("plot", verdict, args.plot), args.plot)
    return 0
