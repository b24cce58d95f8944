"""The guard's report: plain data, JSON round-trip, table and diagnostics text."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from tabulate import tabulate

from tfguard.runtime.devices.devicewatch import device_blocks
from tfguard.runtime.document import (
    REPORT_VERSION,
    DataReport,
    after_run,
    after_runs,
    display_path,
    format_seconds,
    significant,
)
from tfguard.runtime.judge.graph_growth import DIAGNOSTIC as GRAPH_GROWTH
from tfguard.runtime.output.fit import fit_records, fit_table, resolve_width, wrap_lines

#: Signatures and growth sites shown in the table; the JSON report has them all.
_TOP_SIGNATURES = 5
_TABLE_ROWS = 10


class Report(DataReport):
    """What a guard recorded. Build it with `Report.from_dict`; every field is in `to_dict()`."""

    VERSION = REPORT_VERSION
    READS = (2,)

    @property
    def growth_sites(self) -> List[Tuple[str, int, int, int, str]]:
        """[(path, line, ops_added, growth_events, kind)]: repeated sites first, then one-time, then setup."""
        return [(s["path"], s["line"], s["ops_added"], s["growth_events"], s["kind"])
                for s in self._data["growth_sites"]]

    @property
    def diagnostics(self) -> List[Tuple[str, str, str]]:
        """[(code, severity, message)]."""
        return [(d["code"], d["severity"], d["message"]) for d in self._data["diagnostics"]]

    def signature(self, label_part: str) -> Optional[Dict[str, Any]]:
        """The first per-signature record whose label contains `label_part`."""
        for sig in self._data["signatures"]:
            if label_part in sig["label"]:
                return sig
        return None

    def table(self, width: Optional[int] = None) -> str:
        """The report as text: the diagnostics first (one line each, the fix under a repeated growth site), then
        the evidence: the totals that say something, graph growth, blocked changes, the busiest signatures.

        Lines fit `width` columns (None: 80 or `COLUMNS`; 0: wide, nothing wrapped or shortened)."""
        d = self._data
        width = resolve_width(width)
        evidence = evidence_rows(d)
        blocks = ["tfguard runtime report", diagnostics_block(d, width), "evidence\n" + tabulate(
            evidence, tablefmt="plain", maxcolwidths=[None, max(20, width - 2 - max(len(r[0]) for r in evidence))]
            if width else None)]
        sites = [s for s in d["growth_sites"] if s["kind"] != "setup"]
        if sites:
            rows = [[display_path(s["path"]) + ":" + str(s["line"]), _what(s), s["ops_added"],
                     s.get("events_in_loop", 0), _runs_span(s), s["kind"], s["rule"]] for s in sites[:_TABLE_ROWS]]
            headers = ["site", "adds", "ops added", "runs that grew it", "runs", "kind", "rule"]
            table = fit_records(rows, headers, width)
            if len(sites) > _TABLE_ROWS:
                table += "\n... %d more sites (all in the JSON report)" % (len(sites) - _TABLE_ROWS)
            blocks.append("graph growth after the loop started\n" + table)
        if d["frozen_violations"]:
            rows = [[display_path(v["path"]) + ":" + str(v["line"]), v["api"] or "", _after_run(v["step"])]
                    for v in d["frozen_violations"][:_TABLE_ROWS]]
            table = fit_table(rows, ["site", "api", "when"], width, shrink=[0, 1])
            blocks.append("blocked graph changes\n" + table)
        signatures = d["signatures"]
        if signatures:
            rows = [[_clip(sig["label"], 60) if width else sig["label"], sig["count"],
                     format_seconds(sig["run_time"]["total"]),
                     format_seconds(sig["run_time"]["median"]), format_seconds(sig["interval"]["median"]),
                     format_seconds(sig["interval"]["p95"])] for sig in signatures[:_TOP_SIGNATURES]]
            headers = ["fetches <- feeds", "runs", "total run time", "run time median", "interval median",
                       "interval p95"]
            table = fit_records(rows, headers, width)
            if len(signatures) > _TOP_SIGNATURES:
                table += "\n... %d more signatures (all in the JSON report)" % (len(signatures) - _TOP_SIGNATURES)
            blocks.append("fetch signatures by total run time\n" + table)
        blocks.extend(device_blocks(d))
        return "\n\n".join(blocks)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return "Report(runs=%d, nodes_added=%d, diagnostics=%s)" % (
            self._data["runs"], self._data["nodes_added"], [c for c, _, _ in self.diagnostics])


def diagnostics_block(d: Dict[str, Any], width: int = 0) -> str:
    """One line per diagnostic, ``CODE severity  message``; a repeated growth site's fix on a ``help:`` line.

    A message longer than `width` columns (0: never) wraps under itself, at spaces."""
    if not d["diagnostics"]:
        return "diagnostics: none (%d runs watched)" % d["runs"]
    column = max(len(x["code"]) + 1 + len(x["severity"]) for x in d["diagnostics"])
    lines = ["diagnostics"]
    repeated = [s for s in d["growth_sites"] if s["kind"] == "repeated" and s.get("fix")]
    hang = " " * (column + 2)
    for x in d["diagnostics"]:
        lines += wrap_lines(x["message"], width, "%-*s  " % (column, x["code"] + " " + x["severity"]), hang)
        if x["code"] == GRAPH_GROWTH.code and x["severity"] == "error" and repeated:
            lines += wrap_lines("help: " + repeated[0]["fix"], width, hang, hang + "      ")
    return "\n".join(lines)


def evidence_rows(d: Dict[str, Any]) -> List[List[str]]:
    """The totals that say something: a row about other threads, saves, growth or freezing only when there
    is something to say; figures to 3 significant digits, the slowdown spelled as in the diagnostics."""
    rows = []
    freeze_after = d.get("freeze_after")
    if freeze_after:
        rows.append(["mode", "frozen after run %d (--freeze-after)" % freeze_after if d["runs"] >= freeze_after
                     else "watch (--freeze-after %d not reached)" % freeze_after])
    elif d["mode"] != "watch":
        rows.append(["mode", d["mode"]])
    runs = "%d" % d["runs"]
    if d["other_thread_runs"]:
        runs += " (+%d on other threads)" % d["other_thread_runs"]
    rows.append(["runs", runs])
    rows.append(["wall time", format_seconds(d["wall_s"])])
    rows.append(["in sess.run", format_seconds(d["run_s"])])
    if d["host_fraction"] is not None:
        rows.append(["outside sess.run (host)", _percent(d["host_fraction"])])
    if d["saves"]:
        rows.append(["in Saver.save", "%s (%d saves)" % (format_seconds(d["save_s"]), d["saves"])])
    rows.append(["graph ops", "%s -> %s (+%s)" % (d["nodes_start"], d["nodes_end"], d["nodes_added"])
                 if d["nodes_added"] else "%s (no growth)" % d["nodes_end"]])
    growth = d.get("growth_ops") or {}
    kinds = ["%s %s" % (growth[kind], kind) for kind in ("repeated", "one-time", "setup") if growth.get(kind)]
    if kinds:
        rows.append(["ops added", ", ".join(kinds)])
    if d["slowdown"] is not None:
        rows.append(["slowdown (%s)" % _measure(d), _ratio(d)])
    return rows


def _runs_span(site: Dict[str, Any]) -> str:
    first, last = site.get("first_step"), site.get("last_step")
    return "" if first is None else after_runs(first, last)


def _after_run(step: Any) -> str:
    return "" if step is None else after_run(step)


def _clip(text: str, width: int = 50) -> str:
    text = text or ""
    return text if len(text) <= width else text[:width - 3] + "..."


def _what(site: Dict[str, Any]) -> str:
    api = site.get("api") or ""
    types = ", ".join(site.get("op_types") or [])
    if api.startswith("tf."):
        return "%s (%s)" % (api, types) if types else api
    return types or api


def _measure(d: Dict[str, Any]) -> str:
    return "run time" if d.get("slowdown_measure") == "run time" else "step interval"


def _percent(value: Optional[float]) -> str:
    return "-" if value is None else significant(value * 100) + "%"


def _ratio(d: Dict[str, Any]) -> str:
    value = d["slowdown"]
    if value is None:
        return "-"
    if d["slowdown_significant"]:
        cause = d.get("slowdown_cause")
        note = " (significant trend%s)" % (": " + cause if cause else "")
    elif d.get("slowdown_shape") == "phase change":  # judge/slowdown.phase_change
        note = " (a phase change, not a speed change: the last fifth ran another step, `%s`)" % (
            (d.get("phase_change") or {}).get("last", "?"))
    elif d.get("slowdown_shape") == "level shift":
        note = " (level shift, not a trend)"
    elif d.get("slowdown_shape") == "trend" and d.get("contention"):
        note = " (other jobs took the CPUs: not the program's own)"
    elif d.get("slowdown_shape") == "trend":
        note = " (no cause of the program's own)"
    elif "verdict_window_s" in d and d["verdict_window_s"] is None:
        note = " (too short for a verdict)"
    else:
        note = ""
    return "x%.2f%s" % (value, note)
