"""The sections under the diagnostics: the run's facts, the charts with their tables (growth sites, host time by
line, where the wall time went, fetch signatures), traces per function (TF2), devices and the other sessions."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from tfguard.runtime.devices.devicewatch import device_blocks
from tfguard.runtime.document import after_runs, display_path, format_seconds, shown_labels, significant
from tfguard.runtime.judge.time_parts import outside_share
from tfguard.runtime.output.html import charts
from tfguard.runtime.output.html.markup import esc
from tfguard.runtime.output.session_report import evidence_rows, slowdown_phrase
from tfguard.runtime.verdict import RunVerdict

_SIGNATURES_SHOWN = 8
_SITES_SHOWN = 10


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], css: str = "") -> str:
    """An HTML table of already escaped cells; on a narrow screen each row becomes a block of labelled cells."""
    head = "".join("<th>%s</th>" % esc(h) for h in headers)
    labels = [' data-label="%s"' % esc(h) if h else "" for h in headers]
    body = "".join("<tr>%s</tr>" % "".join("<td%s>%s</td>" % (label, cell) for label, cell in zip(labels, row))
                   for row in rows)
    return '<div class="scroll"><table class="%s"><thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>' % (
        css, head, body)


def figure(svg: Optional[str], caption: str, empty: str) -> str:
    """A chart with its caption and read-out, or the caption and `empty` (why there is no chart)."""
    if svg is None:
        return '<figure class="plot empty"><figcaption>%s</figcaption><p class="note">%s</p></figure>' % (
            esc(caption), esc(empty))
    return ('<figure class="plot"><figcaption>%s</figcaption>%s<output class="readout" aria-live="polite">'
            '</output></figure>' % (esc(caption), svg))


def facts_rows(verdict: RunVerdict) -> List[List[str]]:
    """[(fact, value)] of the run: command, TensorFlow, sessions, runs watched, exit status, then the evidence
    totals of the text report (output/session_report.py's evidence_rows) of its busiest session."""
    rows = []
    facts = verdict.facts
    if verdict.command:
        rows.append(["command", "tfguard run " + verdict.command])
    rows.append(["TensorFlow", facts.get("tensorflow_version") or "?"])
    if "exit_status" in facts:
        rows.append(["exit status", str(facts["exit_status"])
                     + (" (stopped by --max-steps)" if facts.get("stopped_by_max_steps") else "")])
    if "command" in facts:
        rows.append(["sessions watched", str(len(verdict.sessions))])
    steps = facts.get("steps") or {}
    if steps.get("steps"):
        rows.append(["training steps", "%d (%s)" % (steps["steps"], ", ".join(
            "calls of %s" % f["function"] for f in steps.get("step_functions") or []) or "eager apply_gradients")])
    busiest = verdict.busiest
    if busiest is not None and busiest.created_at:
        rows.append(["session created at", busiest.created_at])
    unguarded = facts.get("unguarded_sessions") or []
    if unguarded:
        rows.append(["sessions not reported", "%d (tfguard failed internally on them)" % len(unguarded)])
    if busiest is not None:
        rows += [[str(name), str(value)] for name, value in evidence_rows(busiest.figures, facts.get("freeze_after"))]
    return rows


def facts_section(verdict: RunVerdict) -> str:
    """The run's facts as a two-column table."""
    rows = [["<th>%s</th>" % esc(name), esc(value)] for name, value in facts_rows(verdict)]
    body = "".join("<tr>%s<td>%s</td></tr>" % (name, value) for name, value in rows)
    return '<section id="facts"><h2>The run</h2><table class="facts"><tbody>%s</tbody></table></section>' % body


def step_section(document: Dict[str, Any]) -> str:
    """Step time (with the verdict's trend) and graph size, then the growth sites."""
    label = document.get("dominant_signature") or "(all runs)"
    slowdown = slowdown_phrase(document)
    step = figure(charts.step_time_chart(document, slowdown),
                   "Step time of %s%s" % ("all runs" if label == "(all runs)" else "`%s`" % label,
                                          ": " + slowdown if slowdown else ""),
                   "too few runs to draw")
    size = figure(charts.graph_size_chart(document), "Graph size (ops) over the runs: %s" % (
        "%s -> %s (+%s)" % (document["nodes_start"], document["nodes_end"], document["nodes_added"])
        if document["nodes_added"] else "%s, no growth" % document["nodes_end"]), "too few runs to draw")
    sites = [s for s in document.get("growth_sites") or [] if s.get("kind") != "setup"]
    rows = [['<span class="where">%s:%s</span>' % (esc(display_path(s["path"])), esc(s["line"])),
             '<code class="src">%s</code>' % esc((s.get("code") or "").strip()), esc(s.get("api") or ""),
             esc(s["ops_added"]), esc(s.get("events_in_loop", s.get("growth_events", 0))),
             esc(after_runs(s["first_step"], s["last_step"]) if s.get("first_step") is not None else ""),
             esc(s["kind"]), esc(s.get("rule") or "")] for s in sites[:_SITES_SHOWN]]
    growth = ""
    if rows:
        growth = "<h3>Graph growth after the loop started</h3>" + table(
            ["site", "code", "adds", "ops added", "runs that grew it", "runs", "kind", "rule"], rows)
        if len(sites) > _SITES_SHOWN:
            growth += '<p class="note">%d more sites in the JSON report</p>' % (len(sites) - _SITES_SHOWN)
    return '<section id="steps"><h2>Steps and graph size</h2><div class="plots">%s%s</div>%s</section>' % (
        step, size, growth)


def host_section(document: Dict[str, Any]) -> str:
    """The host share (time outside sess.run) over the runs, and the source lines that took it."""
    share = outside_share(document)
    caption = "Outside sess.run (host): %s of the loop's wall time" % (
        "-" if share is None else significant(100 * share) + "%")
    host_chart = figure(charts.host_share_chart(document), caption, "too few runs to draw")
    host = document.get("host_time")
    if host and host.get("lines"):
        rows = [[esc("%s%%" % significant(100 * e["share"])),
                 '<span class="where">%s:%s</span>' % (esc(display_path(e["path"])), esc(e["line"])),
                 '<code class="src">%s</code>' % esc((e.get("code") or "").strip()), esc(e["cause"])]
                for e in host["lines"]]
        lines = "<h3>Top source lines outside sess.run</h3>" + table(["share of the loop's wall time", "site", "code",
                                                                      "cause"], rows)
        said = host.get("advice")
        if said:
            lines += '<p class="help"><b>help:</b> %s</p>' % esc(said)
        lines += '<p class="note">from %s stack samples between runs</p>' % esc(host["samples"])
    else:
        lines = '<p class="note">no source lines: too few stack samples between runs (a short or busy loop)</p>'
    return '<section id="host"><h2>Host share</h2><div class="plots">%s<div>%s</div></div></section>' % (
        host_chart, lines)


def costs_section(document: Dict[str, Any]) -> str:
    """Where the loop's wall time went (sess.run, summaries, Saver.save, outside sess.run: judge/time_parts.py, the
    shares every output shows), then the busiest fetch signatures."""
    judged = document["time_parts"]
    span = float(judged["span_s"] or 0.0)
    bar = charts.cost_bar(document)
    legend = table(["", "part", "time", "share of the loop's wall time"], [
        ['<span class="swatch %s"></span>' % esc(p["css"]), esc(p["name"]),
         esc(format_seconds(p["seconds"]) if p["seconds"] else "none"),
         esc("-" if p["share"] is None or not p["seconds"] else "%s%%" % significant(100 * p["share"]))]
        for p in judged["parts"]])
    notes = []
    if judged["before_loop_s"]:
        notes.append("before the loop (set-up: building the graph, initializers, a restore): %s, not in the bar" %
                     format_seconds(judged["before_loop_s"]))
    if judged["writer_s"]:
        notes.append("outside sess.run includes the FileWriter calls' %s" % format_seconds(judged["writer_s"]))
    if document.get("saves"):
        notes.append("%d Saver.save calls, %s each on average" % (
            document["saves"], format_seconds(document["save_s"] / document["saves"])))
    cost = document["summary_cost"]
    if cost["runs"]:
        notes.append("%d runs fetched summaries%s" % (cost["runs"], "" if cost["extra_run_s"] is not None else
                                                       " (their extra run time not measured: no like step)"))
    if cost["writer_calls"]:
        notes.append("%d FileWriter calls, %s" % (cost["writer_calls"], format_seconds(cost["writer_s"])))
    signatures = document.get("signatures") or []
    shown = signatures[:_SIGNATURES_SHOWN]
    rows = [['<code>%s</code>' % esc(label), esc(s["count"]), esc(format_seconds(s["run_time"]["total"])),
             esc(format_seconds(s["run_time"]["median"])), esc(format_seconds(s["interval"]["median"])),
             esc(format_seconds(s["interval"]["p95"]))]
            for label, s in zip(shown_labels([s["label"] for s in shown]), shown)]  # none reads as another
    sig_table = ""
    if rows:
        sig_table = "<h3>Fetch signatures by total run time</h3>" + table(
            ["fetches <- feeds", "runs", "total run time", "run time median", "interval median", "interval p95"],
            rows)
        if len(signatures) > _SIGNATURES_SHOWN:
            sig_table += '<p class="note">%d more signatures in the JSON report</p>' % (
                len(signatures) - _SIGNATURES_SHOWN)
    bar_figure = '<figure class="plot wide"><figcaption>Where the loop\'s wall time went (%s): save and summary costs' \
                 '</figcaption>%s</figure>' % (esc(format_seconds(span)), bar or "")
    return '<section id="costs"><h2>Save and summary costs</h2>%s%s%s%s</section>' % (
        bar_figure, legend, "".join('<p class="note">%s</p>' % esc(n) for n in notes), sig_table)


def traces_section(verdict: RunVerdict, chart: str = "") -> str:
    """Traces per function (TF2 ``tf.function``, TFG908): each traced function, the most traced first, under
    `chart` (their traces over their calls, steps.py)."""
    traces = verdict.traced_functions
    if not traces:
        return ""
    rows = []
    for entry in traces:
        where = "%s:%s" % (display_path(entry["path"]), entry["line"]) if entry.get("path") else ""
        changes = [c.get("text", "?") if isinstance(c, dict) else c for c in entry.get("changes") or []]
        rows.append([esc(entry.get("function") or "?"), '<span class="where">%s</span>' % esc(where),
                     esc(entry.get("traced_calls", "-")), esc(entry.get("calls", "-")),
                     esc(format_seconds(entry.get("trace_seconds"))), esc(format_seconds(entry.get("run_seconds"))),
                     esc("; ".join(str(c) for c in changes[:3]))])
    most = max(int(e.get("traced_calls") or 0) for e in traces) or 1
    bars = "".join('<div class="hbar"><span class="label">%s</span><span class="fill" style="width:%s%%"></span>'
                   '<span class="value">%s</span></div>' % (esc(e.get("function") or "?"),
                                                             esc("%.1f" % (100.0 * int(e.get("traced_calls") or 0)
                                                                           / most)),
                                                             esc(e.get("traced_calls", "-"))) for e in traces[:12])
    return ('<section id="traces"><h2>Traces per function</h2><div class="hbars">%s</div>%s%s</section>' % (
        bars, chart, table(["function", "defined at", "traces", "calls", "time tracing", "time running",
                     "what changed between traces"], rows)))


def devices_section(figures: Dict[str, Any]) -> str:
    """Placement and GPU utilisation, as the text report prints them."""
    blocks = device_blocks(figures)
    if not blocks:
        return ""
    return '<section id="devices"><h2>Devices</h2>%s</section>' % "".join(
        '<pre class="block">%s</pre>' % esc(block) for block in blocks)


def sessions_section(verdict: RunVerdict) -> str:
    """Every session of a run of several, one row each (the busiest one's figures are the page's; the others'
    are in the JSON)."""
    if len(verdict.sessions) < 2:
        return ""
    rows = [[esc(s.number), esc(s.created_at or "?"), esc(s.get("runs")),
             esc("%s -> %s" % (s.get("nodes_start"), s.get("nodes_end"))),
             esc(", ".join("%s %s" % (d.code, d.severity) for d in verdict.of_session(s.number)) or "none")]
            for s in verdict.sessions]
    return '<section id="sessions"><h2>Sessions</h2>%s</section>' % table(
        ["session", "created at", "runs", "graph ops", "diagnostics"], rows)
