"""What a judge reads: one typed input, the same for every judge (judge/), whatever it judges.

`Evidence` gathers what was recorded about one thing judged in one scope (verdict.SCOPES): a session (its
`Recording`, the slowdown verdict judged on it first, its traced step's placement data), the sessions of a run
(across sessions: `sessions`), the program's `tf.function`s (`functions`), a TF2 training loop's steps (`steps`,
PROGRAM scope: record/steps.py), or a TF2 program's Keras calls, callbacks and host syncs (`program`, PROGRAM
scope: record/keras_calls.py). Every judge is called with it as
``judge(evidence)`` and returns its findings, or none when the evidence it reads is not there (a placement judge on
a session with no traced step, a retracing judge on a session). A new kind of record is a new field here, with an
empty default, filled where the run stage gathers the evidence; no judge signature changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from tfguard.runtime.record.functions import FunctionRecord
from tfguard.runtime.record.keras_calls import ProgramRecord
from tfguard.runtime.record.recording import Recording
from tfguard.runtime.record.steps import StepRecord
from tfguard.runtime.verdict import SESSION


@dataclass
class SessionRecord:
    """One session as the judgement across sessions reads it (judge/across_sessions.py)."""

    number: int
    created_at: Optional[str]
    graph: int
    ran_before: bool
    runs: int
    nodes_start: int
    nodes_end: int
    #: Its growth sites as the document keeps them (dicts with path, line, kind, ops_added, rule, ...).
    growth_sites: List[Dict[str, Any]] = field(default_factory=list)


@dataclass
class Evidence:
    """The input of every judge (see the module docstring)."""

    #: What is judged: verdict.SESSION, ACROSS_SESSIONS, FUNCTION or PROGRAM.
    scope: str = SESSION
    #: The session's number (SESSION scope; 0 for a guard outside `tfguard run`).
    session: Optional[int] = None
    #: One session's typed recording (SESSION scope).
    recording: Optional[Recording] = None
    #: The slowdown verdict on `recording` (judge/slowdown.py), judged before the diagnostics: TFG902 says it.
    slowdown: Dict[str, Any] = field(default_factory=dict)
    #: One traced step's placement data (devices/placement.py), None when no step was traced.
    placement: Optional[Dict[str, Any]] = None
    #: The sessions of a run (ACROSS_SESSIONS scope).
    sessions: List[SessionRecord] = field(default_factory=list)
    #: The traced tf.functions' records (FUNCTION scope).
    functions: List[FunctionRecord] = field(default_factory=list)
    #: A TF2 training loop's steps, input waits, checkpoints and summaries (PROGRAM scope).
    steps: Optional[StepRecord] = None
    #: A TF2 program's Keras calls, callbacks, host syncs and steps (PROGRAM scope; record/keras_calls.py).
    program: Optional[ProgramRecord] = None
