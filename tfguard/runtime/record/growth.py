"""Graph growth by source line, and what kind it is: setup, one-time or repeated.

- **setup**: ops added before the training loop started, i.e. before the first run of the
  loop's dominant fetch signature (`tf.global_variables_initializer()` run right after
  `tf.Session()`, a Saver or `merge_all()` built after the session but before the loop, a
  whole model built after an `InteractiveSession`). Never reported.
- **one-time**: a site that grew the graph after the loop started, but fewer than
  `REPEATED_EVENTS` times or not any more in the second half of the loop (a Saver built
  lazily after the first epoch, an eval op built `if step == 0`, one op per input shape).
  Reported as information with its line.
- **repeated**: a site that grew the graph at `REPEATED_EVENTS` or more different steps after
  the loop started and was still growing it in the second half of the loop: the bug.
  TFG901 error, and what `tfguard run --fail-on growth` fails on. A site that was repeated when
  its live GraphGrowthWarning was issued stays repeated (`GrowthSite.alerted`): the final report
  never contradicts a live alert (see judge/graph_growth.py).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from tfguard.runtime.document import display_path
from tfguard.runtime.record.per_call import PER_CALL_RULE
from tfguard.runtime.record.tracebacks import rule_for_api, source_line

#: Growth events after the loop started that make a site "repeated".
REPEATED_EVENTS = 3
#: Steps of a site's first growth events kept (enough to tell setup events from loop ones).
_EARLY_STEPS = 16
#: Distinct op types kept per site.
_OP_TYPES = 6
SETUP, ONE_TIME, REPEATED = "setup", "one-time", "repeated"
#: Where ops with no user frame in their traceback are counted.
UNATTRIBUTED = ("<no user frame>", 0)


class GrowthSite:
    """Ops added to the graph from one user source line, and the steps at which they were."""

    __slots__ = ("path", "line", "api", "op_types", "ops_added", "events", "first_step", "last_step",
                 "early_steps", "_last_event", "per_call", "alerted")

    def __init__(self, path: str, line: int, api: Optional[str], step: int) -> None:
        self.path = path
        self.line = line
        self.api = api
        self.op_types: List[str] = []
        self.ops_added = 0
        self.events = 0
        self.first_step = step
        self.last_step = step
        self.early_steps: List[int] = []
        self._last_event = -1
        #: Built by the function that runs the graph, once per call of it (static rule TFG109).
        self.per_call = False
        #: A live GraphGrowthWarning named this site (it was repeated then, and stays so).
        self.alerted = False

    def add_op(self, op_type: Optional[str], api: Optional[str], event: int, step: int) -> None:
        """Count one op added through `api` during growth event number `event`, seen after `step` runs."""
        self.ops_added += 1
        if api and not _is_public(self.api) and _is_public(api):  # `tf.reduce_mean(w * 2.0)`: not `w * 2.0`
            self.api = api
        if op_type and op_type not in self.op_types and len(self.op_types) < _OP_TYPES:
            self.op_types.append(op_type)
        if self._last_event != event:
            self._last_event = event
            self.events += 1
            self.last_step = step
            if len(self.early_steps) < _EARLY_STEPS:
                self.early_steps.append(step)

    def events_after(self, loop_start: int) -> int:
        """Growth events at steps after `loop_start` (a lower bound past the early steps kept)."""
        return self.events - sum(1 for step in self.early_steps if step <= loop_start)

    def kind(self, loop_start: int, runs: int) -> str:
        """SETUP, ONE_TIME or REPEATED (see the module docstring), given the runs so far."""
        after = self.events_after(loop_start)
        if after <= 0:
            return SETUP
        second_half = loop_start + (runs - loop_start) / 2.0
        if after >= REPEATED_EVENTS and (self.alerted or self.last_step >= second_half):
            return REPEATED
        return ONE_TIME

    def to_dict(self, loop_start: int, runs: int) -> Dict[str, Any]:
        """JSON-ready record with its kind and the static rule that would have caught it."""
        rule, fix = self.rule()
        return {"path": self.path, "line": self.line, "code": source_line(self.path, self.line),
                "api": self.api, "op_types": list(self.op_types), "rule": rule, "fix": fix,
                "ops_added": self.ops_added, "growth_events": self.events,
                "events_in_loop": max(0, self.events_after(loop_start)), "kind": self.kind(loop_start, runs),
                "first_step": self.first_step, "last_step": self.last_step}


    def rule(self) -> Tuple[str, str]:
        """(static rule code, fix) for this site: TFG109 for a per-call builder, else by its API."""
        return PER_CALL_RULE if self.per_call else rule_for_api(self.api)


def _is_public(api: Optional[str]) -> bool:
    return bool(api) and api.startswith("tf.") and not any(part.startswith("_") for part in api.split("."))


def sorted_sites(sites: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Repeated sites first, then one-time, then setup; most ops first within each."""
    order = {REPEATED: 0, ONE_TIME: 1, SETUP: 2}
    return sorted(sites, key=lambda s: (order[s["kind"]], -s["ops_added"], s["path"], s["line"]))


def _field(site: Any, name: str) -> Any:
    """A site's field, whether it is a typed record (record/recording.py) or a document's dict."""
    return site.get(name) if isinstance(site, dict) else getattr(site, name, None)


def site_text(site: Any) -> str:
    """`train.py:52 `saver = tf.train.Saver()`` for messages (a SiteRecord, a Violation or their dicts)."""
    where = "%s:%d" % (display_path(_field(site, "path")), _field(site, "line"))
    code = _field(site, "code")
    return where + (" `%s`" % code if code else "")


def what_grew(site: Any) -> str:
    """The op types added, after the public API when it is one: `tf.math.reduce_mean (Mean)`."""
    api = _field(site, "api") or ""
    types = ", ".join(_field(site, "op_types") or [])
    if api.startswith("tf."):
        return "%s (%s)" % (api, types) if types else api
    return "%s ops" % types if types else (api or "ops")
