"""Run documents built without TensorFlow, in the shape `tfguard run --json` writes, for the HTML report's tests.

The series go through the recorder's own DecimatedSeries (so a long run is bucketed as the guard buckets it) and the
diagnostics through the judges' own `diagnose` and `judge_slowdown`: the page is tested on what the guard would
write for such a run, not on a hand-made dict.
"""

from __future__ import annotations

import random
from typing import Any, Dict, List

from tfguard.runtime.judge.judgement import derived_figures, diagnose
from tfguard.runtime.judge.slowdown import growing_in_window, judge_slowdown
from tfguard.runtime.record.recorder import DEFAULT_OPTIONS
from tfguard.runtime.record.recording import SiteRecord
from tfguard.runtime.record.stats import DecimatedSeries, StreamingSample
from tfguard.runtime.verdict import RunVerdict, SessionVerdict

#: The run's facts, as `tfguard run` writes them.
FACTS = {"tensorflow_version": "2.21.0", "exit_status": 0, "stopped_by_max_steps": False, "freeze_after": None,
         "unguarded_sessions": []}

SITE = {"path": "train.py", "line": 41, "code": "loss_op = tf.reduce_mean(model(x))", "api": "tf.reduce_mean",
        "op_types": ["Mean", "Const"], "rule": "TFG102", "fix": "build the op once, before the loop, and only "
        "sess.run it inside", "growth_events": 0, "events_in_loop": 0, "kind": "repeated", "first_step": 2}
LABEL = "train_op, loss:0 <- x:0"


def _series(values: List[float], nodes: List[int]) -> DecimatedSeries:
    series = DecimatedSeries(DEFAULT_OPTIONS["series_cap"])
    for value, size in zip(values, nodes):
        series.add(value, size)
    return series


def _points(series: DecimatedSeries) -> Dict[str, Any]:
    return {"bucket": series.bucket, "points": [list(p) for p in series.points()]}


def run_document(steps: int = 200, growing: bool = True, spike_at: int = -1, seed: int = 1,
                 saves: int = 0, signatures: int = 1) -> Dict[str, Any]:
    """The document (version 4) of a `steps`-step loop: see `run_verdict`."""
    return run_verdict(steps, growing, spike_at, seed, saves, signatures).to_document()


def run_verdict(steps: int = 200, growing: bool = True, spike_at: int = -1, seed: int = 1,
                saves: int = 0, signatures: int = 1) -> RunVerdict:
    """The verdict of a one-session `steps`-step loop: its graph grows by 2 ops a step at SITE when `growing`
    (and its steps slow down with it), one step at `spike_at` takes 2 s, `saves` Saver.save calls, `signatures`
    fetch signatures (the extra ones run once)."""
    figures = session_figures(steps, growing, spike_at, seed, saves, signatures)
    session = SessionVerdict(1, "train.py:30", 1, False, figures)
    diagnostics = [d.scoped("session", 1) for d in diagnose(figures, DEFAULT_OPTIONS)]
    return RunVerdict(dict(FACTS, command=["train.py", "--steps", str(steps)]), [session], None, diagnostics)


def session_figures(steps: int = 200, growing: bool = True, spike_at: int = -1, seed: int = 1,
                    saves: int = 0, signatures: int = 1) -> Dict[str, Any]:
    """One session's figures (see `run_verdict`), as the guard keeps them."""
    rng = random.Random(seed)
    intervals, gaps, nodes = [], [], []
    for step in range(steps):
        base = 0.010 * (1 + (step / 400.0 if growing else 0.0))
        value = 2.0 if step == spike_at else base * (1 + 0.1 * rng.random())
        intervals.append(value)
        gaps.append(value * (0.3 + 0.1 * rng.random()))
        nodes.append(120 + (2 * step if growing else 0))
    run_time, interval = StreamingSample(DEFAULT_OPTIONS["sample_cap"]), StreamingSample(DEFAULT_OPTIONS["sample_cap"])
    for value, gap in zip(intervals, gaps):
        run_time.add(value - gap)
        interval.add(value)
    series = _series(intervals, nodes)
    wall = sum(intervals) + 0.2
    run_s = sum(i - g for i, g in zip(intervals, gaps))
    sites = []
    if growing:
        sites = [dict(SITE, ops_added=2 * (steps - 2), growth_events=steps - 2, events_in_loop=steps - 2,
                      last_step=steps)]
    data: Dict[str, Any] = {
        "mode": "watch", "runs": steps + signatures - 1, "other_thread_runs": 0,
        "other_thread_run_s": 0.0, "wall_s": wall, "run_s": run_s, "host_fraction": 1 - run_s / wall,
        "save_s": 0.05 * saves, "saves": saves, "summary_write_s": 0.0, "summary_writes": 0,
        "nodes_start": nodes[0], "nodes_end": nodes[-1], "nodes_added": nodes[-1] - nodes[0],
        "unattributed_ops": 0, "growth_ops": {"setup": 0, "one-time": 0, "repeated": nodes[-1] - nodes[0]},
        "host_time": {"samples": 60, "cause": "input", "cause_share": 0.8, "lines": [
            {"path": "train.py", "line": 39, "code": "batch = next_batch(data)", "samples": 48, "cause": "input",
             "share": 0.3}]},
    }
    data.update(judge_slowdown(series.values, DEFAULT_OPTIONS["slowdown_threshold"], None,
                               growing_in_window([SiteRecord(**site) for site in sites], 1, steps)))
    data.update({"dominant_signature": LABEL, "loop_start": signatures - 1, "slowdown_measure": "step interval",
                 "all_runs_series": _points(series), "host_gap_series": _points(_series(gaps, nodes))})
    main = {"label": LABEL, "op_types": ["NoOp", "Mean"], "summary_ops": [], "count": steps, "made_by": None,
            "run_time": run_time.summary(), "interval": interval.summary(), "series": _points(series),
            "run_series": _points(series)}
    others = [{"label": "init_%d" % i, "op_types": ["NoOp"], "summary_ops": [], "count": 1, "made_by": None,
               "run_time": {"count": 1, "total": 0.01, "mean": 0.01, "median": 0.01, "p95": 0.01, "max": 0.01},
               "interval": {"count": 0, "total": 0.0, "mean": None, "median": None, "p95": None, "max": None},
               "series": {"bucket": 1, "points": []}, "run_series": {"bucket": 1, "points": []}}
              for i in range(signatures - 1)]
    data.update({"signatures": [main] + others, "growth_sites": sites, "frozen_violations": [],
                 "options": dict(DEFAULT_OPTIONS)})
    data.update(derived_figures(data))
    data.update({"placement": None, "placement_at": None, "gpu": {"interval_s": 0.1, "gpus": [],
                                                                 "reason": "no GPU visible"}})
    return data
