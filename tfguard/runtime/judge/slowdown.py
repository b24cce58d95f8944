"""The slowdown verdict: whether steps get slower by a cause of the program's own (TFG902 reads it).

One module for every judgment, so that what is said while the program runs and what the final
report says come from the same code:

- **Live** (while the program runs): only graph growth, which is certain once it happened. A
  line that grew the graph after `growth.REPEATED_EVENTS` different runs of the loop, and still
  did in the second half of the loop so far, gets one `GraphGrowthWarning` (`growth_alert`); the
  site stays *repeated* in the final report (`GrowthSite.alerted`), so the final report never
  contradicts the alert.
- **Final** (when the guard ends; `guard.report` inside the block is a snapshot of the same
  judgment on the runs so far): slowdown (`judge_slowdown`), and TFG901-TFG905 (`diagnose`). A
  `SlowdownWarning` is issued only then, with the final verdict's text.

A slowdown is the program's own when a trend test finds steps getting steadily slower (see
stats.step_trend: x`slowdown_threshold` or more, Mann-Kendall p < 0.001, not a level shift) over
at least `clocks.MIN_VERDICT_S` of marked runs, and, comparing the first fifth of the runs with the
last fifth (clocks.compare), one cause of the program's own explains at least half of the rise of
wall time per run (`EXPLAINS`):

- ``graph growth``: a repeated growth site grew the graph in the measured window;
- ``growing feed``: the bytes fed per run rose x`slowdown_threshold` and sess.run time rose;
- ``python work``: the time outside sess.run rose, and so did the guarding thread's own CPU time per run;
- ``host wait``: the time outside sess.run rose, while the guarding thread neither computed more
  nor waited longer for a CPU: the program is waiting on something that takes longer every step;
- ``tensorflow work``: the process's CPU time per run rose, while other jobs did not take more of
  the CPUs (under contention TensorFlow's thread pool spins and migrates: its CPU time rises with
  wall time then, and is only trusted when it rose as much as wall time; nor when the probe got
  x`slowdown_threshold` faster or more, which says the two fifths' CPU times are not comparable: a
  steady scalar loop here used x1.45 more CPU per run while the probe took half its CPU time).

Otherwise a slower wall time is *contention*: other jobs took more of the CPUs (`/proc/stat`,
beyond this process's own CPU time) or the guarding thread waited longer for a CPU
(`/proc/thread-self/schedstat`).
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence

from tfguard.runtime.record.growth import REPEATED
from tfguard.runtime.record.recording import Recording, SiteRecord
from tfguard.runtime.record.stats import step_trend

#: A cause explains a slowdown when its rise per run is at least this share of wall time's rise per run.
EXPLAINS = 0.5
#: Other jobs took this many more CPUs in the last fifth than in the first: the CPUs got busier.
OTHERS_RISE_CPUS = 0.25
#: Over the whole run wall time per run must rise more than this for any slowdown (not a passing bump).
WHOLE_RUN_RISE = 1.1
GRAPH_GROWTH, GROWING_FEED, PYTHON_WORK, HOST_WAIT, TENSORFLOW_WORK = (
    "graph growth", "growing feed", "python work", "host wait", "tensorflow work")


def _at_first_speed(windows: Dict[str, Any]) -> Dict[str, Any]:
    """`windows` with the last fifth's CPU times divided by how much slower the CPUs got (the probe's rise)."""
    first, last = windows["first"], windows["last"]
    change = _ratio(first.get("probe"), last.get("probe"))
    last = dict(last)
    if change is not None and change > 1.0:  # slower CPUs only: a faster probe is no evidence of more work
        for name in ("process_cpu", "thread_cpu"):
            if last[name] is not None:
                last[name] /= change
    return dict(windows, last=last, cpu_speed_change=change)


def _ratio(first: Optional[float], last: Optional[float]) -> Optional[float]:
    if first is None or last is None or first <= 0:
        return None
    return last / first


def _rise(windows: Dict[str, Any], name: str) -> Optional[float]:
    first, last = windows["first"][name], windows["last"][name]
    return None if first is None or last is None else last - first


def judge_slowdown(values: Sequence[float], threshold: float, windows: Optional[Dict[str, Any]],
                   growing_sites: Sequence[SiteRecord]) -> Dict[str, Any]:
    """The slowdown verdict of a trend series `values` given the clock windows (clocks.compare, None when the
    run was too short) and the repeated growth sites that grew during the measured window.

    Returns the report's slowdown fields (see the module docstring for the causes), with the trend's edges
    (``slowdown_edges``: `stats.TrendEdges` as a dict, None when the series is too short for a ratio).
    """
    trend = step_trend(values, threshold)
    verdict: Dict[str, Any] = {
        "slowdown": trend.slowdown,
        "slowdown_shape": trend.shape,
        "slowdown_points": trend.points,
        # Where the ratio took its medians (the warm-up skipped, the first and last 20 %): the chart and the A/B
        # rows show these, never edges found again.
        "slowdown_edges": trend.edges._asdict() if trend.edges is not None else None,
        "slowdown_cause": None,
        "verdict_window_s": None,
        "wall_per_run_growth": None,
        "cpu_per_run_growth": None,
        "thread_cpu_per_run_growth": None,
        "host_per_run_growth": None,
        "feed_bytes_growth": None,
        "feed_bytes_first": None,
        "feed_bytes_last": None,
        "others_cpus_rise": None,
        "cpu_speed_change": None,
        "contention": False,
    }
    cause = None
    if windows is not None:
        raw, windows = windows, _at_first_speed(windows)
        first, last = windows["first"], windows["last"]
        verdict.update({
            "cpu_speed_change": windows["cpu_speed_change"],
            "verdict_window_s": windows["span_s"],
            "wall_per_run_growth": _ratio(first["wall"], last["wall"]),
            "cpu_per_run_growth": _ratio(first["process_cpu"], last["process_cpu"]),
            "thread_cpu_per_run_growth": _ratio(first["thread_cpu"], last["thread_cpu"]),
            "host_per_run_growth": _ratio(first["host"], last["host"]),
            "feed_bytes_growth": _ratio(first["feed_bytes"], last["feed_bytes"]),
            "feed_bytes_first": first["feed_bytes"],
            "feed_bytes_last": last["feed_bytes"],
            "others_cpus_rise": _rise(windows, "others_cpus"),
        })
        cause, contention = _own_cause(verdict, windows, raw, threshold, growing_sites)
        verdict["contention"] = contention
    # Too short a run (under clocks.MIN_VERDICT_S of marks) or a slowdown no cause of the program's own explains:
    # no verdict (silence rather than a false alarm).
    significant = trend.significant and cause is not None
    verdict["slowdown_significant"] = significant
    verdict["slowdown_cause"] = cause if significant else None
    return verdict


def _own_cause(verdict: Dict[str, Any], windows: Dict[str, Any], raw: Dict[str, Any], threshold: float,
               growing_sites: Sequence[SiteRecord]) -> "tuple[Optional[str], bool]":
    """(the program's own cause of the rise of wall time per run or None, whether other jobs took the CPUs).

    `windows` has CPU times at the first fifth's CPU speed (more work), `raw` as measured (time computing).
    """
    wall_rise = _rise(windows, "wall")
    others_rise = verdict["others_cpus_rise"]
    queue_rise = _rise(windows, "queue_wait")
    busier = others_rise is not None and others_rise >= OTHERS_RISE_CPUS
    queued = queue_rise is not None and wall_rise > 0 and queue_rise >= 0.5 * EXPLAINS * wall_rise
    contention = busier or queued
    if verdict["wall_per_run_growth"] is None or verdict["wall_per_run_growth"] <= WHOLE_RUN_RISE:
        # Over the whole run (last fifth against the first) wall time per run did not rise: a passing bump.
        return None, contention

    wall_growth = verdict["wall_per_run_growth"]

    def explains(name: str, growth_name: Optional[str] = None, relative: bool = False) -> bool:
        """Whether `name`'s rise per run explains half of wall time's: in seconds, or with `relative` (a
        measure other jobs do not stretch) as a ratio: x1.5 of it explains x2.25 of wall time (half in log terms),
        since on a saturated machine wall time stretches every second of the program's own work alike."""
        rise = _rise(windows, name)
        if rise is None:
            return False
        growth = _ratio(windows["first"][name], windows["last"][name])
        if growth_name is not None and (growth is None or growth < threshold):
            return False
        if rise >= EXPLAINS * wall_rise:
            return True
        return relative and growth is not None and growth >= threshold and \
            math.log(growth) >= EXPLAINS * math.log(wall_growth)

    if growing_sites:
        return GRAPH_GROWTH, contention
    feed_growth = verdict["feed_bytes_growth"]
    if feed_growth is not None and feed_growth >= threshold and explains("run", relative=True):
        return GROWING_FEED, contention
    host_rise = _rise(windows, "host")
    # Computing (however fast the CPUs are) or runnable and waiting for a CPU is not waiting on something.
    busy_rise = max(0.0, _rise(raw, "thread_cpu") or 0.0) + max(0.0, queue_rise or 0.0)
    if explains("host", "host_per_run_growth") and busy_rise < EXPLAINS * host_rise and \
            (queue_rise is not None or not busier):
        return HOST_WAIT, contention
    # Python-side work runs outside sess.run: the time outside it must have grown too, by half of wall time's rise
    # (next to other jobs the thread's CPU time inside sess.run rose x1.5-2.6 on steady loops here).
    if explains("host", "host_per_run_growth") and explains("thread_cpu", "thread_cpu_per_run_growth", relative=True):
        return PYTHON_WORK, contention
    speed = verdict["cpu_speed_change"]
    comparable = speed is None or speed >= 1.0 / threshold  # a much faster probe: CPU times not comparable
    if comparable and explains("process_cpu", "cpu_per_run_growth"):
        process_rise = _rise(windows, "process_cpu")
        if not contention or process_rise >= wall_rise:
            return TENSORFLOW_WORK, contention
    return None, contention



def growing_in_window(sites: Sequence[SiteRecord], loop_start: int, runs: int) -> List[SiteRecord]:
    """The repeated growth sites that grew after the first fifth of the loop (the slowdown's measured window)."""
    window_start = loop_start + (runs - loop_start) // 5
    return [s for s in sites if s.kind == REPEATED and s.last_step >= window_start]


def slowdown_of(recording: Recording) -> Dict[str, Any]:
    """The slowdown verdict on a recording (`judge_slowdown` on its trend), with the trend's label and measure."""
    trend = recording.trend
    growing = growing_in_window(recording.growth_sites, trend.loop_start, recording.runs)
    verdict = judge_slowdown(trend.values, recording.options["slowdown_threshold"], trend.windows, growing)
    verdict.update({
        "dominant_signature": trend.label if recording.runs else None,
        "loop_start": trend.loop_start,
        "slowdown_measure": trend.measure,
    })
    phase = phase_change(recording) if trend.label in (None, "(all runs)") else None
    if phase is not None:  # the first and last fifths ran different steps: their ratio is no slowdown
        verdict.update({"slowdown_shape": "phase change", "slowdown_significant": False, "slowdown_cause": None,
                        "phase_change": phase})
    return verdict


#: A fetch signature makes up this share of a fifth's runs or more: that fifth ran that step.
PHASE_SHARE = 0.8


def phase_change(recording: Recording) -> Optional[Dict[str, str]]:
    """``{"first": label, "last": label}`` when the first fifth of the runs was one fetch signature and the last
    fifth another (a training loop, then a test-set evaluation): comparing them measures two different steps, not
    a slowdown. None otherwise."""
    steps = [int(p[0]) for p in recording.all_runs_series.get("points", [])]
    if len(steps) < 10:
        return None
    edge = max(1, len(steps) // 5)
    first, last = (min(steps[:edge]), max(steps[:edge])), (min(steps[-edge:]), max(steps[-edge:]))

    def main_label(window: "tuple[int, int]") -> Optional[str]:
        counts = {}
        for sig in recording.signatures:
            points = sig.run_series.get("points") or sig.series.get("points") or []
            counts[sig.label] = sum(1 for p in points if window[0] <= int(p[0]) <= window[1])
        total = sum(counts.values())
        label = max(counts, key=counts.get) if counts else None
        return label if label is not None and total and counts[label] >= PHASE_SHARE * total else None

    before, after = main_label(first), main_label(last)
    if before is None or after is None or before == after:
        return None
    return {"first": before, "last": after}
