"""The A/B comparison's rows, built once: ``tfguard report A.json B.json`` (views/compare.py, a text table) and
the HTML page of runs side by side (html/side_by_side.py) show the same rows in the same words.

One column per run, the same rows for each: training steps, graph size, the step interval in the first and the
last fifth after warm-up, the slowdown, the top growth site, the run's diagnostics (of every scope), Saver.save
and summary cost, host share, wall time. A run's figures are those of its busiest session.
"""

from __future__ import annotations

from typing import Callable, List, Optional

from tfguard.runtime.document import display_path, format_seconds
from tfguard.runtime.judge.time_parts import outside_share
from tfguard.runtime.verdict import RunVerdict

ROWS = ["runs", "graph ops start -> end", "step interval, first 20%", "step interval, last 20%",
        "slowdown", "top growth site", "diagnostics", "Saver.save calls (time)", "summary runs (cost)",
        "outside sess.run (host)", "guarded wall time"]


def _ms(value: Optional[float]) -> str:
    return "-" if value is None else "%.1f ms" % (value * 1e3)


def _summaries(figures: dict) -> str:
    cost = figures.get("summary_cost") or {}
    if not cost.get("runs"):
        return "none"
    if not cost["pairs"]:  # no like step to compare with: only the writer's time is known
        writer = "; FileWriter %s" % format_seconds(cost["writer_s"]) if cost["writer_calls"] else ""
        return "%d runs (run time not measured%s)" % (cost["runs"], writer)
    share = "" if not figures["wall_s"] else ", %.0f%%" % (100 * cost["seconds"] / figures["wall_s"])
    unmeasured = "; %d runs not measured" % cost["unmatched_runs"] if cost["unmatched_runs"] else ""
    return "%d runs (%s%s%s)" % (cost["runs"], format_seconds(cost["seconds"]), share, unmeasured)


def diagnostic_codes(verdict: RunVerdict) -> str:
    """The run's diagnostics in one cell: ``TFG901, TFG908 (info)``, or ``none``."""
    return ", ".join(d.code + ("" if d.severity != "info" else " (info)") for d in verdict.diagnostics) or "none"


def comparison_column(verdict: RunVerdict, relative: Callable[[str], str] = lambda text: text) -> List[str]:
    """One run's cells, in the order of `ROWS` (paths as `relative` shows them)."""
    session = verdict.busiest
    if session is None:
        cells = ["no TensorFlow session"] + ["-"] * (len(ROWS) - 1)
        cells[ROWS.index("diagnostics")] = diagnostic_codes(verdict)
        return cells
    figures = session.figures
    edges = figures.get("slowdown_edges")  # the medians the slowdown verdict compared
    sites = [s for s in figures["growth_sites"] if s["kind"] != "setup"]
    if sites:
        top = sites[0]
        site = "%s:%d `%s` (+%d ops, %s)" % (relative(display_path(top["path"])), top["line"],
                                             (top.get("code") or "").split("  #")[0], top["ops_added"], top["rule"])
    else:
        site = "none"
    slowdown = figures["slowdown"]
    # A ratio beside "no significant trend" reads as a contradiction (x2.54, yet no slowdown): the ratio is shown
    # only for a significant trend; the two interval rows above give the raw numbers either way.
    if slowdown is None:
        trend = "-"
    elif figures["slowdown_significant"]:
        trend = "x%.2f (significant)" % slowdown
    else:
        trend = "none (no significant trend)"
    host = outside_share(figures)
    return [
        str(figures["runs"]),
        "%d -> %d (+%d)" % (figures["nodes_start"], figures["nodes_end"], figures["nodes_added"]),
        _ms(edges["first"] if edges else None), _ms(edges["last"] if edges else None), trend, site,
        diagnostic_codes(verdict),
        "%d (%.1f s)" % (figures["saves"], figures["save_s"]),
        _summaries(figures),
        "-" if host is None else "%.0f%%" % (100 * host),
        "%.1f s" % figures["wall_s"],
    ]
