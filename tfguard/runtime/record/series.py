"""Per-step series of a report: step interval, graph size and host fraction against step.

Shared by the TensorBoard export and the plots; reads only the report's plain data.
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional


class StepSeries(NamedTuple):
    """Points of one series: `steps[i]` is the first step that point stands for."""

    label: str
    steps: List[int]
    values: List[float]
    nodes: List[int]


def _points(series: Optional[Dict[str, Any]]) -> List[List[Any]]:
    return list(series["points"]) if series else []


def trend_series(data: Dict[str, Any]) -> StepSeries:
    """The series the slowdown test judged, with graph sizes: the dominant signature's step
    intervals (or its own run times when other runs sit between its runs), else all runs'."""
    label = data.get("dominant_signature") or "(all runs)"
    chosen = data.get("all_runs_series")
    key = "run_series" if data.get("slowdown_measure") == "run time" else "series"
    if label != "(all runs)":
        for sig in data.get("signatures", []):
            if sig["label"] == label:
                chosen = sig.get(key) or sig["series"]
                break
    points = _points(chosen)
    return StepSeries(label, [int(p[0]) for p in points], [float(p[1]) for p in points],
                      [int(p[2]) for p in points])


def host_fraction_series(data: Dict[str, Any]) -> StepSeries:
    """Share of each step interval spent outside sess.run, over all runs of the guarding thread."""
    intervals = _points(data.get("all_runs_series"))
    gaps = _points(data.get("host_gap_series"))
    steps, values, nodes = [], [], []
    for interval, gap in zip(intervals, gaps):
        if interval[0] != gap[0] or interval[1] <= 0:
            continue
        steps.append(int(interval[0]))
        values.append(min(1.0, max(0.0, float(gap[1]) / float(interval[1]))))
        nodes.append(int(interval[2]))
    return StepSeries("(all runs)", steps, values, nodes)


def scalar_series(data: Dict[str, Any]) -> Dict[str, List[tuple]]:
    """TensorBoard tag -> [(step, value)] for `tfguard/step_interval`, `graph_ops`, `host_fraction`."""
    trend = trend_series(data)
    host = host_fraction_series(data)
    return {
        "tfguard/step_interval": list(zip(trend.steps, trend.values)),
        "tfguard/graph_ops": [(s, float(n)) for s, n in zip(trend.steps, trend.nodes)],
        "tfguard/host_fraction": list(zip(host.steps, host.values)),
    }
