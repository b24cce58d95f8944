"""``tfguard report worker0.json worker1.json ... | DIR | GLOB``: a cluster's tasks side by side.

``tfguard report`` (report.py) hands over here when it is given more than one file, a folder or a glob.
"""

from __future__ import annotations

import argparse
import glob
import os
from typing import Any, Callable, Dict, List, Sequence

from tfguard.cli.errors import UsageError


def add_arguments(report: argparse.ArgumentParser) -> None:
    """The cluster view's options on ``tfguard report``."""
    from tfguard.reports.margins import DEFAULT_HOOK_MARGIN, DEFAULT_STRAGGLER_MARGIN

    report.add_argument("--straggler-margin", metavar="X", default=str(DEFAULT_STRAGGLER_MARGIN),
                        help="with several reports: flag a task whose median step is at least X times the other "
                             "tasks' median (default %s)" % DEFAULT_STRAGGLER_MARGIN)
    report.add_argument("--hook-margin", metavar="SHARE", default=str(DEFAULT_HOOK_MARGIN),
                        help="with several reports: flag the chief when its hooks (Saver.save, summary runs) take "
                             "at least this share of its wall time and more than any other task's (default %s)"
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


def run_cluster(args: argparse.Namespace, load: Callable[[str], Dict[str, Any]]) -> int:
    """Print the cluster view of the reports `args.file` names, each read with `load`; return the exit status."""
    from tfguard.reports.cluster import ClusterView, Task

    if args.plot:
        raise UsageError("--plot draws one report; give one FILE.json")
    straggler = _margin(args.straggler_margin, "--straggler-margin", 1.0, float("inf"))
    hooks = _margin(args.hook_margin, "--hook-margin", 0.0, 1.0)
    tasks = [Task(path, load(path)) for path in expand(args.file)]
    print(ClusterView(tasks, straggler_margin=straggler, hook_margin=hooks).render())
    return 0
