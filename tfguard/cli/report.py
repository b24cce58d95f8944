"""``tfguard report FILE.json``: print (and plot) a report saved by ``tfguard run --json``.

Several files, a folder or a glob: cluster tasks' reports (a ``task`` entry from ``--json-dir``, or files named
``<job>-<index>.json``) get the cluster view, reports of separate runs the A/B comparison (cluster_report.py);
``--cluster`` / ``--compare`` say which when the files cannot."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from tfguard.cli import cluster_report
from tfguard.cli.errors import UsageError
from tfguard.cli.html_page import check_html_path, write_html


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
    cluster_report.add_arguments(report)


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
    try:
        return completed(RunVerdict.from_document(data))
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError("%s is not a complete tfguard runtime report (%s)" % (path, exc)) from None


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
    from tfguard.runtime.output.formats import FORMATS, deliver

    width = 0 if args.wide else None
    if args.html:
        check_html_path(args.html)
    if cluster_report.is_cluster(args.file) or args.cluster or args.compare:
        return cluster_report.run_several(args, load_document, width)
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
