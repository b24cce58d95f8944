"""The sections under the diagnostics: the run's facts, the charts with their tables (growth sites, host time by
line, where the wall time went, fetch signatures), traces per function (TF2), devices and the other sessions."""

from __future__ import annotations

from html import escape
from typing import Any, Dict, List, Optional, Sequence

from tfguard.runtime.document import after_runs, display_path, format_seconds, significant
from tfguard.runtime.output.html import charts

_SIGNATURES_SHOWN = 8
_SITES_SHOWN = 10


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], css: str = "") -> str:
    """An HTML table of already escaped cells; on a narrow screen each row becomes a block of labelled cells."""
    head = "".join("<th>%s</th>" % escape(h) for h in headers)
    labels = [' data-label="%s"' % escape(h) if h else "" for h in headers]
    body = "".join("<tr>%s</tr>" % "".join("<td%s>%s</td>" % (label, cell) for label, cell in zip(labels, row))
                   for row in rows)
    return '<div class="scroll"><table class="%s"><thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>' % (
        css, head, body)


def _figure(svg: Optional[str], caption: str, empty: str) -> str:
    if svg is None:
        return '<figure class="plot empty"><figcaption>%s</figcaption><p class="note">%s</p></figure>' % (
            escape(caption), escape(empty))
    return ('<figure class="plot"><figcaption>%s</figcaption>%s<output class="readout" aria-live="polite">'
            '</output></figure>' % (escape(caption), svg))


def facts_rows(document: Dict[str, Any]) -> List[List[str]]:
    """[(fact, value)] of the run: command, TensorFlow, sessions, runs watched, exit status, then the evidence
    totals of the text report (runtime/report.py's evidence_rows)."""
    rows = []
    if document.get("command"):
        rows.append(["command", "tfguard run " + " ".join(document["command"])])
    rows.append(["TensorFlow", document.get("tensorflow_version") or "?"])
    if "exit_status" in document:
        rows.append(["exit status", str(document["exit_status"])
                     + (" (stopped by --max-steps)" if document.get("stopped_by_max_steps") else "")])
    if "session_count" in document:
        rows.append(["sessions watched", str(document["session_count"])])
    if document.get("created_at"):
        rows.append(["session created at", document["created_at"]])
    unguarded = document.get("unguarded_sessions") or []
    if unguarded:
        rows.append(["sessions not reported", "%d (tfguard failed internally on them)" % len(unguarded)])
    if "mode" in document:
        from tfguard.runtime.output.report import evidence_rows

        rows += [[str(name), str(value)] for name, value in evidence_rows(document)]
    return rows


def facts_section(document: Dict[str, Any]) -> str:
    """The run's facts as a two-column table."""
    rows = [["<th>%s</th>" % escape(name), escape(value)] for name, value in facts_rows(document)]
    body = "".join("<tr>%s<td>%s</td></tr>" % (name, value) for name, value in rows)
    return '<section id="facts"><h2>The run</h2><table class="facts"><tbody>%s</tbody></table></section>' % body


def _slowdown_text(document: Dict[str, Any]) -> str:
    from tfguard.runtime.output.report import evidence_rows

    for name, value in evidence_rows(document):
        if name.startswith("slowdown"):
            return "%s %s" % (name, value)
    return ""


def step_section(document: Dict[str, Any]) -> str:
    """Step time (with the verdict's trend) and graph size, then the growth sites."""
    label = document.get("dominant_signature") or "(all runs)"
    slowdown = _slowdown_text(document)
    step = _figure(charts.step_time_chart(document, slowdown),
                   "Step time of %s%s" % ("all runs" if label == "(all runs)" else "`%s`" % label,
                                          ": " + slowdown if slowdown else ""),
                   "too few runs to draw")
    size = _figure(charts.graph_size_chart(document), "Graph size (ops) over the runs: %s" % (
        "%s -> %s (+%s)" % (document["nodes_start"], document["nodes_end"], document["nodes_added"])
        if document["nodes_added"] else "%s, no growth" % document["nodes_end"]), "too few runs to draw")
    sites = [s for s in document.get("growth_sites") or [] if s.get("kind") != "setup"]
    rows = [['<span class="where">%s:%d</span>' % (escape(display_path(s["path"])), s["line"]),
             '<code class="src">%s</code>' % escape((s.get("code") or "").strip()), escape(s.get("api") or ""),
             escape(str(s["ops_added"])), escape(str(s.get("events_in_loop", s.get("growth_events", 0)))),
             escape(after_runs(s["first_step"], s["last_step"]) if s.get("first_step") is not None else ""),
             escape(s["kind"]), escape(s.get("rule") or "")] for s in sites[:_SITES_SHOWN]]
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
    from tfguard.runtime.record.host_time import advice

    share = document.get("host_fraction")
    caption = "Outside sess.run (host): %s of the loop's wall time" % (
        "-" if share is None else significant(100 * share) + "%")
    figure = _figure(charts.host_share_chart(document), caption, "too few runs to draw")
    host = document.get("host_time")
    if host and host.get("lines"):
        rows = [["%s%%" % significant(100 * e["share"]),
                 '<span class="where">%s:%d</span>' % (escape(display_path(e["path"])), e["line"]),
                 '<code class="src">%s</code>' % escape((e.get("code") or "").strip()), escape(e["cause"])]
                for e in host["lines"]]
        lines = "<h3>Top source lines outside sess.run</h3>" + table(["share of wall time", "site", "code",
                                                                      "cause"], rows)
        said = advice(host)
        if said:
            lines += '<p class="help"><b>help:</b> %s</p>' % escape(said)
        lines += '<p class="note">from %d stack samples between runs</p>' % host["samples"]
    else:
        lines = '<p class="note">no source lines: too few stack samples between runs (a short or busy loop)</p>'
    return '<section id="host"><h2>Host share</h2><div class="plots">%s<div>%s</div></div></section>' % (
        figure, lines)


def costs_section(document: Dict[str, Any]) -> str:
    """Where the wall time went (sess.run, summaries, Saver.save, outside), then the busiest fetch signatures."""
    wall = float(document.get("wall_s") or 0.0)
    parts = charts.time_parts(document)
    bar = charts.cost_bar(document)
    legend = table(["", "part", "time", "share of wall time"], [
        ['<span class="swatch %s"></span>' % css, escape(name), escape(format_seconds(value) if value else "none"),
         "%s%%" % significant(100 * value / wall) if wall and value else "-"] for name, value, css in parts])
    notes = []
    if document.get("saves"):
        notes.append("%d Saver.save calls, %s each on average" % (
            document["saves"], format_seconds(document["save_s"] / document["saves"])))
    cost = charts.summary_cost(document)
    if cost["runs"]:
        notes.append("%d runs fetched summaries%s" % (cost["runs"], "" if cost["extra_run_s"] is not None else
                                                       " (their extra run time not measured: no like step)"))
    if cost["writer_calls"]:
        notes.append("%d FileWriter calls, %s" % (cost["writer_calls"], format_seconds(cost["writer_s"])))
    signatures = document.get("signatures") or []
    rows = [['<code>%s</code>' % escape(s["label"]), escape(str(s["count"])),
             escape(format_seconds(s["run_time"]["total"])),
             escape(format_seconds(s["run_time"]["median"])), escape(format_seconds(s["interval"]["median"])),
             escape(format_seconds(s["interval"]["p95"]))] for s in signatures[:_SIGNATURES_SHOWN]]
    sig_table = ""
    if rows:
        sig_table = "<h3>Fetch signatures by total run time</h3>" + table(
            ["fetches <- feeds", "runs", "total run time", "run time median", "interval median", "interval p95"],
            rows)
        if len(signatures) > _SIGNATURES_SHOWN:
            sig_table += '<p class="note">%d more signatures in the JSON report</p>' % (
                len(signatures) - _SIGNATURES_SHOWN)
    figure = '<figure class="plot wide"><figcaption>Where the wall time went (%s): save and summary costs' \
             '</figcaption>%s</figure>' % (escape(format_seconds(wall)), bar or "")
    return '<section id="costs"><h2>Save and summary costs</h2>%s%s%s%s</section>' % (
        figure, legend, "".join('<p class="note">%s</p>' % escape(n) for n in notes), sig_table)


def traces_section(document: Dict[str, Any]) -> str:
    """Traces per function (TF2 ``tf.function``, TFG908), when the document has them (see the package doc)."""
    traces = document.get("function_traces")
    if not traces:
        return ""
    rows = []
    for entry in traces:
        where = "%s:%s" % (display_path(entry["path"]), entry["line"]) if entry.get("path") else ""
        changes = entry.get("changes") or []
        rows.append([escape(str(entry.get("function") or "?")), '<span class="where">%s</span>' % escape(where),
                     escape(str(entry.get("traces", "-"))),
                     escape(str(entry.get("calls", "-"))), escape(format_seconds(entry.get("trace_s"))),
                     escape(format_seconds(entry.get("run_s"))), escape("; ".join(str(c) for c in changes[:3]))])
    most = max(int(e.get("traces") or 0) for e in traces) or 1
    bars = "".join('<div class="hbar"><span class="label">%s</span><span class="fill" style="width:%.1f%%"></span>'
                   '<span class="value">%s</span></div>' % (escape(e.get("function") or "?"),
                                                             100.0 * int(e.get("traces") or 0) / most,
                                                             escape(str(e.get("traces", "-")))) for e in traces[:12])
    return ('<section id="traces"><h2>Traces per function</h2><div class="hbars">%s</div>%s</section>' % (
        bars, table(["function", "defined at", "traces", "calls", "time tracing", "time running",
                     "what changed between traces"], rows)))


def devices_section(document: Dict[str, Any]) -> str:
    """Placement and GPU utilisation, as the text report prints them."""
    from tfguard.runtime.devices.devicewatch import device_blocks

    blocks = device_blocks(document)
    if not blocks:
        return ""
    return '<section id="devices"><h2>Devices</h2>%s</section>' % "".join(
        '<pre class="block">%s</pre>' % escape(block) for block in blocks)


def sessions_section(document: Dict[str, Any]) -> str:
    """The other sessions the run watched, one row each (their full reports are in the JSON)."""
    others = document.get("other_sessions") or []
    if not others:
        return ""
    rows = [[escape(o.get("created_at") or "?"), escape(str(o["report"]["runs"])),
             "%d -> %d" % (o["report"]["nodes_start"], o["report"]["nodes_end"]),
             escape(", ".join("%s %s" % (d["code"], d["severity"]) for d in o["report"]["diagnostics"]) or "none")]
            for o in others]
    return '<section id="sessions"><h2>Other sessions</h2>%s</section>' % table(
        ["created at", "runs", "graph ops", "diagnostics"], rows)
