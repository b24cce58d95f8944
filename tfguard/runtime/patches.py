"""Scoped, exactly-restored patches of one session, one graph, and Saver.save.

Session and graph patches are instance attributes on the guarded objects only; the
Saver.save patch is class-level (Saver objects are the user's) but only attributes
time to guards whose graph matches, and is removed when the last guard exits.
"""

from __future__ import annotations

import functools
import sys
import threading
from threading import get_ident
from time import perf_counter
from typing import Any, Callable, Dict, List, Optional

from tfguard.runtime.errors import GraphFrozenError
from tfguard.runtime.signature import LEAF_TYPES, run_key
from tfguard.runtime.tracebacks import live_stack, rule_for_api, source_line, user_and_api_from_frames

_MISSING = object()
_lock = threading.RLock()


def _instance_attr(obj: Any, name: str) -> Any:
    """The instance-level value of `obj.name`, or _MISSING when it comes from the class."""
    value = getattr(obj, name, _MISSING)
    if value is _MISSING:
        return _MISSING
    if getattr(value, "__self__", None) is obj and getattr(value, "__func__", None) is getattr(type(obj), name, None):
        return _MISSING
    return value


def _restore_attr(obj: Any, name: str, previous: Any) -> None:
    if previous is _MISSING:
        try:
            delattr(obj, name)
        except AttributeError:
            pass
    else:
        setattr(obj, name, previous)


class SessionTap:
    """Instance-level wrappers around one session's run/make_callable/partial_run."""

    _taps: Dict[int, "SessionTap"] = {}

    def __init__(self, session: Any, graph: Any) -> None:
        self.session = session
        self.graph = graph
        self.recorders: List[Any] = []
        self.by_thread: Dict[int, List[Any]] = {}
        self.inside: Optional[int] = None
        #: Graph version every recorder has seen growth attributed up to (-1: check on the next run).
        self.version_seen = -1
        #: False while the graph is finalized (by a frozen guard): it cannot grow then.
        self.watch_growth = True
        self._saved: Dict[str, Any] = {}

    @classmethod
    def attach(cls, session: Any, graph: Any, recorder: Any) -> "SessionTap":
        """Register `recorder` on `session`, patching it on the first registration."""
        with _lock:
            tap = cls._taps.get(id(session))
            if tap is None or tap.session is not session:
                tap = cls(session, graph)
                tap._install()
                cls._taps[id(session)] = tap
            tap.recorders.append(recorder)
            tap.by_thread.setdefault(recorder.thread, []).append(recorder)
            tap.version_seen = -1
            tap.watch_growth = True
            return tap

    def detach(self, recorder: Any) -> None:
        """Unregister `recorder`; the last one out restores the session exactly."""
        with _lock:
            self.recorders.remove(recorder)
            owners = self.by_thread[recorder.thread]
            owners.remove(recorder)
            if not owners:
                del self.by_thread[recorder.thread]
            if not self.recorders:
                self._uninstall()
                SessionTap._taps.pop(id(self.session), None)

    def _install(self) -> None:
        session = self.session
        for name, make in (("run", self._wrap_run), ("make_callable", self._wrap_make_callable),
                           ("partial_run", self._wrap_partial_run)):
            original = getattr(session, name, None)
            if original is None:
                continue
            self._saved[name] = _instance_attr(session, name)
            setattr(session, name, make(original))

    def _uninstall(self) -> None:
        for name, previous in self._saved.items():
            _restore_attr(self.session, name, previous)
        self._saved = {}

    def _wrap_run(self, original: Callable) -> Callable:
        tap = self
        by_thread = self.by_thread
        leaf_types = LEAF_TYPES

        # The hot path of the guard: keep it to a few dictionary lookups and two clock
        # reads (bench/guard_overhead.py), with the common single-guard case unrolled.
        @functools.wraps(original)
        def run(fetches, *args, **kwargs):
            ident = get_ident()
            if tap.inside == ident:
                return original(fetches, *args, **kwargs)
            owners = by_thread.get(ident)
            if owners is None:
                return tap._other_thread(original, (fetches,) + args, kwargs)
            feeds = args[0] if args else kwargs.get("feed_dict")
            if type(fetches) in leaf_types:  # run_key's result, without its two calls
                key = (id(fetches), tuple(map(id, feeds))) if feeds else id(fetches)
            else:
                key = run_key(fetches, feeds)
            if tap.watch_growth:  # a finalized graph cannot grow: skip the version read
                tap.note_growth(owners)
            # No re-entry marker is set here: nothing TensorFlow does inside a run calls this
            # session's run again; Saver.save, which does, sets ``tap.inside`` itself.
            t0 = perf_counter()
            try:
                return original(fetches, *args, **kwargs)
            finally:
                t1 = perf_counter()
                if len(owners) == 1:
                    owners[0].record(key, fetches, feeds, t0, t1)
                else:
                    for rec in owners:
                        rec.record(key, fetches, feeds, t0, t1)

        return run

    def note_growth(self, owners: List[Any]) -> None:
        """Let each recorder attribute the ops added since it last looked."""
        version = self.graph.version
        if version != self.version_seen:
            for rec in owners:
                if version != rec.last_version:
                    rec.on_growth(version)
            self.version_seen = version

    def _other_thread(self, function: Callable, args: tuple, kwargs: dict) -> Any:
        t0 = perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            duration = perf_counter() - t0
            for rec in list(self.recorders):
                rec.record_other_thread(duration)

    def _recorded_call(self, function: Callable, key: Any, fetches: Any, feeds: Any,
                       args: tuple, kwargs: dict) -> Any:
        ident = get_ident()
        owners = self.by_thread.get(ident)
        if self.inside == ident or not self.recorders:
            return function(*args, **kwargs)
        if owners is None:
            return self._other_thread(function, args, kwargs)
        if self.watch_growth:
            self.note_growth(owners)
        self.inside = ident
        t0 = perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            t1 = perf_counter()
            self.inside = None
            for rec in owners:
                rec.record(key, fetches, feeds, t0, t1)

    def _wrap_make_callable(self, original: Callable) -> Callable:
        tap = self

        @functools.wraps(original)
        def make_callable(fetches, feed_list=None, *args, **kwargs):
            inner = original(fetches, feed_list, *args, **kwargs)
            key = ("callable", run_key(fetches, feed_list))

            @functools.wraps(inner)
            def guarded_callable(*call_args, **call_kwargs):
                # Stays usable after the block: with no recorders it just calls through.
                return tap._recorded_call(inner, key, fetches, feed_list, call_args, call_kwargs)

            return guarded_callable

        return make_callable

    def _wrap_partial_run(self, original: Callable) -> Callable:
        tap = self

        @functools.wraps(original)
        def partial_run(handle, fetches, feed_dict=None, *args, **kwargs):
            key = ("partial_run", run_key(fetches, feed_dict))
            return tap._recorded_call(original, key, fetches, feed_dict, (handle, fetches, feed_dict) + args, kwargs)

        return partial_run


class GraphPatch:
    """Instance-level `_check_not_finalized` that raises GraphFrozenError with context."""

    _patches: Dict[int, "GraphPatch"] = {}

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.recorders: List[Any] = []
        self._previous: Any = _MISSING

    @classmethod
    def attach(cls, graph: Any, recorder: Any) -> "GraphPatch":
        """Register `recorder` for `graph`, patching the graph on the first registration."""
        with _lock:
            patch = cls._patches.get(id(graph))
            if patch is None or patch.graph is not graph:
                patch = cls(graph)
                patch._previous = _instance_attr(graph, "_check_not_finalized")
                graph._check_not_finalized = patch._check_not_finalized
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
        if self.graph.finalized:
            raise self._frozen_error(sys._getframe(1))

    def _frozen_error(self, frame: Any) -> GraphFrozenError:
        site, api = user_and_api_from_frames(live_stack(frame))
        rule, fix = rule_for_api(api)
        recorders = list(self.recorders)
        step = recorders[-1].runs if recorders else None
        path, line = site if site else (None, None)
        code = source_line(path, line) if site else ""
        where = "%s:%d `%s`" % (path, line, code) if site else "an unknown line"
        message = (
            "Graph is finalized and cannot be modified: %s tried to add ops%s at step %s of the "
            "tfguard.frozen block. Fix: %s (static rule %s)." % (
                where, " via " + api if api else "", step, fix, rule))
        violation = {"path": path or "<unknown>", "line": line or 0, "code": code, "api": api,
                     "step": step, "rule": rule}
        for rec in recorders:
            rec.violations.append(dict(violation))
        return GraphFrozenError(message, path=path, line=line, api=api, step=step, code=code, rule=rule)


class SaverPatch:
    """Class-level timing wrapper on `Saver.save`, present only while a guard is active."""

    _count = 0
    _owner: Any = None
    _original: Any = None

    @classmethod
    def attach(cls, saver_class: Any) -> None:
        """Install the wrapper on first use (reference counted)."""
        with _lock:
            if cls._count == 0:
                original = saver_class.__dict__["save"]
                cls._owner, cls._original = saver_class, original
                saver_class.save = cls._make_wrapper(original)
            cls._count += 1

    @classmethod
    def detach(cls) -> None:
        """Remove the wrapper when the last guard exits."""
        with _lock:
            cls._count -= 1
            if cls._count == 0:
                cls._owner.save = cls._original
                cls._owner = cls._original = None

    @staticmethod
    def _make_wrapper(original: Callable) -> Callable:
        @functools.wraps(original)
        def save(self, sess, *args, **kwargs):
            graph = getattr(sess, "graph", None)
            patch = GraphPatch._patches.get(id(graph))
            ident = get_ident()
            recorders = [r for r in patch.recorders if r.thread == ident] if patch and patch.graph is graph else []
            if not recorders:
                return original(self, sess, *args, **kwargs)
            # The runs Saver.save makes are not training steps: timed as save_s, kept out of
            # the step statistics (as under GuardHook, where they bypass the hooks).
            tap = SessionTap._taps.get(id(sess))
            quiet = tap is not None and tap.session is sess and tap.inside is None
            if quiet:
                tap.inside = ident
            t0 = perf_counter()
            try:
                return original(self, sess, *args, **kwargs)
            finally:
                duration = perf_counter() - t0
                if quiet:
                    tap.inside = None
                for rec in recorders:
                    rec.record_save(duration)

        return save
