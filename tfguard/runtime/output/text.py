"""The run document as text: the report tables of every session shown, the diagnostics across sessions first."""

from __future__ import annotations

from typing import Any, Dict, Optional

from tfguard.runtime.judge.across_sessions import folded_sessions, session_record
from tfguard.runtime.output.fit import resolve_width, wrap_lines

#: More sessions than this on one graph are reported as one table (the busiest) and a line for the rest.
SESSIONS_SHOWN_PER_GRAPH = 2


def render_document(document: Dict[str, Any], width: Optional[int] = None) -> str:
    """Report tables of a run document (or of a bare `report.to_dict()`), fit to `width` columns (None: 80 or
    `COLUMNS`; 0: wide): its sessions, then its tf.functions (TFG908) when any traced."""
    from tfguard.runtime.output.program_report import render as render_program

    program = render_program(document.get("program") or {}, width)  # TFG910-TFG912
    functions = document.get("functions") or {}
    if not functions.get("functions"):
        if program and "mode" not in document and not document.get("unguarded_sessions"):
            return program
        return "\n\n".join(part for part in (_render_sessions(document, width), program) if part)
    from tfguard.runtime.output.function_report import render

    traced = "\n\n".join(part for part in (render(functions, width), program) if part)
    if "mode" not in document and not document.get("unguarded_sessions"):
        return traced  # a TF2 program with no session: its functions are the report
    return _render_sessions(document, width) + "\n\n" + traced


def _render_sessions(document: Dict[str, Any], width: Optional[int] = None) -> str:
    from tfguard.runtime.output.report import Report

    command = " ".join(document.get("command") or [])
    unguarded = document.get("unguarded_sessions") or []
    if "mode" not in document and not unguarded:
        return "tfguard: %s created no TensorFlow session: nothing to report" % (command or "the program")
    parts = []
    count = document.get("session_count", 1)
    if unguarded:
        parts.append("tfguard: %d session%s not reported: tfguard failed internally on %s (see its line above)"
                     % (len(unguarded), "" if len(unguarded) == 1 else "s", "it" if len(unguarded) == 1 else "them"))
    if command:
        parts.append("tfguard run %s: %d session%s watched (TensorFlow %s)" % (
            command, count, "" if count == 1 else "s", document.get("tensorflow_version") or "?"))
    if "mode" not in document:
        return "\n\n".join(parts)

    columns = resolve_width(width)
    for diagnostic in document.get("across_sessions", []):
        line = "%s %s (across sessions): %s" % (diagnostic["code"], diagnostic["severity"], diagnostic["message"])
        parts.append("\n".join(wrap_lines(line, columns, subsequent="    ")) if columns else line)
    sessions = [(document, document)] + [(other, other["report"]) for other in document.get("other_sessions", [])]
    records = [session_record(data, facts) for facts, data in sessions]
    folded = folded_sessions(records, SESSIONS_SHOWN_PER_GRAPH) if all(r["number"] for r in records) else {}
    left_out = {r["number"] for rest in folded.values() for r in rest}
    for (facts, data), record in zip(sessions, records):
        if record["number"] in left_out:
            continue
        created_at = facts.get("created_at")
        table = Report.from_dict(data).table(width)
        if count > 1 or created_at:
            table = table.replace("tfguard runtime report", "tfguard runtime report: session created at %s" % (
                created_at,), 1)
        rest = folded.get(record["number"])
        if rest:
            places = sorted({r["created_at"] for r in rest})
            line = "%d more session%s on the same graph (created at %s), %d runs in all: tables left out " \
                "(--json has them)" % (len(rest), "" if len(rest) == 1 else "s", ", ".join(places[:3]) +
                                       (", ..." if len(places) > 3 else ""), sum(r["runs"] for r in rest))
            table += "\n\n" + "\n".join(wrap_lines(line, columns, subsequent="    "))
        parts.append(table)
    return "\n\n".join(parts)
