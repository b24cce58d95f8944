"""The guard's report: plain data, JSON round-trip, table and diagnostics text."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

from tabulate import tabulate

from tfguard.runtime.devicewatch import device_blocks

REPORT_VERSION = 1


class Report:
    """What a guard recorded. Build it with `Report.from_dict`; every field is in `to_dict()`."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Report":
        """Rebuild a report from `to_dict()` output (e.g. loaded from JSON)."""
        if data.get("version") != REPORT_VERSION:
            raise ValueError("unsupported tfguard report version: %r" % (data.get("version"),))
        return cls(json.loads(json.dumps(data)))

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-serialisable copy with stable keys."""
        return json.loads(json.dumps(self._data))

    def __getattr__(self, name: str) -> Any:
        data = self.__dict__.get("_data")
        if data is not None and name in data:
            return data[name]
        raise AttributeError(name)

    @property
    def growth_sites(self) -> List[Tuple[str, int, int, int]]:
        """[(path, line, ops_added, runs)], most ops first."""
        return [(s["path"], s["line"], s["ops_added"], s["runs"]) for s in self._data["growth_sites"]]

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
        """Human-readable tables: totals, one block per fetch signature, growth, diagnostics."""
        d = self._data
        totals = [
            ["mode", d["mode"]],
            ["runs (guarding thread)", d["runs"]],
            ["runs (other threads)", d["other_thread_runs"]],
            ["wall time", _seconds(d["wall_s"])],
            ["time in sess.run", _seconds(d["run_s"])],
            ["host fraction", _percent(d["host_fraction"])],
            ["time in Saver.save", _seconds(d["save_s"])],
            ["graph nodes start/end/added", "%s / %s / %s" % (d["nodes_start"], d["nodes_end"], d["nodes_added"])],
            ["slowdown (dominant signature)", _ratio(d["slowdown"], d["slowdown_significant"])],
        ]
        blocks = ["tfguard runtime report", tabulate(totals, tablefmt="simple")]
        for sig in d["signatures"]:
            rows = [[label, stat["count"], _seconds(stat["median"]), _seconds(stat["p95"])]
                    for label, stat in (("run time", sig["run_time"]), ("step interval", sig["interval"]))]
            title = "signature: %s (%d runs)" % (sig["label"], sig["count"])
            blocks.append(title + "\n" + tabulate(rows, headers=["", "n", "median", "p95"], tablefmt="simple"))
        if d["growth_sites"]:
            rows = [[s["path"] + ":" + str(s["line"]), s["api"] or "", s["ops_added"], s["runs"], s["rule"]]
                    for s in d["growth_sites"]]
            headers = ["site", "api", "ops added", "runs", "rule"]
            blocks.append("graph growth\n" + tabulate(rows, headers=headers, tablefmt="simple"))
        if d["frozen_violations"]:
            rows = [[v["path"] + ":" + str(v["line"]), v["api"] or "", v["step"]] for v in d["frozen_violations"]]
            table = tabulate(rows, headers=["site", "api", "step"], tablefmt="simple")
            blocks.append("blocked graph changes\n" + table)
        blocks.extend(device_blocks(d))
        if d["diagnostics"]:
            rows = [[x["code"], x["severity"], x["message"]] for x in d["diagnostics"]]
            blocks.append("diagnostics\n" + tabulate(rows, headers=["code", "severity", "message"], tablefmt="simple"))
        else:
            blocks.append("diagnostics: none")
        return "\n\n".join(blocks)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return "Report(runs=%d, nodes_added=%d, diagnostics=%s)" % (
            self._data["runs"], self._data["nodes_added"], [c for c, _, _ in self.diagnostics])


def _seconds(value: Optional[float]) -> str:
    if value is None:
        return "-"
    if value >= 1.0:
        return "%.3f s" % value
    if value >= 1e-3:
        return "%.3f ms" % (value * 1e3)
    return "%.1f us" % (value * 1e6)


def _percent(value: Optional[float]) -> str:
    return "-" if value is None else "%.1f%%" % (value * 100)


def _ratio(value: Optional[float], significant: bool) -> str:
    if value is None:
        return "-"
    return "x%.3f%s" % (value, " (significant)" if significant else "")
