"""Separate runs side by side (an A/B comparison): ``tfguard report a.json b.json`` and the demo's table.

One column per run, the same rows for each: training steps, graph size, the step interval in the first
and the last fifth after warm-up, the slowdown, the top growth site, diagnostics, Saver.save and summary
cost, host share, wall time. Then each run's diagnostics in full. Cells wrap to fit the width given.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from tfguard.runtime.document import display_path, format_seconds
from tfguard.runtime.judge.summary_cost import summary_cost
from tfguard.runtime.output.fit import fit_table, wrap_lines


def interval_edges(report: Dict[str, Any]) -> Tuple[Optional[float], Optional[float]]:
    """Median step interval of the first and last 20% after warm-up (as in the slowdown ratio)."""
    from tfguard.runtime.record.series import trend_series
    from tfguard.runtime.record.stats import median_of, warmup_points

    values = trend_series(report).values
    body = values[warmup_points(len(values)):]
    if not body:
        return None, None
    edge = max(1, -(-len(body) * 2 // 10))
    return median_of(body[:edge]), median_of(body[-edge:])


def _ms(value: Optional[float]) -> str:
    return "-" if value is None else "%.1f ms" % (value * 1e3)


def _summaries(report: Dict[str, Any]) -> str:
    cost = summary_cost(report)
    if not cost["runs"]:
        return "none"
    if not cost["pairs"]:  # no like step to compare with: only the writer's time is known
        writer = "; FileWriter %s" % format_seconds(cost["writer_s"]) if cost["writer_calls"] else ""
        return "%d runs (run time not measured%s)" % (cost["runs"], writer)
    share = "" if not report["wall_s"] else ", %.0f%%" % (100 * cost["seconds"] / report["wall_s"])
    unmeasured = "; %d runs not measured" % cost["unmatched_runs"] if cost["unmatched_runs"] else ""
    return "%d runs (%s%s%s)" % (cost["runs"], format_seconds(cost["seconds"]), share, unmeasured)


ROWS = ["runs", "graph ops start -> end", "step interval, first 20%", "step interval, last 20%",
        "slowdown", "top growth site", "diagnostics", "Saver.save calls (time)", "summary runs (cost)",
        "outside sess.run (host)", "guarded wall time"]


def column(report: Dict[str, Any], relative: Callable[[str], str] = lambda text: text) -> List[str]:
    """One run's cells, in the order of `ROWS` (paths as `relative` shows them)."""
    if "mode" not in report:
        return ["no TensorFlow session"] + ["-"] * (len(ROWS) - 1)
    first, last = interval_edges(report)
    sites = [s for s in report["growth_sites"] if s["kind"] != "setup"]
    if sites:
        top = sites[0]
        site = "%s:%d `%s` (+%d ops, %s)" % (relative(display_path(top["path"])), top["line"],
                                             (top.get("code") or "").split("  #")[0], top["ops_added"], top["rule"])
    else:
        site = "none"
    slowdown = report["slowdown"]
    trend = "-" if slowdown is None else "x%.2f%s" % (
        slowdown, " (significant)" if report["slowdown_significant"] else " (no significant trend)")
    codes = ", ".join(d["code"] + ("" if d["severity"] != "info" else " (info)") for d in report["diagnostics"])
    host = report.get("host_fraction")
    return [
        str(report["runs"]),
        "%d -> %d (+%d)" % (report["nodes_start"], report["nodes_end"], report["nodes_added"]),
        _ms(first), _ms(last), trend, site, codes or "none",
        "%d (%.1f s)" % (report["saves"], report["save_s"]),
        _summaries(report),
        "-" if host is None else "%.0f%%" % (100 * host),
        "%.1f s" % report["wall_s"],
    ]


def comparison_table(runs: Sequence[Tuple[str, Dict[str, Any]]], width: int = 0,
                     relative: Callable[[str], str] = lambda text: text) -> str:
    """Runs [(name, report document)] side by side, then each run's diagnostics; cells wrap at `width`
    columns (0: no wrapping). `relative` rewrites the diagnostics' paths for display."""
    names = [name for name, _ in runs]
    columns = [column(report, relative) for _, report in runs]
    rows = [[label] + [col[i] for col in columns] for i, label in enumerate(ROWS)]
    table = fit_table(rows, [""] + names, width, shrink=list(range(1, len(names) + 1)), least=12,
                      disable_numparse=True)
    blocks = [table]
    for name, report in runs:
        notes = ["%s %s  %s" % (d["code"], d["severity"], relative(d["message"]))
                 for d in report.get("diagnostics", [])]
        if notes:
            lines = ["%s diagnostics:" % name]
            for note in notes:
                lines += wrap_lines(note, width, indent="  ", subsequent="    ")
            blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
