"""The guard's report: plain data, JSON round-trip, table and diagnostics text."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from tabulate import tabulate

from tfguard.runtime.devicewatch import device_blocks
from tfguard.runtime.document import DataReport, format_seconds

REPORT_VERSION = 2
#: Signatures and growth sites shown in the table; the JSON report has them all.
_TOP_SIGNATURES = 5
_TABLE_ROWS = 10


class Report(DataReport):
    """What a guard recorded. Build it with `Report.from_dict`; every field is in `to_dict()`."""

    VERSION = REPORT_VERSION

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

    def table(self) -> str:
        """Human-readable tables: totals, diagnostics, graph growth, then the busiest fetch signatures."""
        d = self._data
        growth = d.get("growth_ops") or {}
        totals = [
            ["mode", d["mode"]],
            ["runs (guarding thread)", d["runs"]],
            ["runs (other threads)", d["other_thread_runs"]],
            ["wall time", format_seconds(d["wall_s"])],
            ["time in sess.run", format_seconds(d["run_s"])],
            ["host fraction", _percent(d["host_fraction"])],
            ["time in Saver.save", "%s (%d saves)" % (format_seconds(d["save_s"]), d["saves"])],
            ["graph nodes start/end/added", "%s / %s / %s" % (d["nodes_start"], d["nodes_end"], d["nodes_added"])],
            ["ops added: setup/one-time/repeated", "%s / %s / %s" % (
                growth.get("setup", 0), growth.get("one-time", 0), growth.get("repeated", 0))],
            ["slowdown (%s)" % _measure(d), _ratio(d)],
        ]
        blocks = ["tfguard runtime report", tabulate(totals, tablefmt="simple")]
        if d["diagnostics"]:
            blocks.append("diagnostics\n" + "\n".join(
                "%s %s: %s" % (x["code"], x["severity"], x["message"]) for x in d["diagnostics"]))
        else:
            blocks.append("diagnostics: none")
        sites = [s for s in d["growth_sites"] if s["kind"] != "setup"]
        if sites:
            rows = [[s["path"] + ":" + str(s["line"]), _clip(s["code"]), _what(s), s["ops_added"], s["growth_events"],
                     s["kind"], s["rule"]] for s in sites[:_TABLE_ROWS]]
            headers = ["site", "source", "adds", "ops added", "growth events", "kind", "rule"]
            table = tabulate(rows, headers=headers, tablefmt="simple")
            if len(sites) > _TABLE_ROWS:
                table += "\n... %d more sites (all in the JSON report)" % (len(sites) - _TABLE_ROWS)
            blocks.append("graph growth after the loop started\n" + table)
        if d["frozen_violations"]:
            rows = [[v["path"] + ":" + str(v["line"]), _clip(v["code"]), v["api"] or "", v["step"]]
                    for v in d["frozen_violations"][:_TABLE_ROWS]]
            table = tabulate(rows, headers=["site", "source", "api", "step"], tablefmt="simple")
            blocks.append("blocked graph changes\n" + table)
        signatures = d["signatures"]
        if signatures:
            rows = [[_clip(sig["label"], 60), sig["count"], format_seconds(sig["run_time"]["total"]),
                     format_seconds(sig["run_time"]["median"]), format_seconds(sig["interval"]["median"]),
                     format_seconds(sig["interval"]["p95"])] for sig in signatures[:_TOP_SIGNATURES]]
            headers = ["fetches <- feeds", "runs", "total run time", "run time median", "interval median",
                       "interval p95"]
            table = tabulate(rows, headers=headers, tablefmt="simple")
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
    return "-" if value is None else "%.1f%%" % (value * 100)


def _ratio(d: Dict[str, Any]) -> str:
    value = d["slowdown"]
    if value is None:
        return "-"
    if d["slowdown_significant"]:
        cause = d.get("slowdown_cause")
        note = " (significant trend%s)" % (": " + cause if cause else "")
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
    return "x%.3f%s" % (value, note)
