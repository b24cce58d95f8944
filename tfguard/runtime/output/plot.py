"""Pictures of a runtime report: step interval and graph size against step (matplotlib)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from tfguard.runtime.record.series import trend_series
from tfguard.runtime.record.stats import median_of, warmup_points

PLOT_EXTRA = "matplotlib"
_MAX_ANNOTATED_SITES = 3


class PlotUnavailable(Exception):
    """matplotlib is not installed; the message names the extra to install."""


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise PlotUnavailable("plots need matplotlib: pip install %s" % PLOT_EXTRA) from None
    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.pyplot as pyplot

    return pyplot


def _trend_line(steps: List[int], values: List[float]) -> Optional[List[float]]:
    """Theil-Sen line through the points after warm-up: the slowdown trend, robust to spikes."""
    start = warmup_points(len(values))
    xs, ys = steps[start:], values[start:]
    if len(xs) < 2:
        return None
    stride = max(1, len(xs) // 64)  # at most ~64 points: the pairwise slopes stay cheap
    px, py = xs[::stride], ys[::stride]
    slopes = [(py[j] - py[i]) / (px[j] - px[i])
              for i in range(len(px)) for j in range(i + 1, len(px)) if px[j] != px[i]]
    if not slopes:
        return None
    slope = median_of(slopes)
    intercept = median_of([y - slope * x for x, y in zip(px, py)])
    return [intercept + slope * x for x in xs]


def plot_report(data: Dict[str, Any], path: str, title: Optional[str] = None) -> None:
    """Write a PNG of `data` (a report's `to_dict()`): two stacked panels sharing the step axis.

    Top: step interval of the dominant fetch signature with its trend line and slowdown ratio.
    Bottom: graph size (ops) with the top growth sites annotated where they first grew.
    """
    pyplot = _pyplot()
    series = trend_series(data)
    figure, (top, bottom) = pyplot.subplots(2, 1, sharex=True, figsize=(9, 6))
    try:
        intervals_ms = [v * 1e3 for v in series.values]
        top.plot(series.steps, intervals_ms, color="tab:blue", linewidth=1, label="step interval")
        line = _trend_line(series.steps, intervals_ms)
        if line is not None:
            start = warmup_points(len(intervals_ms))
            slowdown = data.get("slowdown")
            label = "trend" if slowdown is None else "trend: x%.2f%s" % (
                slowdown, " (significant)" if data.get("slowdown_significant") else "")
            top.plot(series.steps[start:], line, color="tab:red", linestyle="--", label=label)
        top.set_ylabel("step interval (ms)")
        top.set_ylim(bottom=0)
        top.set_title(title or "tfguard: %s" % series.label, fontsize=10)
        top.legend(loc="upper left", fontsize=8)
        top.grid(alpha=0.3)
        bottom.plot(series.steps, series.nodes, color="tab:green", linewidth=1.5)
        bottom.set_ylabel("graph size (ops)")
        bottom.set_ylim(bottom=0)
        bottom.set_xlabel("training step (runs of the most frequent fetch)")
        bottom.grid(alpha=0.3)
        _annotate_sites(bottom, data, series.steps, series.nodes)
        figure.tight_layout()
        figure.savefig(path, format="png", dpi=100)
    finally:
        pyplot.close(figure)


def plot_comparison(runs: List[Any], path: str, title: str) -> None:
    """Write one PNG comparing runs (``[(label, report data)]``) on the same axes: step interval and graph
    size against the training step, both from 0, so a flat fixed run and a rising bad one read at a glance."""
    pyplot = _pyplot()
    figure, (top, bottom) = pyplot.subplots(2, 1, sharex=True, figsize=(9, 6))
    colors = ["tab:red", "tab:blue", "tab:green", "tab:purple"]
    try:
        for (label, data), color in zip(runs, colors * (1 + len(runs) // len(colors))):
            series = trend_series(data)
            top.plot(series.steps, [v * 1e3 for v in series.values], color=color, linewidth=1, label=label)
            bottom.plot(series.steps, series.nodes, color=color, linewidth=1.5, label=label)
        top.set_ylabel("step interval (ms)")
        top.set_ylim(bottom=0)
        top.set_title(title, fontsize=10)
        top.legend(loc="upper left", fontsize=8)
        top.grid(alpha=0.3)
        bottom.set_ylabel("graph size (ops)")
        bottom.set_ylim(bottom=0)
        bottom.set_xlabel("training step")
        bottom.grid(alpha=0.3)
        figure.tight_layout()
        figure.savefig(path, format="png", dpi=100)
    finally:
        pyplot.close(figure)


def _annotate_sites(axes: Any, data: Dict[str, Any], steps: List[int], nodes: List[int]) -> None:
    if not steps:
        return
    sites = [s for s in data.get("growth_sites", []) if s.get("kind") != "setup"]
    for rank, site in enumerate(sites[:_MAX_ANNOTATED_SITES]):
        step = min(max(site["first_step"], steps[0]), steps[-1])
        index = min(range(len(steps)), key=lambda i: abs(steps[i] - step))
        text = "%s:%d %s\n+%d ops, grew after %d runs (%s)" % (
            _short(site["path"], 40), site["line"], site.get("api") or "", site["ops_added"],
            site.get("events_in_loop", site["growth_events"]), site["kind"])
        axes.annotate(text, xy=(steps[index], nodes[index]), xycoords="data",
                      xytext=(0.02, 0.85 - 0.25 * rank), textcoords="axes fraction", fontsize=8,
                      arrowprops={"arrowstyle": "->", "color": "gray"})


def _short(text: str, width: int = 50) -> str:
    return text if len(text) <= width else "..." + text[-(width - 3):]
