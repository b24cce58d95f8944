"""Separate runs side by side (an A/B comparison): ``tfguard report a.json b.json`` and the demo's table.

One column per run, the same rows for each: training steps, graph size, the step interval in the first
and the last fifth after warm-up, the slowdown, the top growth site, diagnostics, Saver.save and summary
cost, host share, wall time. Then each run's diagnostics in full. Cells wrap to fit the width given.
"""

from __future__ import annotations

import textwrap
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from tfguard.runtime.document import display_path, format_seconds
from tfguard.runtime.judge.summary_cost import summary_cost
from tfguard.runtime.output.fit import widest, wrap_lines


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


#: The longest word kept whole in a cell while the table is made to fit (a longer one may be cut).
_LONGEST_WORD = 30

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
    # A ratio beside "no significant trend" reads as a contradiction (x2.54, yet no slowdown): the ratio is shown
    # only for a significant trend; the two interval rows above give the raw numbers either way.
    if slowdown is None:
        trend = "-"
    elif report["slowdown_significant"]:
        trend = "x%.2f (significant)" % slowdown
    else:
        trend = "none (no significant trend)"
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


def _fit(rows: List[List[str]], headers: List[str], width: int) -> str:
    """The table at most ``width`` columns wide (0: as it is), cells wrapped at spaces. Each column keeps its
    longest word whole (up to _LONGEST_WORD): a path or `tf.train.Saver(...)` cut in the middle cannot be read or
    copied. The run columns narrow first, then the row labels; only then are words cut (down to 12 columns)."""
    from tabulate import tabulate

    text = tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)
    excess = widest(text) - width
    if width <= 0 or excess <= 0:
        return text
    cells = [headers] + rows
    limits = [max(len(line) for row in cells for line in str(row[i]).splitlines() or [""]) for i in
              range(len(headers))]
    words = [min(_LONGEST_WORD, max([1] + [len(word) for row in cells for word in str(row[i]).split()]))
             for i in range(len(headers))]
    data = list(range(1, len(headers)))
    for columns, floor in ((data, lambda i: words[i]), ([0], lambda i: words[i]), (data + [0], lambda i: 12)):
        while excess > 0:
            narrowable = [i for i in columns if limits[i] > floor(i)]
            if not narrowable:
                break
            limits[max(narrowable, key=lambda i: limits[i])] -= 1
            excess -= 1

    def wrapped(cell: str, column: int) -> str:
        return "\n".join(textwrap.wrap(str(cell), width=limits[column], break_long_words=True,
                                       break_on_hyphens=False)) if len(str(cell)) > limits[column] else cell

    return tabulate([[wrapped(cell, i) for i, cell in enumerate(row)] for row in rows],
                    headers=[wrapped(h, i) for i, h in enumerate(headers)], tablefmt="simple",
                    disable_numparse=True)


def comparison_table(runs: Sequence[Tuple[str, Dict[str, Any]]], width: int = 0,
                     relative: Callable[[str], str] = lambda text: text) -> str:
    """Runs [(name, report document)] side by side, then each run's diagnostics; cells wrap at `width`
    columns (0: no wrapping). `relative` rewrites the diagnostics' paths for display."""
    names = [name for name, _ in runs]
    columns = [column(report, relative) for _, report in runs]
    rows = [[label] + [col[i] for col in columns] for i, label in enumerate(ROWS)]
    table = _fit(rows, [""] + names, width)
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
