"""``tfguard report worker-0.json worker-1.json ... | DIR | GLOB``: a cluster's tasks, or separate runs, side by side.

``tfguard report`` (report.py) hands over here when it is given more than one file, a folder or a glob. Reports of
cluster tasks (tfguard.views.cluster.is_cluster_task) get the cluster view; reports of separate runs the A/B
comparison (tfguard.views.compare); ``--cluster`` / ``--compare`` choose explicitly.
"""

from __future__ import annotations

import argparse
import glob
import os
from typing import Any, Callable, List, Optional, Sequence

from tfguard.cli.errors import UsageError


def add_arguments(report: argparse.ArgumentParser) -> None:
    """The cluster view's and the comparison's options on ``tfguard report``."""
    from tfguard.views.margins import DEFAULT_HOOK_MARGIN, DEFAULT_STRAGGLER_MARGIN

    view = report.add_mutually_exclusive_group()
    view.add_argument("--cluster", action="store_true", help="the reports are one cluster's tasks: the cluster "
                                                             "view (default when a report has the task entry "
                                                             "--json-dir writes, or is named <job>-<index>.json)")
    view.add_argument("--compare", action="store_true", help="the reports are separate runs: side by side, A/B "
                                                             "(default for reports of no cluster task)")
    report.add_argument("--straggler-margin", metavar="X", default=str(DEFAULT_STRAGGLER_MARGIN),
                        help="with several reports: flag a task whose median step is at least X times the other "
                             "tasks' median (TF2 workers: its own time per step, the time the others wait for; "
                             "default %s)" % DEFAULT_STRAGGLER_MARGIN)
    report.add_argument("--hook-margin", metavar="SHARE", default=str(DEFAULT_HOOK_MARGIN),
                        help="with several reports: flag the chief when its hooks (Saver.save, summary runs; TF2: "
                             "checkpoints and summaries) take at least this share of its wall time and more than "
                             "any other task's (default %s)"
                        % DEFAULT_HOOK_MARGIN)


def expand(inputs: Sequence[str]) -> List[str]:
    """The report files named by `inputs` (files, folders of *.json, globs), in order, without repeats."""
    paths: List[str] = []
    for item in inputs:
        if os.path.isdir(item):
            found = sorted(glob.glob(os.path.join(glob.escape(item), "*.json")))
            if not found:
                raise UsageError("no *.json reports in %s" % item)
        elif glob.has_magic(item) and not os.path.exists(item):
            found = sorted(path for path in glob.glob(item) if os.path.isfile(path))
            if not found:
                raise UsageError("no reports match %s" % item)
        else:
            found = [item]
        paths += [path for path in found if path not in paths]
    return paths


def is_cluster(inputs: Sequence[str]) -> bool:
    """Whether `tfguard report` was asked for the cluster view (several files, a folder or a glob)."""
    return len(inputs) > 1 or any(os.path.isdir(item) or (glob.has_magic(item) and not os.path.exists(item))
                                  for item in inputs)


def _margin(value: str, option: str, low: float, high: float) -> float:
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not low < number <= high:
        raise UsageError("%s needs a number above %g%s, got %r" % (
            option, low, "" if high == float("inf") else " and at most %g" % high, value))
    return number


def run_several(args: argparse.Namespace, load: Callable[[str], Any], width: Optional[int]) -> int:
    """Print the cluster view or the comparison of the reports `args.file` names, each read with `load`;
    return the exit status."""
    from tfguard.runtime.output.fit import resolve_width
    from tfguard.views.cluster import ClusterView, Task, is_cluster_task
    from tfguard.views.compare import comparison_table

    straggler = _margin(args.straggler_margin, "--straggler-margin", 1.0, float("inf"))
    hooks = _margin(args.hook_margin, "--hook-margin", 0.0, 1.0)
    paths = expand(args.file)
    documents = [(path, load(path)) for path in paths]
    cluster = args.cluster or (not args.compare and any(is_cluster_task(p, d) for p, d in documents))
    if cluster:
        for option, value in (("--plot", args.plot), ("--html", getattr(args, "html", None))):
            if value:
                raise UsageError("%s draws one report or a comparison of separate runs, not a cluster's tasks"
                                 % option)
        tasks = [Task(path, document) for path, document in documents]
        print(ClusterView(tasks, straggler_margin=straggler, hook_margin=hooks).render(resolve_width(width)))
        return 0
    runs = [(_run_name(path, paths), document) for path, document in documents]
    if args.plot:
        missing = [path for path, verdict in documents if not verdict.sessions]
        if missing:
            raise UsageError("%s has no session to plot" % missing[0])
        if not os.path.isdir(os.path.dirname(os.path.abspath(args.plot))):
            raise UsageError("cannot write --plot %s: no such folder" % args.plot)
    html = getattr(args, "html", None)
    if html and len(runs) > 2:
        raise UsageError("--html puts one report or two side by side on a page, not %d" % len(runs))
    print(comparison_table(runs, resolve_width(width)))
    if html:
        from tfguard.cli.html_page import write_html
        from tfguard.runtime.output.html.page import write_page
        from tfguard.runtime.output.html.side_by_side import render_comparison

        write_html(html, lambda: write_page(html, render_comparison(runs)))
    if args.plot:
        _plot_runs(runs, args.plot)
    return 0


def _plot_runs(runs: List[Any], path: str) -> None:
    """One picture of the compared runs (step interval and graph size against step)."""
    import sys

    from tfguard.runtime.output.plot import PlotUnavailable, plot_comparison

    try:
        figures = [(name, verdict.busiest.figures) for name, verdict in runs]
        plot_comparison(figures, path, title="tfguard report: %s" % " vs ".join(name for name, _ in runs))
    except PlotUnavailable as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError("cannot write %s: %s" % (path, exc.strerror or exc)) from None
    print("tfguard: wrote %s" % path, file=sys.stderr)


def _run_name(path: str, paths: Sequence[str]) -> str:
    """A run's column header: its file name, or its path when two files share a name."""
    name = os.path.basename(path)
    return name if sum(os.path.basename(p) == name for p in paths) == 1 else path
