"""The graph patch: an instance-level `_check_not_finalized` that raises GraphFrozenError naming the user's line,
and notes the user line of each GraphDef import (its ops have no traceback)."""

from __future__ import annotations

import sys
from typing import Any, Callable, Dict, List

from tfguard.runtime.capture.attrs import MISSING as _MISSING
from tfguard.runtime.capture.attrs import instance_attr as _instance_attr
from tfguard.runtime.capture.attrs import lock as _lock
from tfguard.runtime.capture.attrs import restore_attr as _restore_attr
from tfguard.runtime.document import after_run, display_path
from tfguard.runtime.errors import GraphFrozenError
from tfguard.runtime.record.tracebacks import live_stack, rule_for_api, source_line, user_and_api_from_frames
from tfguard.runtime.safety import give_up
from tfguard.runtime.tf_access import IMPORT_OPS_FUNCTION


def _shielded_check(patch: "GraphPatch") -> Callable[[], None]:
    """The graph's `_check_not_finalized` while guarded: the patch's, and TensorFlow's own behaviour (a plain
    RuntimeError when finalized) should tfguard's part fail."""
    graph = patch.graph

    def _check_not_finalized() -> None:
        if patch.failed:
            if graph.finalized:
                raise RuntimeError("Graph is finalized and cannot be modified.")
            return
        try:
            patch._check_not_finalized()
        except GraphFrozenError:
            raise
        except Exception as exc:
            give_up(patch, "the graph hook", exc, "naming the lines that add ops")
            if graph.finalized:
                raise RuntimeError("Graph is finalized and cannot be modified.") from None

    return _check_not_finalized


class GraphPatch:
    """Instance-level `_check_not_finalized` that raises GraphFrozenError with context."""

    _patches: Dict[int, "GraphPatch"] = {}

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.recorders: List[Any] = []
        self._previous: Any = _MISSING
        #: tfguard failed internally in the graph hook: it behaves as TensorFlow's own check from then on.
        self.failed = False

    def on_failure(self) -> None:
        """Nothing to take back: the hook behaves as TensorFlow's own check once `failed` (safety.give_up)."""

    @classmethod
    def attach(cls, graph: Any, recorder: Any) -> "GraphPatch":
        """Register `recorder` for `graph`, patching the graph on the first registration."""
        with _lock:
            patch = cls._patches.get(id(graph))
            if patch is None or patch.graph is not graph:
                patch = cls(graph)
                patch._previous = _instance_attr(graph, "_check_not_finalized")
                graph._check_not_finalized = _shielded_check(patch)
                cls._patches[id(graph)] = patch
            patch.recorders.append(recorder)
            return patch

    def detach(self, recorder: Any) -> None:
        """Unregister; the last one out restores the graph's method exactly."""
        with _lock:
            self.recorders.remove(recorder)
            if not self.recorders:
                _restore_attr(self.graph, "_check_not_finalized", self._previous)
                GraphPatch._patches.pop(id(self.graph), None)

    def _check_not_finalized(self) -> None:
        graph = self.graph
        if graph.finalized:
            raise self._frozen_error(sys._getframe(2))
        if sys._getframe(2).f_code.co_name == IMPORT_OPS_FUNCTION:
            self._note_import(graph.version)

    def _note_import(self, version: int) -> None:
        """Ops from a GraphDef (`import_graph_def`, `import_meta_graph`) are about to be added after
        `version`: they have no traceback, so the importing user line is noted for them now."""
        site, api = user_and_api_from_frames(live_stack(sys._getframe(3)))
        if site is not None:
            for rec in list(self.recorders):
                rec.note_import(version, site, api)

    def _frozen_error(self, frame: Any) -> GraphFrozenError:
        site, api = user_and_api_from_frames(live_stack(frame))
        rule, fix = rule_for_api(api)
        recorders = list(self.recorders)
        step = recorders[-1].runs if recorders else None
        path, line = site if site else (None, None)
        code = source_line(path, line) if site else ""
        where = "%s:%d `%s`" % (display_path(path), line, code) if site else "an unknown line"  # as the report
        finalizer = next((rec.finalized_by for rec in reversed(recorders) if rec.finalized_by), None)
        ordinal = after_run(step) if step is not None else "before any run"
        if finalizer:
            when = "%s, frozen by the %s" % (ordinal, finalizer)
        else:
            when = ("%s; the graph was finalized before tfguard was attached (MonitoredSession, "
                    "Estimator and graph.finalize() do that)" % ordinal)
        message = "Graph is finalized and cannot be modified: %s tried to add ops%s %s. Fix: %s (static rule %s)." % (
            where, " via " + api if api else "", when, fix, rule)
        violation = {"path": path or "<unknown>", "line": line or 0, "code": code, "api": api,
                     "step": step, "rule": rule}
        for rec in recorders:
            rec.violations.append(dict(violation))
        return GraphFrozenError(message, path=path, line=line, api=api, step=step, code=code, rule=rule)
