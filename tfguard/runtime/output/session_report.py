"""A guard's report: one session of a run verdict (its figures and its diagnostics), its JSON document and text."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from tabulate import tabulate

from tfguard.runtime.devices.devicewatch import device_blocks
from tfguard.runtime.document import (
    after_run,
    after_runs,
    display_path,
    format_seconds,
    shown_labels,
    significant,
)
from tfguard.runtime.judge.time_parts import outside_share
from tfguard.runtime.output.fit import fit_records, fit_table, resolve_width, wrap_lines
from tfguard.runtime.verdict import DOCUMENT_VERSION, SESSION, Diagnostic, RunVerdict, SessionVerdict

#: Signatures and growth sites shown in the table; the JSON report has them all.
_TOP_SIGNATURES = 5
_TABLE_ROWS = 10


class SessionReport:
    """What one guard recorded and what was judged on it: a session's figures (read as attributes,
    `report.runs`) and its diagnostics. `to_dict()` is the session's document (its facts and figures, as a run
    document's ``sessions`` entry, with its diagnostics); `SessionReport.from_dict` reads one back, or the first session
    of a run document (any version `RunVerdict.from_document` reads)."""

    def __init__(self, session: SessionVerdict, findings: List[Diagnostic]) -> None:
        self.session = session
        #: The session's diagnostics, typed (verdict.Diagnostic).
        self.findings = list(findings)

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "SessionReport":
        """The first session of a document (ValueError for another version, or a document with no session)."""
        verdict = RunVerdict.from_document(data)
        if not verdict.sessions:
            raise ValueError("the tfguard report has no session")
        session = verdict.sessions[0]
        return cls(session, verdict.of_session(session.number))

    @property
    def verdict(self) -> RunVerdict:
        """This session as a run verdict of its own."""
        number = self.session.number
        return RunVerdict({}, [self.session], None, [d.scoped(SESSION, number) for d in self.findings])

    def to_dict(self) -> Dict[str, Any]:
        """The session's document: version, facts and figures, diagnostics (``tfguard report`` reads it)."""
        data: Dict[str, Any] = {"version": DOCUMENT_VERSION}
        data.update(self.session.to_dict())
        data["diagnostics"] = [d.to_dict() for d in self.verdict.diagnostics]
        return data

    def __getattr__(self, name: str) -> Any:
        session = self.__dict__.get("session")
        if session is not None and name in session.figures:
            return session.figures[name]
        raise AttributeError(name)

    @property
    def growth_sites(self) -> List[Tuple[str, int, int, int, str]]:
        """[(path, line, ops_added, growth_events, kind)]: repeated sites first, then one-time, then setup."""
        return [(s["path"], s["line"], s["ops_added"], s["growth_events"], s["kind"])
                for s in self.session.figures["growth_sites"]]

    @property
    def diagnostics(self) -> List[Tuple[str, str, str]]:
        """[(code, severity, message)]: the message is the headline and its help in one line (`one_line`)."""
        return [(d.code, d.severity, d.one_line) for d in self.findings]

    def signature(self, label_part: str) -> Optional[Dict[str, Any]]:
        """The first per-signature record whose label contains `label_part`."""
        for sig in self.session.figures["signatures"]:
            if label_part in sig["label"]:
                return sig
        return None

    def table(self, width: Optional[int] = None, freeze_after: Optional[int] = None) -> str:
        """The report as text: the diagnostics first (one line each, its help under it), then the evidence: the
        totals that say something, graph growth, blocked changes, the busiest signatures. `freeze_after`: the
        run's ``--freeze-after`` (a fact of the run, not of the session).

        Lines fit `width` columns (None: 80 or `COLUMNS`; 0: wide, nothing wrapped or shortened)."""
        d = self.session.figures
        width = resolve_width(width)
        evidence = evidence_rows(d, freeze_after)
        blocks = ["tfguard runtime report", diagnostics_block(d, self.findings, width), "evidence\n" + tabulate(
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
            shown = signatures[:_TOP_SIGNATURES]
            labels = shown_labels([sig["label"] for sig in shown], 60 if width else None)
            rows = [[label, sig["count"], format_seconds(sig["run_time"]["total"]),
                     format_seconds(sig["run_time"]["median"]), format_seconds(sig["interval"]["median"]),
                     format_seconds(sig["interval"]["p95"])] for label, sig in zip(labels, shown)]
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
        return "SessionReport(runs=%d, nodes_added=%d, diagnostics=%s)" % (
            self.session.figures["runs"], self.session.figures["nodes_added"], [d.code for d in self.findings])


def diagnostics_block(d: Dict[str, Any], diagnostics: List[Diagnostic], width: int = 0) -> str:
    """One line per diagnostic of a session, ``CODE severity  headline``; its help on a ``help:`` line.

    A headline longer than `width` columns (0: never) wraps under itself, at spaces."""
    if not diagnostics:
        return "diagnostics: none (%d runs watched)" % d["runs"]
    column = max(len(x.code) + 1 + len(x.severity) for x in diagnostics)
    lines = ["diagnostics"]
    hang = " " * (column + 2)
    for x in diagnostics:
        lines += wrap_lines(x.headline, width, "%-*s  " % (column, x.code + " " + x.severity), hang)
        if x.help:
            lines += wrap_lines("help: " + x.help, width, hang, hang + "      ")
    return "\n".join(lines)


def evidence_rows(d: Dict[str, Any], freeze_after: Optional[int] = None) -> List[List[str]]:
    """The totals that say something of a session's figures `d` (`freeze_after`: the run's --freeze-after): a row
    about other threads, saves, growth or freezing only when there is something to say; figures to 3 significant
    digits, the slowdown spelled as in the diagnostics."""
    rows = []
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
    if outside_share(d) is not None:  # the loop's share, the HTML page's too (judge/time_parts.py)
        rows.append(["outside sess.run (host)", _percent(outside_share(d))])
    if d["saves"]:
        rows.append(["in Saver.save", "%s (%d saves)" % (format_seconds(d["save_s"]), d["saves"])])
    rows.append(["graph ops", "%s -> %s (+%s)" % (d["nodes_start"], d["nodes_end"], d["nodes_added"])
                 if d["nodes_added"] else "%s (no growth)" % d["nodes_end"]])
    growth = d.get("growth_ops") or {}
    kinds = ["%s %s" % (growth[kind], kind) for kind in ("repeated", "one-time", "setup") if growth.get(kind)]
    if kinds:
        rows.append(["ops added", ", ".join(kinds)])
    if d["slowdown"] is not None:
        rows.append(["slowdown (%s)" % _measure(d), _ratio(d)])  # slowdown_phrase says it the same way
    return rows


def slowdown_phrase(d: Dict[str, Any]) -> str:
    """The slowdown as the evidence rows say it (``slowdown (step interval) x1.52 (significant trend)``), "" when
    there is no ratio: the HTML chart's caption says it in the same words."""
    return "" if d.get("slowdown") is None else "slowdown (%s) %s" % (_measure(d), _ratio(d))


def _runs_span(site: Dict[str, Any]) -> str:
    first, last = site.get("first_step"), site.get("last_step")
    return "" if first is None else after_runs(first, last)


def _after_run(step: Any) -> str:
    return "" if step is None else after_run(step)


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
