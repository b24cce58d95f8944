"""The run verdict: what tfguard concluded about one run, typed, judged once and read by every output.

A `RunVerdict` holds the run's facts (command, exit status, TensorFlow version, ...), every guarded session as an
equal (`SessionVerdict`: its recorded figures and slowdown verdict), the program's `tf.function`s
(`FunctionsVerdict`) and ONE flat list of `Diagnostic`s. A diagnostic keeps its parts apart: its scope (one
session, across the sessions of a graph, the tf.functions, the whole program), code, severity, headline, help, the
source sites it names (path, line, role) and its evidence (figures by name). Text, JSON, HTML, the A/B comparison,
the cluster view, the language server, the pytest budgets and ``--fail-on`` all read this one object; it becomes
JSON only when written (`to_document`), and `from_document` reads a saved document back, converting the earlier
versions (2 and 3: the busiest session at the top level, the others under ``other_sessions[].report``).

Pure data here (the base of the runtime): nothing is judged, nothing imports a stage.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Optional

#: The version of the JSON document (``tfguard run --json``, ``SessionReport.to_dict()``); its JSON Schema is
#: output/run-report.schema.json. 3: each diagnostic has ``path``, ``line`` and ``evidence``. 4: sessions side by
#: side under ``sessions``, one flat ``diagnostics`` list with each diagnostic's scope, headline, help and sites.
DOCUMENT_VERSION = 4
#: Earlier versions that `RunVerdict.from_document` converts on load.
READS = (2, 3)

#: A diagnostic's scope: what it was judged on.
SESSION = "session"
ACROSS_SESSIONS = "across-sessions"
FUNCTION = "function"
PROGRAM = "program"
SCOPES = (SESSION, ACROSS_SESSIONS, FUNCTION, PROGRAM)
#: Severities that fail a run under ``--fail-on`` (information never does).
FAILING = ("error", "warning")

#: A site's role: the line a diagnostic blames, or one more line it names (a growth site, a fallback op).
BLAMED = "blamed"
NAMED = "named"

#: The session facts a run keeps beside each session's figures.
SESSION_FACTS = ("session_number", "created_at", "graph_number", "graph_ran_before")


@dataclass(frozen=True)
class Site:
    """A source line a diagnostic names, and why (``role``: BLAMED or NAMED)."""

    path: str
    line: int
    role: str = BLAMED


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic of a run (see the module docstring). ``session`` is the session's number for a SESSION
    diagnostic; ``sessions`` the sessions an ACROSS_SESSIONS one is about."""

    code: str
    severity: str
    headline: str
    help: str = ""
    sites: List[Site] = field(default_factory=list)
    evidence: Dict[str, Any] = field(default_factory=dict)
    scope: str = SESSION
    session: Optional[int] = None

    @property
    def blamed(self) -> Optional[Site]:
        """The line it blames (the first BLAMED site), None when it blames none."""
        return next((s for s in self.sites if s.role == BLAMED), None)

    @property
    def path(self) -> Optional[str]:
        """The blamed line's path (None when it blames none)."""
        return self.blamed.path if self.blamed else None

    @property
    def line(self) -> Optional[int]:
        """The blamed line's number (None when it blames none)."""
        return self.blamed.line if self.blamed else None

    @property
    def one_line(self) -> str:
        """Headline and help in one line, ``headline — help``, for outputs that give a diagnostic one line."""
        return self.headline + (" \u2014 " + self.help if self.help else "")

    @property
    def fails(self) -> bool:
        """Whether it can fail a run (an error or a warning, not information)."""
        return self.severity in FAILING

    def scoped(self, scope: str, session: Optional[int] = None) -> "Diagnostic":
        """The same diagnostic, judged in `scope` (and `session`)."""
        return replace(self, scope=scope, session=session)

    def with_headline(self, headline: str) -> "Diagnostic":
        """The same diagnostic with another headline."""
        return replace(self, headline=headline)

    def to_dict(self) -> Dict[str, Any]:
        """The diagnostic as the JSON document writes it."""
        return {"scope": self.scope, "session": self.session, "code": self.code, "severity": self.severity,
                "headline": self.headline, "help": self.help,
                "sites": [{"path": s.path, "line": s.line, "role": s.role} for s in self.sites],
                "evidence": _plain(self.evidence)}

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Diagnostic":
        """A diagnostic from `to_dict()` output, or from a version 2/3 document's diagnostic (``message``,
        ``path``, ``line``; the scope is the caller's to set)."""
        if "headline" in data:
            sites = [Site(s["path"], s["line"], s.get("role", BLAMED)) for s in data.get("sites") or []]
            return cls(data["code"], data["severity"], data["headline"], data.get("help") or "", sites,
                       dict(data.get("evidence") or {}), data.get("scope") or SESSION, data.get("session"))
        evidence = dict(data.get("evidence") or {})
        for extra in ("graph", "sites"):  # version 3's across-sessions fields
            if extra in data:
                evidence[extra] = data[extra]
        sites = [Site(data["path"], data["line"])] if data.get("path") and data.get("line") is not None else []
        return cls(data["code"], data["severity"], data["message"], "", sites, evidence)


@dataclass
class SessionVerdict:
    """One guarded session: its facts (number, where it was created, its graph) and its figures (the recording,
    the slowdown verdict, what the devices saw) as the document keeps them. Its diagnostics are the run's."""

    number: int = 0
    created_at: Optional[str] = None
    graph_number: int = 0
    graph_ran_before: bool = False
    figures: Dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Any:
        return self.figures[name]

    def get(self, name: str, default: Any = None) -> Any:
        """A figure by name, `default` when the session has none."""
        return self.figures.get(name, default)

    def to_dict(self) -> Dict[str, Any]:
        """The session as the document writes it: its facts, then its figures."""
        data: Dict[str, Any] = {"session_number": self.number, "created_at": self.created_at,
                                "graph_number": self.graph_number, "graph_ran_before": self.graph_ran_before}
        data.update(_plain(self.figures))
        return data

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "SessionVerdict":
        """A session from `to_dict()` output (or a version 2/3 session's report and facts merged)."""
        figures = {k: v for k, v in data.items() if k not in SESSION_FACTS and k != "diagnostics"}
        return cls(data.get("session_number") or 0, data.get("created_at"), data.get("graph_number") or 0,
                   bool(data.get("graph_ran_before")), figures)


@dataclass
class FunctionsVerdict:
    """The program's tf.functions: whether they could be followed (TF 2.13+), and each traced one's facts."""

    available: bool = False
    failed: bool = False
    functions: List[Dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> Dict[str, Any]:
        """As the document writes it."""
        return {"available": self.available, "failed": self.failed, "functions": _plain(self.functions)}


@dataclass
class RunVerdict:
    """One run judged (see the module docstring). ``facts``: command, tensorflow_version, exit_status,
    stopped_by_max_steps, freeze_after, unguarded_sessions (whichever the run has)."""

    facts: Dict[str, Any] = field(default_factory=dict)
    sessions: List[SessionVerdict] = field(default_factory=list)
    functions: Optional[FunctionsVerdict] = None
    diagnostics: List[Diagnostic] = field(default_factory=list)
    #: A TF2 program's Keras calls, callbacks, host syncs and steps as recorded (record/keras_calls.py's
    #: `ProgramRecord.to_dict()`); None when they were not followed (TensorFlow 1.15, not `tfguard run`).
    program: Optional[Dict[str, Any]] = None

    # -- reading ---------------------------------------------------------------------------------------
    def of_session(self, number: int) -> List[Diagnostic]:
        """The SESSION diagnostics of session `number`."""
        return [d for d in self.diagnostics if d.scope == SESSION and d.session == number]

    def of_scope(self, scope: str) -> List[Diagnostic]:
        """The diagnostics judged in `scope`."""
        return [d for d in self.diagnostics if d.scope == scope]

    def fired_codes(self) -> set:
        """Codes of the error and warning diagnostics (information, such as one-time growth, never fails a run)."""
        return {d.code for d in self.diagnostics if d.fails}

    @property
    def busiest(self) -> Optional[SessionVerdict]:
        """The session with the most runs (the first of equals), None without sessions."""
        return max(self.sessions, key=lambda s: s.get("runs", 0), default=None)

    @property
    def traced_functions(self) -> List[Dict[str, Any]]:
        """The traced tf.functions' facts ([] when none were followed)."""
        return self.functions.functions if self.functions is not None else []

    @property
    def command(self) -> str:
        """The program's command line as one string ("" when not run by ``tfguard run``)."""
        return " ".join(self.facts.get("command") or [])

    # -- the JSON document -----------------------------------------------------------------------------
    def to_document(self) -> Dict[str, Any]:
        """The JSON document (version DOCUMENT_VERSION): facts, sessions, functions, diagnostics."""
        document: Dict[str, Any] = {"version": DOCUMENT_VERSION}
        document.update(_plain(self.facts))
        document["session_count"] = len(self.sessions)
        document["sessions"] = [s.to_dict() for s in self.sessions]
        if self.functions is not None:
            document["functions"] = self.functions.to_dict()
        if self.program is not None:
            document["program"] = _plain(self.program)
        document["diagnostics"] = [d.to_dict() for d in self.diagnostics]
        return document

    @classmethod
    def from_document(cls, document: Dict[str, Any]) -> "RunVerdict":
        """The verdict a document says: version 4 as written, a bare session's ``SessionReport.to_dict()``, or an
        earlier version converted (ValueError for another version)."""
        version = document.get("version") if isinstance(document, dict) else None
        if version == DOCUMENT_VERSION and "sessions" in document:
            facts = {k: v for k, v in document.items()
                     if k not in ("version", "session_count", "sessions", "functions", "diagnostics", "program")}
            functions = document.get("functions")
            return cls(facts, [SessionVerdict.from_dict(s) for s in document["sessions"]],
                       _functions(functions) if functions is not None else None,
                       [Diagnostic.from_dict(d) for d in document.get("diagnostics", [])], document.get("program"))
        if version == DOCUMENT_VERSION or version in READS:
            return _converted(document)
        raise ValueError("unsupported tfguard report version: %r" % (version,))


_RUN_FACTS = ("command", "tensorflow_version", "exit_status", "stopped_by_max_steps", "freeze_after",
              "unguarded_sessions", "task")


def _functions(data: Dict[str, Any]) -> FunctionsVerdict:
    return FunctionsVerdict(bool(data.get("available")), bool(data.get("failed")), list(data.get("functions") or []))


def _converted(document: Dict[str, Any]) -> RunVerdict:
    """A version 2/3 run document (or a bare session document of any version) as a verdict."""
    facts = {k: document[k] for k in _RUN_FACTS if k in document}
    verdict = RunVerdict(facts)
    if "mode" in document:
        top = {k: v for k, v in document.items() if k not in _RUN_FACTS and k not in (
            "version", "session_count", "other_sessions", "across_sessions", "functions")}
        parts = [top] + [dict(other["report"], **{k: other.get(k) for k in SESSION_FACTS})
                         for other in document.get("other_sessions", [])]
        for part in parts:
            session = SessionVerdict.from_dict({k: v for k, v in part.items() if k != "version"})
            verdict.sessions.append(session)
            verdict.diagnostics += [Diagnostic.from_dict(d).scoped(SESSION, session.number)
                                    for d in part.get("diagnostics", [])]
        verdict.diagnostics += [Diagnostic.from_dict(d).scoped(ACROSS_SESSIONS)
                                for d in document.get("across_sessions", [])]
    functions = document.get("functions")
    if functions is not None:
        verdict.functions = _functions(functions)
        verdict.diagnostics += [Diagnostic.from_dict(d).scoped(FUNCTION) for d in functions.get("diagnostics", [])]
    return verdict


def _plain(value: Any) -> Any:
    """A JSON-ready deep copy."""
    return json.loads(json.dumps(value))
