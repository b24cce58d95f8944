"""Judging: a session's evidence, the run's sessions side by side and its tf.functions, into the run verdict.

`judge_session(recording, placement)` judges one guard: the slowdown verdict first (judge/slowdown.py), then every
judge on the session's evidence (record/evidence.py). `judge_run` makes the run verdict (verdict.py) of
``tfguard run``: its sessions as equals, each with its own diagnostics, the growth across sessions of one graph,
and the tf.functions (TFG908); `judge_steps` a TF2 training loop's steps (TFG902-TFG905's TF2 cases, TFG909).
A snapshot while the program runs and the final report are the same judgement, on the runs so far and on all of
them.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from tfguard.runtime.judge import judge_evidence
from tfguard.runtime.judge.across_sessions import session_record
from tfguard.runtime.judge.slowdown import slowdown_of
from tfguard.runtime.judge.summary_cost import summary_cost
from tfguard.runtime.judge.time_parts import time_parts
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.record.functions import FunctionRecord
from tfguard.runtime.record.host_time import advice as host_advice
from tfguard.runtime.record.keras_calls import ProgramRecord
from tfguard.runtime.record.recording import Recording
from tfguard.runtime.record.series import trend_series
from tfguard.runtime.record.stats import trend_edges
from tfguard.runtime.record.steps import StepRecord
from tfguard.runtime.verdict import (
    ACROSS_SESSIONS,
    FUNCTION,
    PROGRAM,
    SESSION,
    Diagnostic,
    FunctionsVerdict,
    RunVerdict,
    SessionVerdict,
)

#: The figures that come after the slowdown verdict's, in the document's order.
_AFTER_SLOWDOWN = ("all_runs_series", "host_gap_series", "signatures", "growth_sites", "frozen_violations",
                   "options")


def judge_session(recording: Recording, placement: Optional[Dict[str, Any]] = None,
                  number: Optional[int] = None) -> Tuple[Dict[str, Any], List[Diagnostic]]:
    """(the slowdown verdict, every judge's findings on the session's evidence, in code order)."""
    slowdown = slowdown_of(recording)
    return slowdown, judge_evidence(Evidence(SESSION, number, recording, slowdown, placement))


def session_figures(recording: Recording, slowdown: Dict[str, Any]) -> Dict[str, Any]:
    """A session's figures as the document keeps them: recorded fields, the slowdown verdict, the series, and
    what the outputs show that is judged here once (`derived_figures`)."""
    recorded = recording.to_dict()
    data: Dict[str, Any] = {k: v for k, v in recorded.items() if k not in _AFTER_SLOWDOWN}
    data.update(slowdown)
    data.update((k, recorded[k]) for k in _AFTER_SLOWDOWN)
    data.update(derived_figures(recording))
    return data


def derived_figures(figures: Any) -> Dict[str, Any]:
    """The figures judged from a session's others (its Recording, or its figures as a document keeps them) that
    the outputs show: what summary runs cost (summary_cost.py), where the loop's wall time went (time_parts.py) and
    the host-time advice (record/host_time.py).
    No output computes them again."""
    host = figures.get("host_time") if isinstance(figures, dict) else figures.host_time
    cost = summary_cost(figures)
    derived: Dict[str, Any] = {"summary_cost": cost, "time_parts": time_parts(figures, cost)}
    if host:
        derived["host_time"] = dict(host, advice=host_advice(host))
    return derived


def completed(verdict: RunVerdict) -> RunVerdict:
    """A verdict read from an earlier document, with the derived figures its sessions lack and the slowdown's
    edges its trend was judged between (``slowdown_edges``, written since document version 4's first release)
    (convert on load)."""
    for session in verdict.sessions:
        if "signatures" not in session.figures:
            continue
        if "time_parts" not in session.figures:
            session.figures.update(derived_figures(session.figures))
        if "slowdown_edges" not in session.figures:
            edges = trend_edges(trend_series(session.figures).values)
            session.figures["slowdown_edges"] = edges._asdict() if edges is not None else None
    return verdict


def judged_session(recording: Recording, placement: Optional[Dict[str, Any]] = None
                   ) -> Tuple[Dict[str, Any], List[Diagnostic]]:
    """(a session's figures, its diagnostics): `judge_session` and `session_figures` in one."""
    slowdown, findings = judge_session(recording, placement)
    return session_figures(recording, slowdown), findings


def diagnose(figures: Dict[str, Any], options: Optional[Dict[str, Any]] = None,
             placement: Optional[Dict[str, Any]] = None) -> List[Diagnostic]:
    """The findings on a session's figures as a document keeps them (its slowdown verdict as it says it): a
    saved ``tfguard run --json`` document judged again, or a test's synthetic figures."""
    recording = Recording.from_dict(dict(figures, options=options if options is not None else figures["options"]))
    return judge_evidence(Evidence(SESSION, None, recording, figures, placement))


def judge_functions(records: Sequence[FunctionRecord], available: Optional[bool], failed: bool = False
                    ) -> Tuple[FunctionsVerdict, List[Diagnostic]]:
    """The tf.functions that traced (the most traced first) and their diagnostics (TFG908)."""
    traced = [record for record in records if record.traces]
    functions = sorted((record.to_dict() for record in traced), key=lambda f: -f["traced_calls"])
    return (FunctionsVerdict(bool(available), failed, functions),
            judge_evidence(Evidence(FUNCTION, functions=traced)))


def judge_steps(record: StepRecord) -> Tuple[Dict[str, Any], List[Diagnostic]]:
    """(a TF2 training loop's figures, every judge's findings on its steps, PROGRAM scope)."""
    return record.to_dict(), judge_evidence(Evidence(PROGRAM, steps=record))
def judge_program(record: ProgramRecord) -> Tuple[Dict[str, Any], List[Diagnostic]]:
    """A TF2 program's Keras calls, callbacks, host syncs and steps as figures, and their diagnostics
    (TFG910-TFG912)."""
    return record.to_dict(), judge_evidence(Evidence(PROGRAM, program=record))


def judge_run(facts: Dict[str, Any], sessions: Sequence[Tuple[SessionVerdict, List[Diagnostic]]],
              functions: Optional[Tuple[FunctionsVerdict, List[Diagnostic]]] = None,
              program: Optional[Tuple[Dict[str, Any], List[Diagnostic]]] = None) -> RunVerdict:
    """The run verdict: each session with its own diagnostics (renumbered to the session), the growth across
    the sessions of one graph, then the tf.functions' diagnostics, then the program's (TFG910-TFG912)."""
    verdict = RunVerdict(dict(facts))
    for session, found in sessions:
        verdict.sessions.append(session)
        verdict.diagnostics += [d.scoped(SESSION, session.number) for d in found]
    if verdict.sessions:
        records = [session_record(s) for s in verdict.sessions]
        verdict.diagnostics += judge_evidence(Evidence(ACROSS_SESSIONS, sessions=records))
    if functions is not None:
        verdict.functions = functions[0]
        verdict.diagnostics += functions[1]
    if program is not None:
        verdict.program = program[0]
        verdict.diagnostics += program[1]
    return verdict
