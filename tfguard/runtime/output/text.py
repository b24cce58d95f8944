"""A run verdict as text: the diagnostics of the whole program and across sessions first, then each session shown
(its table and its own diagnostics), then the tf.functions."""

from __future__ import annotations

from typing import List, Optional

from tfguard.runtime.judge.across_sessions import folded_sessions, session_record
from tfguard.runtime.output.fit import resolve_width, wrap_lines
from tfguard.runtime.output.function_report import render as render_functions
from tfguard.runtime.output.session_report import SessionReport
from tfguard.runtime.output.step_report import render_steps
from tfguard.runtime.verdict import ACROSS_SESSIONS, PROGRAM, Diagnostic, RunVerdict

#: More sessions than this on one graph are reported as one table (the busiest) and a line for the rest.
SESSIONS_SHOWN_PER_GRAPH = 2
#: How a diagnostic of each scope but a session's is introduced.
_SCOPE_WORDS = {PROGRAM: "program", ACROSS_SESSIONS: "across sessions"}


def render_verdict(verdict: RunVerdict, width: Optional[int] = None) -> str:
    """The text of a run verdict, fit to `width` columns (None: 80 or `COLUMNS`; 0: wide): its sessions, then
    its tf.functions (TFG908) when any traced."""
    if not verdict.traced_functions:
        return _render_sessions(verdict, width)
    traced = render_functions(verdict, width)
    if not verdict.sessions and not verdict.facts.get("unguarded_sessions"):
        program = _steps(verdict, width) + _scoped_lines(verdict, [PROGRAM], resolve_width(width))
        return "\n\n".join(program + [traced])  # a TF2 program with no session: its functions are the report
    return _render_sessions(verdict, width) + "\n\n" + traced


def _steps(verdict: RunVerdict, width: Optional[int]) -> List[str]:
    """The line of a TF2 training loop's steps (the `steps` fact), [] when the run had none."""
    steps = verdict.facts.get("steps")
    return [render_steps(steps, width)] if steps else []


def _scoped_lines(verdict: RunVerdict, scopes: List[str], columns: int) -> List[str]:
    parts = []
    for diagnostic in (d for d in verdict.diagnostics if d.scope in scopes):
        parts.append(_line(diagnostic, columns))
    return parts


def _line(diagnostic: Diagnostic, columns: int) -> str:
    line = "%s %s (%s): %s" % (diagnostic.code, diagnostic.severity, _SCOPE_WORDS[diagnostic.scope],
                               diagnostic.headline)
    if diagnostic.help:
        line += "\nhelp: " + diagnostic.help
    return "\n".join(wrap_lines(line, columns, subsequent="    ")) if columns else line


def _render_sessions(verdict: RunVerdict, width: Optional[int] = None) -> str:
    command = verdict.command
    unguarded = verdict.facts.get("unguarded_sessions") or []
    columns = resolve_width(width)
    if not verdict.sessions and not unguarded:
        parts = _steps(verdict, width)
        if not parts and verdict.facts.get("tensorflow_version"):  # TensorFlow ran: no session, no tf.function
            parts = ["tfguard: %s created no TensorFlow session and traced no tf.function: the program ran eagerly"
                     % (command or "the program")]
        elif not parts:
            parts = ["tfguard: %s created no TensorFlow session: nothing to report" % (command or "the program")]
        return "\n\n".join(parts + _scoped_lines(verdict, [PROGRAM], columns))
    parts = []
    count = len(verdict.sessions)
    if unguarded:
        parts.append("tfguard: %d session%s not reported: tfguard failed internally on %s (see its line above)"
                     % (len(unguarded), "" if len(unguarded) == 1 else "s", "it" if len(unguarded) == 1 else "them"))
    if command:
        parts.append("tfguard run %s: %d session%s watched (TensorFlow %s)" % (
            command, count, "" if count == 1 else "s", verdict.facts.get("tensorflow_version") or "?"))
    parts += _steps(verdict, width) + _scoped_lines(verdict, [PROGRAM, ACROSS_SESSIONS], columns)
    if not verdict.sessions:
        return "\n\n".join(parts)
    records = [session_record(s) for s in verdict.sessions]
    folded = folded_sessions(records, SESSIONS_SHOWN_PER_GRAPH) if all(r.number for r in records) else {}
    left_out = {r.number for rest in folded.values() for r in rest}
    for session in verdict.sessions:
        if session.number in left_out:
            continue
        report = SessionReport(session, verdict.of_session(session.number))
        table = report.table(width, verdict.facts.get("freeze_after"))
        if count > 1 or session.created_at:
            table = table.replace("tfguard runtime report", "tfguard runtime report: session created at %s" % (
                session.created_at,), 1)
        rest = folded.get(session.number)
        if rest:
            places = sorted({r.created_at for r in rest})
            line = "%d more session%s on the same graph (created at %s), %d runs in all: tables left out " \
                "(--json has them)" % (len(rest), "" if len(rest) == 1 else "s", ", ".join(places[:3]) +
                                       (", ..." if len(places) > 3 else ""), sum(r.runs for r in rest))
            table += "\n\n" + "\n".join(wrap_lines(line, columns, subsequent="    "))
        parts.append(table)
    return "\n\n".join(parts)
