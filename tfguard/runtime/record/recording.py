"""The typed recording: what a guard recorded, as the judges read it (judge/) and the JSON document keeps it.

`Recorder.recording()` makes one from a live recorder; `Recording.from_dict` makes one from a saved document
(``tfguard run --json``) or from a test's synthetic figures, so that every judgement can be tested in
milliseconds, without TensorFlow. `to_dict()` gives a session's recorded figures (the slowdown verdict and the
derived figures are added by judge/judgement.py), key for key as before the recording was typed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Dict, List, Optional

from tfguard.runtime.record.growth import ONE_TIME, REPEATED


@dataclass
class SignatureRecord:
    """The runs that share one fetch signature (``fetches <- feeds``)."""

    label: str = ""
    op_types: List[str] = field(default_factory=list)
    summary_ops: List[str] = field(default_factory=list)
    count: int = 0
    made_by: Optional[str] = None
    #: StreamingSample summaries: count, total, mean, median, p95, ...
    run_time: Dict[str, Any] = field(default_factory=dict)
    interval: Dict[str, Any] = field(default_factory=dict)
    series: Dict[str, Any] = field(default_factory=lambda: {"bucket": 1, "points": []})
    run_series: Dict[str, Any] = field(default_factory=lambda: {"bucket": 1, "points": []})


@dataclass
class SiteRecord:
    """Ops added to the graph from one user source line (growth.GrowthSite, judged by its kind)."""

    path: str
    line: int
    code: str = ""
    api: Optional[str] = None
    op_types: List[str] = field(default_factory=list)
    rule: str = ""
    fix: str = ""
    ops_added: int = 0
    growth_events: int = 0
    events_in_loop: int = 0
    kind: str = ONE_TIME
    first_step: int = 0
    last_step: int = 0


@dataclass
class Violation:
    """Code that tried to add ops to a frozen graph (capture/graph_patch.py)."""

    path: str
    line: int
    code: str = ""
    api: Optional[str] = None
    step: Optional[int] = None
    rule: str = ""


@dataclass
class TrendSeries:
    """The series the slowdown test measures (its input; stats.Trend is its result): the dominant signature (or all
    runs), its measure and the series."""

    label: Optional[str]
    measure: str
    values: List[float]
    loop_start: int
    #: Clock windows (clocks.compare): the first and the last fifth of the marked runs; None when too short.
    windows: Optional[Dict[str, Any]] = None


#: Fields of the recording that the document does not keep under their own name.
_NOT_IN_DOCUMENT = ("trend",)


@dataclass
class Recording:
    """Everything one guard recorded, typed (see the module docstring)."""

    mode: str = "watch"
    runs: int = 0
    other_thread_runs: int = 0
    other_thread_run_s: float = 0.0
    wall_s: float = 0.0
    run_s: float = 0.0
    host_fraction: Optional[float] = None
    #: The loop host_fraction is measured over: {wall_s, run_s, save_s} from its start (judge/time_parts.py).
    loop: Optional[Dict[str, float]] = None
    save_s: float = 0.0
    saves: int = 0
    summary_write_s: float = 0.0
    summary_writes: int = 0
    nodes_start: int = 0
    nodes_end: int = 0
    nodes_added: int = 0
    unattributed_ops: int = 0
    growth_ops: Dict[str, int] = field(default_factory=dict)
    host_time: Optional[Dict[str, Any]] = None
    all_runs_series: Dict[str, Any] = field(default_factory=lambda: {"bucket": 1, "points": []})
    host_gap_series: Dict[str, Any] = field(default_factory=lambda: {"bucket": 1, "points": []})
    signatures: List[SignatureRecord] = field(default_factory=list)
    growth_sites: List[SiteRecord] = field(default_factory=list)
    frozen_violations: List[Violation] = field(default_factory=list)
    options: Dict[str, Any] = field(default_factory=dict)
    trend: TrendSeries = field(default_factory=lambda: TrendSeries(None, "step interval", [], 0))

    def sites_of(self, kind: str) -> List[SiteRecord]:
        """The growth sites of one kind (REPEATED, ONE_TIME, SETUP), in report order."""
        return [s for s in self.growth_sites if s.kind == kind]

    @property
    def repeated(self) -> List[SiteRecord]:
        """The sites that keep growing the graph as steps go by."""
        return self.sites_of(REPEATED)

    @property
    def one_time(self) -> List[SiteRecord]:
        """The sites that grew the graph a few times after the loop started, then stopped."""
        return self.sites_of(ONE_TIME)

    def busiest(self) -> Optional[SignatureRecord]:
        """The signature run most often (the first of equals), None without runs."""
        return max(self.signatures, key=lambda s: s.count, default=None)

    def to_dict(self) -> Dict[str, Any]:
        """The document's recorded fields, in the document's order (verdicts and diagnostics come after)."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _NOT_IN_DOCUMENT}
        data["signatures"] = [asdict(s) for s in self.signatures]
        data["growth_sites"] = [asdict(s) for s in self.growth_sites]
        data["frozen_violations"] = [asdict(v) for v in self.frozen_violations]
        return data

    @classmethod
    def from_dict(cls, data: Dict[str, Any], trend_values: Optional[List[float]] = None) -> "Recording":
        """A recording from a document's fields (unknown keys are left out; missing ones take their defaults).

        The document keeps no raw trend series: `trend_values` gives one (a synthetic test's), else the trend
        is the document's dominant signature with no values (its slowdown verdict is then the document's own).
        """
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known and k not in _NOT_IN_DOCUMENT}
        values["signatures"] = [_typed(SignatureRecord, s) for s in data.get("signatures", [])]
        values["growth_sites"] = [_typed(SiteRecord, s) for s in data.get("growth_sites", [])]
        values["frozen_violations"] = [_typed(Violation, v) for v in data.get("frozen_violations", [])]
        values["trend"] = TrendSeries(data.get("dominant_signature"), data.get("slowdown_measure") or "step interval",
                                list(trend_values or []), data.get("loop_start") or 0)
        return cls(**values)


def _typed(kind: type, data: Dict[str, Any]) -> Any:
    known = {f.name for f in fields(kind)}
    return kind(**{k: v for k, v in data.items() if k in known})
