"""A cluster's tasks side by side, from one saved runtime report per task (``tfguard report DIR``).

A TF1 cluster's tasks (sessions) are compared by their sessions' figures; a TF2 run's workers
(``MultiWorkerMirroredStrategy``, no session) by their steps (worker_steps.py), when no task created a session.

Each task's row: steps, step-time median/p95, host fraction, repeated growth sites, Saver.save and summary
cost, diagnostics. Two flags, each with its margin printed:

- straggler: a task whose median step is at least ``straggler_margin`` times the median of the other
  tasks' median steps (tasks with at least ``MIN_STEPS`` steps are compared; fewer than two: no verdict);
- costly chief: the chief, when the time its hooks cost (Saver.save, plus summary runs' time over plain
  steps) is at least ``hook_margin`` of its wall time and more than any other task's.

The TF2 workers' row: steps, step-time median/p95, time in the step, own time (outside the step and in the input
pipeline's Python functions), checkpoints and summaries, diagnostics; their straggler is the worker whose own time
the others wait for (worker_steps.sync_stragglers), their costly chief the chief whose checkpoints and summaries
take at least ``hook_margin`` of its steps' wall time and more than any other worker's.

A task's own diagnostics are its run verdict's (every scope); nothing here re-judges them.
"""

from __future__ import annotations

import os
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from tabulate import tabulate

from tfguard.runtime.document import display_path, format_seconds
from tfguard.runtime.output.fit import fit_table, widest, wrap_lines
from tfguard.runtime.output.session_report import SessionReport
from tfguard.runtime.verdict import RunVerdict
from tfguard.views.margins import DEFAULT_HOOK_MARGIN, DEFAULT_STRAGGLER_MARGIN, MIN_STEPS, SYNC_WAIT_SHARE
from tfguard.views.worker_steps import WorkerSteps, sync_stragglers

_FILE_TASK = re.compile(r"^(?P<job>[A-Za-z_][A-Za-z0-9_]*)-(?P<index>\d+)$")
_CHIEF_JOBS = ("chief", "master")
#: The job names TensorFlow clusters use: a report file named ``<job>-<index>.json`` with one of them is a task.
CLUSTER_JOBS = ("chief", "master", "worker", "ps", "evaluator")


def is_cluster_task(path: str, verdict: RunVerdict) -> bool:
    """Whether a report is a cluster task's: it has the ``task`` entry `tfguard run --json-dir` writes for a
    known task (TF_CONFIG or a tf.distribute.Server), or its file is named ``<job>-<index>.json`` after a
    cluster job (``worker-1.json``). A process that was no known task (``<host>-<pid>.json``, ``task: null``)
    is a separate run."""
    if isinstance(verdict.facts.get("task"), dict):
        return True
    match = _FILE_TASK.match(os.path.splitext(os.path.basename(path))[0])
    return bool(match) and match.group("job") in CLUSTER_JOBS


class Task:
    """One task's run verdict and the facts the cluster view compares (its busiest session's figures)."""

    def __init__(self, path: str, verdict: RunVerdict) -> None:
        self.path = path
        self.verdict = verdict
        task = verdict.facts.get("task") if isinstance(verdict.facts.get("task"), dict) else None
        stem = os.path.splitext(os.path.basename(path))[0]
        match = _FILE_TASK.match(stem)
        if task is not None:
            self.job, self.index = str(task["job"]), int(task["index"])
        elif match and match.group("job") in CLUSTER_JOBS:
            self.job, self.index = match.group("job"), int(match.group("index"))
        else:
            self.job, self.index = None, None
        self.name = "%s-%d" % (self.job, self.index) if self.job is not None else stem
        self.declared_chief: Optional[bool] = task.get("chief") if task is not None else None
        self.chief = False  # settled by the cluster (see _mark_chief)
        busiest = verdict.busiest
        self.report = SessionReport(busiest, verdict.of_session(busiest.number)) if busiest is not None else None
        series = busiest.get("all_runs_series") if busiest is not None else None
        self._intervals = sorted(point[1] for point in series["points"]) if isinstance(series, dict) else []
        steps = verdict.facts.get("steps")
        #: The TF2 steps of a task that applied gradients (None for a session task or one with no step).
        self.tf2: Optional[WorkerSteps] = WorkerSteps(steps) if isinstance(steps, dict) and steps.get("steps") \
            else None

    @property
    def has_session(self) -> bool:
        """Whether the task created a TensorFlow session."""
        return self.report is not None

    def dominant(self) -> Optional[Dict[str, Any]]:
        """The task's training step: its report's dominant fetch signature (else its most frequent one)."""
        if self.report is None or not self.report.signatures:
            return None
        label = getattr(self.report, "dominant_signature", None)
        signatures = self.report.signatures
        return next((s for s in signatures if s["label"] == label), None) or max(signatures, key=lambda s: s["count"])

    @property
    def steps(self) -> int:
        """Runs of the training thread (a MonitoredSession's hooks' own runs are not counted)."""
        return self.report.runs if self.report else 0

    def step_time(self, key: str) -> Optional[float]:
        """``median`` or ``p95`` of the interval between consecutive runs of the training thread, in seconds.

        From the report's series of all runs (one point per run up to its series cap, bucket means beyond), so
        that a chief whose summary runs alternate with plain runs is timed per step, not per signature; the
        dominant signature's intervals when a report has no such series.
        """
        values = self._intervals
        if not values:
            dominant = self.dominant()
            return dominant["interval"][key] if dominant else None
        if key == "median":
            return _median(values)
        return values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]

    def summary_runs(self) -> int:
        """Runs that fetched summary ops."""
        return sum(s["count"] for s in self.report.signatures if s["summary_ops"]) if self.report else 0

    def hook_seconds(self) -> Tuple[float, Optional[float]]:
        """(Saver.save seconds, summaries' seconds: summary runs over the same step without them, plus
        FileWriter time; None when there is no like step to compare with and no writer time)."""
        if self.report is None:
            return 0.0, 0.0
        cost = self.report.summary_cost
        if not cost["runs"]:
            return self.report.save_s, 0.0
        if not cost["pairs"] and not cost["writer_calls"]:
            return self.report.save_s, None
        return self.report.save_s, cost["seconds"]

    def hook_share(self) -> Optional[float]:
        """Hooks' time as a share of the task's wall time (None when the summaries' cost is not measured)."""
        if self.report is None or not self.report.wall_s:
            return None
        save_s, summary_s = self.hook_seconds()
        if summary_s is None:
            return None
        return (save_s + summary_s) / self.report.wall_s

    def repeated_sites(self) -> List[Tuple[str, int, int, int, str]]:
        """Growth sites that kept adding ops as steps went by."""
        return [s for s in self.report.growth_sites if s[4] == "repeated"] if self.report else []


def _mark_chief(tasks: List[Task]) -> None:
    declared = [t for t in tasks if t.declared_chief]
    if declared:
        for task in declared:
            task.chief = True
        return
    chiefs = [t for t in tasks if t.job in _CHIEF_JOBS]
    if not chiefs and not any(t.declared_chief is False and t.job == "worker" and t.index == 0 for t in tasks):
        chiefs = [t for t in tasks if t.job == "worker" and t.index == 0]
    for task in chiefs:
        task.chief = True


class ClusterView:
    """The tasks of one cluster, their table and the flags."""

    def __init__(self, tasks: Sequence[Task], straggler_margin: float = DEFAULT_STRAGGLER_MARGIN,
                 hook_margin: float = DEFAULT_HOOK_MARGIN) -> None:
        self.tasks = sorted(tasks, key=lambda t: (t.job is None, t.job or "", t.index or 0, t.name))
        _mark_chief(self.tasks)
        self.straggler_margin = straggler_margin
        self.hook_margin = hook_margin
        #: TF2 workers: no task created a session and at least one ran TF2 steps.
        self.tf2 = not any(t.has_session for t in self.tasks) and any(t.tf2 is not None for t in self.tasks)

    def stragglers(self) -> Tuple[List[Tuple[Task, float, float]], Optional[str]]:
        """([(task, its median step, the others' median)], why no verdict or None); TF2 workers: (task, its own time
        per step, the others' median own time)."""
        if self.tf2:
            return sync_stragglers([(t, t.tf2) for t in self.tasks if t.tf2 is not None], self.straggler_margin)
        timed = [t for t in self.tasks if t.steps >= MIN_STEPS and t.step_time("median")]
        if len(timed) < 2:
            return [], "fewer than two tasks with %d or more steps" % MIN_STEPS
        found = []
        for task in timed:
            others = sorted(t.step_time("median") for t in timed if t is not task)
            middle = _median(others)
            if task.step_time("median") >= self.straggler_margin * middle:
                found.append((task, task.step_time("median"), middle))
        return found, None

    def costly_chief(self) -> Optional[Tuple[Task, float]]:
        """(chief, its hooks' share of wall time) when the chief's hooks cost the most, over the margin (TF2
        workers: its checkpoints' and summaries' share of its steps' wall time)."""
        if self.tf2:
            shares = {t.name: t.tf2.writes_share() for t in self.tasks if t.tf2 is not None}
        else:
            shares = {t.name: t.hook_share() for t in self.tasks if t.has_session}
        for task in self.tasks:
            share = shares.get(task.name)
            if not task.chief or share is None or share < self.hook_margin:
                continue
            if all(other_share is None or other_share < share for name, other_share in shares.items()
                   if name != task.name):
                return task, share
        return None

    def render(self, width: int = 0) -> str:
        """The side-by-side table, the flags with their margins, then each task's growth sites and diagnostics;
        lines fit `width` columns (0: wide)."""
        names = ", ".join(t.name for t in self.tasks)
        blocks = ["tfguard cluster report: %d task%s (%s)" % (len(self.tasks), "" if len(self.tasks) == 1 else "s",
                                                           names)]
        if self.tf2:
            rows = [_tf2_row(task) for task in self.tasks]
            headers = ["task", "role", "steps", "step median", "step p95", "own time", "input Python",
                       "checkpoints", "summaries", "diagnostics"]
        else:
            rows = [self._row(task) for task in self.tasks]
            headers = ["task", "role", "steps", "step median", "step p95", "host", "Saver.save", "summary runs",
                       "hooks", "repeated growth", "diagnostics"]
        table = tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)
        if width and widest(table) > width:
            # Too wide for the terminal: one column per task, a row per figure (as `tfguard report a b` does).
            transposed = [[header] + [row[i] for row in rows] for i, header in enumerate(headers[1:], 1)]
            table = fit_table(transposed, [""] + [row[0] for row in rows], width,
                              shrink=list(range(1, len(rows) + 1)), disable_numparse=True)
        blocks.append(table)
        blocks.append(self._flags())
        for task in self.tasks:
            lines = self._details(task)
            if lines:
                blocks.append("\n".join(lines))
        return "\n".join(line for text in "\n\n".join(blocks).split("\n")
                         for line in wrap_lines(text, width, "", "    " if text.startswith("  ") else "  "))

    def _row(self, task: Task) -> List[Any]:
        role = "chief" if task.chief else (task.job or "-")
        if not task.has_session:
            return [task.name, role, "-", "-", "-", "-", "-", "-", "-", "-", "no TensorFlow session"]
        report = task.report
        save_s, _ = task.hook_seconds()
        share = task.hook_share()
        sites = task.repeated_sites()
        codes = sorted(task.verdict.fired_codes())
        return [task.name, role, task.steps, format_seconds(task.step_time("median")),
                format_seconds(task.step_time("p95")),
                "-" if report.host_fraction is None else "%.0f%%" % (report.host_fraction * 100),
                "%s (%d)" % (format_seconds(save_s), report.saves), task.summary_runs(),
                "?" if share is None else "%.0f%%" % (share * 100),
                "%d site%s" % (len(sites), "" if len(sites) == 1 else "s") if sites else "-",
                ", ".join(codes) or "-"]

    def _flags(self) -> str:
        if self.tf2:
            return self._tf2_flags()
        lines = ["flags (straggler: median step at least x%.2f the other tasks' median; costly chief: its hooks, "
                 "Saver.save and summary runs over plain steps, take at least %.0f%% of its wall time and more "
                 "than any other task's)" % (self.straggler_margin, self.hook_margin * 100)]
        stragglers, why_not = self.stragglers()
        if why_not:
            lines.append("  straggler: not judged, %s" % why_not)
        for task, own, middle in stragglers:
            lines.append("  straggler: %s steps take %s (median), x%.2f the other tasks' %s" % (
                task.name, format_seconds(own), own / middle, format_seconds(middle)))
        if not stragglers and not why_not:
            lines.append("  straggler: none")
        costly = self.costly_chief()
        if costly is not None:
            task, share = costly
            save_s, summary_s = task.hook_seconds()
            note = ""
            if any(t is task for t, _, _ in stragglers):
                note = "; this is why the chief straggles: move saves and summaries further apart"
            lines.append("  costly chief: %s's hooks took %.0f%% of its wall time (Saver.save %s in %d saves, "
                         "summary runs %s over plain steps in %d runs)%s" % (
                             task.name, share * 100, format_seconds(save_s), task.report.saves,
                             format_seconds(summary_s), task.summary_runs(), note))
        elif any(t.chief for t in self.tasks):
            lines.append("  costly chief: none")
        else:
            lines.append("  costly chief: not judged, no chief (no chief/master job, no worker-0)")
        return "\n".join(lines)

    def _tf2_flags(self) -> str:
        lines = ["flags (TF2 workers step together, each step waiting for all at its all-reduce; straggler: own "
                 "time per step, outside the step and in the input pipeline's Python functions, at least x%.2f "
                 "the other workers' median and more than theirs by %.0f%% of its step; costly chief: checkpoints "
                 "and summaries take at least %.0f%% of its steps' wall time and more than any other worker's)"
                 % (self.straggler_margin, SYNC_WAIT_SHARE * 100, self.hook_margin * 100)]
        stragglers, why_not = self.stragglers()
        if why_not:
            lines.append("  straggler: not judged, %s" % why_not)
        for task, own, middle in stragglers:
            lines.append("  straggler: %s spends %s per step on its own (%s), the other workers %s: they wait for "
                         "it at every step's all-reduce, inside their step" % (
                             task.name, format_seconds(own), task.tf2.own_time_parts(), format_seconds(middle)))
        if not stragglers and not why_not:
            lines.append("  straggler: none")
        costly = self.costly_chief()
        if costly is not None:
            task, share = costly
            lines.append("  costly chief: %s's checkpoints and summaries took %.0f%% of its steps' wall time "
                         "(%d checkpoints %s, %d summaries %s)" % (
                             task.name, share * 100, task.tf2.saves[0], format_seconds(task.tf2.saves[1]),
                             task.tf2.summaries[0], format_seconds(task.tf2.summaries[1])))
        elif any(t.chief for t in self.tasks):
            lines.append("  costly chief: none")
        else:
            lines.append("  costly chief: not judged, no chief (no chief job, no worker-0)")
        return "\n".join(lines)

    @staticmethod
    def _details(task: Task) -> List[str]:
        if not task.has_session and task.tf2 is None:
            return []
        lines = []
        for path, line, ops, events, _kind in task.repeated_sites()[:5]:
            lines.append("  graph growth: %s:%d, %d ops in %d growth events" % (display_path(path), line, ops, events))
        for diagnostic in task.verdict.diagnostics:
            lines.append("  %s %s: %s" % (diagnostic.code, diagnostic.severity, diagnostic.one_line))
        return ["%s (%s)" % (task.name, task.path)] + lines if lines else []


def _tf2_row(task: Task) -> List[Any]:
    """A TF2 worker's row (see the module docstring)."""
    role = "chief" if task.chief else (task.job or "-")
    worker = task.tf2
    codes = ", ".join(sorted(task.verdict.fired_codes())) or "-"
    if worker is None:
        return [task.name, role, "-", "-", "-", "-", "-", "-", "-", "no TF2 step"]

    def per_step(value: Optional[float]) -> str:
        return "-" if value is None else format_seconds(value)

    def writes(count: int, seconds: float) -> str:
        return "%s (%d)" % (format_seconds(seconds), count) if count or seconds else "-"

    return [task.name, role, worker.steps if worker.mode == "compiled" else "%d eager" % worker.steps,
            per_step(worker.step_time("median")), per_step(worker.step_time("p95")), per_step(worker.own_time),
            per_step(worker.input_python), writes(*worker.saves), writes(*worker.summaries), codes]


def _median(values: List[float]) -> float:
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2
