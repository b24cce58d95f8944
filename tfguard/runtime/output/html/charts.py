"""The report's charts, each drawn from one session's figures alone: step time with the verdict's trend, graph size,
host share, and where the loop's wall time went (sess.run, summaries, Saver.save, outside sess.run).

Every function returns the chart's SVG, or None when the document has too little to draw (the page says so).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from tfguard.runtime.document import significant
from tfguard.runtime.judge.input_bound import DIAGNOSTIC as INPUT_BOUND
from tfguard.runtime.output.html.downsample import bucketed, is_flat
from tfguard.runtime.output.html.svg import Plot, stacked_bar
from tfguard.runtime.record.series import host_fraction_series, trend_series
from tfguard.runtime.verdict import RunVerdict

#: CSS classes of the runs of a comparison, in order (A, B, ...).
RUN_CLASSES = ("run-a", "run-b", "run-c", "run-d")


def _ms(value: float) -> str:
    """Milliseconds as a tick or label: `0`, `0.6 ms`, `500 ms`, `1.5 s`."""
    if not value:
        return "0"
    return significant(value / 1e3) + " s" if value >= 1e3 else significant(value) + " ms"


def _ops(value: float) -> str:
    return "{:,}".format(int(value))


def _percent(value: float) -> str:
    return "%s%%" % significant(value)


def trend_x_name(document: Dict[str, Any]) -> str:
    """What the step-time chart's x axis counts: runs of the dominant fetch, or all runs."""
    label = document.get("dominant_signature") or "(all runs)"
    return "run (all runs)" if label == "(all runs)" else "run of the training step"


def step_time_chart(document: Dict[str, Any], slowdown_text: str = "") -> Optional[str]:
    """Step time over the run: the series the slowdown verdict judged (mean per bucket, min/max band), the warm-up
    it skips, the medians of its first and last fifth joined by the trend they give, and where the loop started."""
    series = trend_series(document)
    if len(series.steps) < 2:
        return None
    xs = [s + 1 for s in series.steps]
    values = [v * 1e3 for v in series.values]
    buckets = bucketed(xs, values)
    edges = verdict_edges(document)
    # The scale fits the points the verdict judged: a slow first step (start-up, autotuning) would flatten the
    # rest; it is drawn cut at the top, its height said in the warm-up span's tooltip.
    judged = [b.high for b in buckets if edges is None or b.x >= xs[edges[0]]] or [b.high for b in buckets]
    plot = Plot((xs[0], xs[-1]), (0.0, max(judged)), _ms, "ms", trend_x_name(document))
    if edges is not None:
        skip, first_end, last_start, first, last = edges
        plot.shade(xs[0], xs[skip], "warm-up: %d points the verdict skips (up to %s)" % (
            skip, _ms(max(values[:skip]))))
    if not is_flat(buckets):
        plot.band(buckets, "time")
    plot.line([(b.x, b.mean) for b in buckets], "time", "step time")
    if edges is not None:
        plot.segment(xs[skip], xs[first_end], first, "first 20%%: %s" % _ms(first))
        plot.segment(xs[last_start], xs[-1], last, "last 20%%: %s" % _ms(last))
        plot.marks.append(_trend_line(plot, (xs[skip] + xs[first_end]) / 2.0, first,
                                      (xs[last_start] + xs[-1]) / 2.0, last))
    _loop_start(plot, document, dominant=series.label != "(all runs)")
    return plot.svg("step time over the run%s" % (": " + slowdown_text if slowdown_text else ""))


def verdict_edges(figures: Dict[str, Any]) -> Optional[Tuple[int, int, int, float, float]]:
    """(warm-up, first fifth's end, last fifth's start, its medians in ms) as the slowdown verdict took them
    (``slowdown_edges``), None when it took none."""
    edges = figures.get("slowdown_edges")
    if not edges:
        return None
    return (edges["warmup"], edges["first_end"], edges["last_start"], edges["first"] * 1e3, edges["last"] * 1e3)


def _trend_line(plot: Plot, x0: float, y0: float, x1: float, y1: float) -> str:
    return '<line class="trend" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>' % (
        plot.sx(x0), plot.sx(x1), plot.sy(y0), plot.sy(y1))


def _loop_start(plot: Plot, document: Dict[str, Any], dominant: bool) -> None:
    start = int(document.get("loop_start") or 0)
    # On the training step's own runs, its first run is where the loop starts; on all runs, run `start + 1`.
    plot.vline(1 if dominant else start + 1, "loop starts (run %d)" % (start + 1))


def graph_size_chart(document: Dict[str, Any]) -> Optional[str]:
    """Graph size (ops) over all runs, with the loop start and a dot where each growth site first grew."""
    points = (document.get("all_runs_series") or {}).get("points") or []
    if len(points) < 2:
        return None
    xs = [int(p[0]) + 1 for p in points]
    nodes = [int(p[2]) for p in points]
    buckets = bucketed(xs, nodes)
    low, high = size_range(nodes)
    plot = Plot((xs[0], xs[-1]), (low, high), _ops, "ops", "run (all runs)")
    if low > 0:
        plot.y_break("axis from %s ops, not 0" % _ops(plot.y0))
    plot.line([(b.x, b.high) for b in buckets], "ops", "graph ops", step=True)
    sites = [s for s in document.get("growth_sites", []) if s.get("kind") != "setup"]
    for site in sites[:8]:
        run = (site.get("first_step") or 0) + 1
        index = min(range(len(xs)), key=lambda i: abs(xs[i] - run))
        plot.dot(xs[index], nodes[index], "%s:%s first grew after run %d (+%d ops, %s)" % (
            site["path"], site["line"], run - 1, site["ops_added"], site["kind"]))
    _loop_start(plot, document, dominant=False)
    return plot.svg("graph size over the run: %s to %s ops" % (_ops(nodes[0]), _ops(nodes[-1])))


#: A graph-size chart whose growth is under this share of the graph it started from is drawn zoomed onto it.
ZOOM_BELOW = 0.25


def size_range(nodes: Sequence[int]) -> Tuple[float, float]:
    """The graph-size chart's y range: from 0 for a flat graph or a growth of a quarter of the graph it started from
    or more (visible from 0), else from just under the smallest size, so that 2,000 -> 2,012 ops is drawn as the rise
    the verdict is about and not as a flat line at the top of a 0-2,000 axis (issue 45; the chart then marks its
    axis as broken)."""
    least, most = min(nodes), max(nodes)
    if least <= 0 or most == least or most - least >= ZOOM_BELOW * least:
        return 0.0, most * 1.05 or 1.0
    pad = max(1.0, 0.1 * (most - least))
    return max(0.0, least - pad), most + pad


def host_share_chart(document: Dict[str, Any]) -> Optional[str]:
    """The share of each step interval spent outside sess.run, over all runs, with the input-bound threshold."""
    series = host_fraction_series(document)
    if len(series.steps) < 2:
        return None
    xs = [s + 1 for s in series.steps]
    buckets = bucketed(xs, [v * 100 for v in series.values])
    plot = Plot((xs[0], xs[-1]), (0.0, 100.0), _percent, "%", "run (all runs)")
    threshold = (document.get("options") or {}).get("host_threshold")
    if threshold:
        plot.segment(xs[0], xs[-1], threshold * 100, "%s at %s" % (INPUT_BOUND.code, _percent(threshold * 100)),
                     "threshold")
    if not is_flat(buckets):
        plot.band(buckets, "host")
    plot.line([(b.x, b.mean) for b in buckets], "host", "outside sess.run")
    _loop_start(plot, document, dominant=False)
    return plot.svg("share of each step spent outside sess.run")


def time_parts(document: Dict[str, Any]) -> List[Tuple[str, float, str]]:
    """Where the loop's wall time went, as judged once (judge/time_parts.py): [(name, seconds, css class)]."""
    return [(p["name"], p["seconds"], p["css"]) for p in document["time_parts"]["parts"]]


def cost_bar(document: Dict[str, Any]) -> Optional[str]:
    """The loop's wall time as one stacked bar of :func:`time_parts`."""
    span = float(document["time_parts"]["span_s"] or 0.0)
    return stacked_bar(time_parts(document), span, "where the loop's wall time went") or None


def comparison_charts(runs: Sequence[Tuple[str, RunVerdict]]) -> List[Tuple[str, str]]:
    """[(caption, svg)]: the runs' step times and graph sizes (their busiest sessions') on shared axes (their
    training steps from 1)."""
    step_lines = []
    for name, verdict in runs:
        if verdict.busiest is None:
            continue
        series = trend_series(verdict.busiest.figures)
        xs = [s + 1 for s in series.steps]
        if len(xs) >= 2:
            step_lines.append((name, bucketed(xs, [v * 1e3 for v in series.values]),
                               bucketed(xs, series.nodes)))
    charts = []
    if step_lines:
        x1 = max(line[1][-1].x for line in step_lines)
        top = max(b.high for line in step_lines for b in line[1])
        time_plot = Plot((1, x1), (0.0, top), _ms, "ms", "run of the training step")
        most = max(b.high for line in step_lines for b in line[2])
        size_plot = Plot((1, x1), (0.0, most * 1.05 or 1.0), _ops, "ops", "run of the training step")
        for (name, times, sizes), css in zip(step_lines, RUN_CLASSES * len(step_lines)):
            time_plot.line([(b.x, b.mean) for b in times], css, name)
            size_plot.line([(b.x, b.high) for b in sizes], css, name, step=True)
        charts.append(("step time, each run's training step", time_plot.svg("step time of the runs compared")))
        charts.append(("graph size (ops) at each training step", size_plot.svg("graph size of the runs compared")))
    return charts
