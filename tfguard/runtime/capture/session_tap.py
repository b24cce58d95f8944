"""The session tap: scoped, exactly-restored patches of one session's `run`, `make_callable` and `partial_run`.

The patches are instance attributes on the guarded session only (attrs.py); every run made through them is
queued on the recorders of the thread that made it (record/recorder.py).
"""

from __future__ import annotations

import functools
import inspect
import sys
import weakref
from contextlib import contextmanager
from threading import get_ident
from time import perf_counter
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional

from tfguard.runtime.capture.attrs import MISSING as _MISSING
from tfguard.runtime.capture.attrs import instance_attr as _instance_attr
from tfguard.runtime.capture.attrs import lock as _lock
from tfguard.runtime.capture.attrs import restore_attr as _restore_attr
from tfguard.runtime.capture.attrs import weakly_bound
from tfguard.runtime.record.recorder import KERAS_PREDICT, RUN_FIELDS
from tfguard.runtime.record.signature import LEAF_TYPES, feed_keys, fetch_key, snapshot
from tfguard.runtime.safety import give_up
from tfguard.runtime.tf_access import version_reader

_THIS_FILE = __file__


def _no_owner() -> None:
    return None



#: The parameters of ``BaseSession.run`` (and MonitoredSession.run): a `run` with exactly
#: these is wrapped by the fast wrapper, which needs no ``*args``/``**kwargs`` packing.
_RUN_PARAMETERS = (("fetches", _MISSING), ("feed_dict", None), ("options", None), ("run_metadata", None))
#: A thread's sink while it runs inside Saver.save: its runs are not training steps.
_QUIET = ()
#: Runs of another thread between two looks at whether it has become the training thread, and
#: the most runs the guarding thread may have made (a thread that trains itself while queue
#: runners feed it is never left; see SessionTap._maybe_follow).
_FOLLOW_EVERY = 50
_FOLLOW_MAX_RUNS = 10


def _in_session_run(thread: int) -> bool:
    """Whether `thread` is inside a guarded session call right now (blocked in a dequeue, say)."""
    frame = sys._current_frames().get(thread)
    while frame is not None:
        code = frame.f_code
        if code.co_filename == _THIS_FILE and code.co_name in ("run", "call"):
            return True
        frame = frame.f_back
    return False


_PREDICT_NAMES = frozenset(("predict", "predict_on_batch"))
#: `SessionTap._call_begin`'s token for a call made by a thread no guard is on.
_OTHER = object()


def _recorded(tap: "SessionTap", function: Callable, kind: Optional[str], fetches: Any, feeds: tuple) -> Callable:
    """`function` (the program's: a session method, a callable) with its calls recorded by `tap`.

    Only `function(...)` is the program's and is called exactly once; tfguard's part before and after it is
    shielded (safety.py), so that an internal error stops the guard, never the call.
    """
    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        token = None
        if not tap.failed:
            try:
                token = tap._call_begin()
            except Exception as exc:
                give_up(tap, "Session.run", exc)
                token = None
        if token is None:
            return function(*args, **kwargs)
        t0 = perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            t1 = perf_counter()
            try:
                tap._call_end(token, kind, fetches, feeds, t0, t1)
            except Exception as exc:
                give_up(tap, "Session.run", exc)

    return call


def _made_by(frame: Any) -> str:
    """KERAS_PREDICT when a Keras `predict`/`predict_on_batch` is on the stack from `frame` out, else "callable"."""
    while frame is not None:
        code = frame.f_code
        if code.co_name in _PREDICT_NAMES and "keras" in code.co_filename:
            return KERAS_PREDICT
        frame = frame.f_back
    return "callable"


def _has_plain_run_signature(run: Callable) -> bool:
    try:
        parameters = inspect.signature(run).parameters.values()
    except (TypeError, ValueError):
        return False
    found = tuple((p.name, _MISSING if p.default is inspect.Parameter.empty else p.default)
                  for p in parameters)
    return found == _RUN_PARAMETERS and all(
        p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in parameters)


class _EveryRunSink:
    """A thread's sink that hands each run on at once: to several nested guards, or to
    guards whose graph can grow, which look for new ops after every run."""

    drain_at = RUN_FIELDS

    def __init__(self, tap: "SessionTap", recorders: List[Any], watch_growth: bool) -> None:
        self.tap = tap
        self.recorders = tuple(recorders)
        self.pending: List[Any] = []
        #: The graph's version reader while it can grow, None while it is finalized (the tap
        #: makes a new sink whenever that changes, so it is fixed for this one's life).
        self._version = tap.version if watch_growth else None

    def drain(self, feed: Any = None) -> None:
        """Attribute any graph growth, then queue the pending runs on every recorder (`feed`: the last one's)."""
        # Runs after every run of a graph that can grow: a version read and a list swap when it did not.
        runs = self.pending
        self.pending = []
        version = self._version
        if version is not None and version() != self.tap.version_seen:
            # ops added since the last run were added before this one
            self.tap.note_growth(self.recorders)
        for rec in self.recorders:
            pending = rec.pending  # Recorder.queue, inlined
            pending += runs
            if len(pending) >= rec.drain_at:
                rec.drain(feed)

    def record(self, *args: Any, **kwargs: Any) -> None:
        """Record one run on every recorder (see Recorder.record)."""
        for rec in self.recorders:
            rec.record(*args, **kwargs)


class SessionTap:
    """Instance-level wrappers around one session's run/make_callable/partial_run."""

    _taps: Dict[int, "SessionTap"] = {}

    def __init__(self, session: Any, graph: Any) -> None:
        # Weak: the class-level registry must not keep a session (and its memory) alive.
        self._session = weakref.ref(session)
        self._key = id(session)
        self.graph = graph
        #: Reads graph.version cheaply (tf_access.version_reader): sinks read it after every run.
        self.version = version_reader(graph)
        self.recorders: List[Any] = []
        #: Per recorder, its guard's receiver of the sites a growth added ops at (the live alert's; see attach).
        self.growth_sinks: Dict[Any, Callable[[List[Any]], None]] = {}
        self.by_thread: Dict[int, List[Any]] = {}
        #: Per guarding thread, what records its runs: its one recorder, a _EveryRunSink to
        #: several, or _QUIET inside Saver.save. Threads not in it are "other threads".
        self.sinks: Dict[int, Any] = {}
        #: Graph version every recorder has seen growth attributed up to (-1: check on the next run).
        self.version_seen = -1
        #: Per thread not guarded, [runs, start] of its current window of runs, for recorders
        #: that follow the busiest thread.
        self.other_counts: Dict[int, List[Any]] = {}
        self._watch_growth = True
        self._saved: Dict[str, Any] = {}
        #: Set by `fail`: tfguard failed internally on this session, whose wrappers now call straight through.
        self.failed = False

    @property
    def session(self) -> Any:
        """The tapped session, or None once it has been garbage collected."""
        return self._session()

    @property
    def watch_growth(self) -> bool:
        """False while the graph is finalized (by a frozen guard): it cannot grow then."""
        return self._watch_growth

    @watch_growth.setter
    def watch_growth(self, value: bool) -> None:
        with _lock:
            self._watch_growth = value
            for thread in list(self.by_thread):
                if self.sinks.get(thread) is not _QUIET:
                    self._update_sink(thread)

    @classmethod
    def attach(cls, session: Any, graph: Any, recorder: Any,
               on_growth: Optional[Callable[[List[Any]], None]] = None) -> "SessionTap":
        """Register `recorder` on `session`, patching it on the first registration. `on_growth` (the guard's)
        is given the growth sites whenever the recorder attributes growth noticed after a run (the live alert)."""
        with _lock:
            tap = cls._taps.get(id(session))
            if tap is None or tap.session is not session:
                tap = cls(session, graph)
                tap._install()
                cls._taps[id(session)] = tap
            tap.recorders.append(recorder)
            if on_growth is not None:
                tap.growth_sinks[recorder] = on_growth
            tap.by_thread.setdefault(recorder.thread, []).append(recorder)
            tap.version_seen = -1
            tap.watch_growth = True  # until the guard says its graph is finalized; sets every thread's sink
            return tap

    def detach(self, recorder: Any) -> None:
        """Unregister `recorder`; the last one out restores the session exactly."""
        with _lock:
            self.recorders.remove(recorder)
            self.growth_sinks.pop(recorder, None)
            owners = self.by_thread[recorder.thread]
            owners.remove(recorder)
            if not owners:
                del self.by_thread[recorder.thread]
            self._update_sink(recorder.thread)
            if not self.recorders:
                self._uninstall()
                if SessionTap._taps.get(self._key) is self:
                    del SessionTap._taps[self._key]

    def fail(self, where: str, exc: BaseException) -> None:
        """tfguard failed internally in `where`: stop guarding this session (one warning line, see safety.py)."""
        give_up(self, where, exc)

    def on_failure(self) -> None:
        """After an internal error: its recorders are marked failed, no thread records any more, and the
        session's own methods are put back (a wrapper the program still holds calls straight through)."""
        with _lock:
            self.sinks.clear()
            for rec in self.recorders:
                rec.failed = True
            self._uninstall()

    def _update_sink(self, thread: int) -> None:
        if self.failed:
            self.sinks.pop(thread, None)
            return
        owners = self.by_thread.get(thread)
        if not owners:
            self.sinks.pop(thread, None)
        elif len(owners) == 1 and not self._watch_growth:
            self.sinks[thread] = owners[0]  # the fast path: the wrapper queues on the recorder itself
        else:
            self.sinks[thread] = _EveryRunSink(self, owners, self._watch_growth)

    @contextmanager
    def quiet(self, thread: int) -> Iterator[bool]:
        """Leave `thread`'s runs unrecorded for the block (yields whether it was recording)."""
        sink = self.sinks.get(thread)
        if not sink:
            yield False
            return
        self.sinks[thread] = _QUIET
        try:
            yield True
        finally:
            if self.sinks.get(thread) is _QUIET:
                self._update_sink(thread)

    def _install(self) -> None:
        session = self.session
        for name, make in (("run", self._wrap_run), ("make_callable", self._wrap_make_callable),
                           ("partial_run", self._wrap_partial_run),
                           ("_make_callable_from_options", self._wrap_callable_from_options)):
            original = getattr(session, name, None)
            if original is None:
                continue
            self._saved[name] = _instance_attr(session, name)
            setattr(session, name, make(original))

    def _uninstall(self) -> None:
        session = self.session
        if session is not None:  # a collected session has nothing left to restore
            for name, previous in self._saved.items():
                _restore_attr(session, name, previous)
        self._saved = {}

    def _wrap_run(self, original: Callable) -> Callable:
        if not _has_plain_run_signature(original):
            return self._wrap_any_run(weakly_bound(original, self.session))
        # One Python frame between the program and TensorFlow's run: the session's own method is
        # called as its function with the session looked up through a weak reference (see
        # weakly_bound); any other plain `run` through a shim that drops that first argument.
        if getattr(original, "__self__", None) is self.session and hasattr(original, "__func__"):
            function, owner = original.__func__, weakref.ref(self.session)
            wrapped = function  # not the bound method: run.__wrapped__ would hold the session strongly
        else:
            plain = wrapped = original

            def function(_owner, fetches, feed_dict=None, options=None, run_metadata=None):
                return plain(fetches, feed_dict, options, run_metadata)

            owner = _no_owner
        tap = self
        sinks = self.sinks
        leaf_types = LEAF_TYPES
        clock = perf_counter  # closure cells: read faster than module globals on Python 3.7
        thread = get_ident

        # The hot path of the guard (bench/guard_overhead.py). Next to TensorFlow's own work
        # every object and C routine it touches costs a cache miss, so it reads two clocks
        # and queues the run, and does all of it after the run, when TensorFlow has just
        # read the fetches and the feed dict itself. A leaf fetch's signature is worked out
        # when the queue is folded (Recorder.drain); graph growth is looked for by the sink
        # of a graph that can grow (_EveryRunSink).
        @functools.wraps(wrapped)
        def run(fetches, feed_dict=None, options=None, run_metadata=None):
            t0 = clock()
            try:
                return function(owner(), fetches, feed_dict, options, run_metadata)
            finally:
                t1 = clock()
                try:  # tfguard's own error must never become the program's (safety.py)
                    sink = sinks.get(thread())
                    if sink:
                        if type(fetches) in leaf_types:
                            key, kept = None, fetches
                        else:
                            kept = snapshot(fetches)
                            key = fetch_key(kept)
                        try:  # signature.feed_keys, inlined
                            keys = tuple(feed_dict) if feed_dict else ()
                        except Exception:  # not a mapping: sess.run has raised its own error for it
                            keys = ()
                        pending = sink.pending
                        pending += (key, kept, keys, t0, t1)  # Recorder.QUEUED_RUN, flat
                        if len(pending) >= sink.drain_at:
                            sink.drain(feed_dict)
                    elif sink is None:  # another thread's run (a queue runner's); _QUIET: inside Saver.save
                        tap.record_other_thread(t1 - t0)
                except Exception as exc:
                    give_up(tap, "Session.run", exc)

        return run

    def _wrap_any_run(self, original: Callable) -> Callable:
        tap = self

        @functools.wraps(original)
        def run(fetches, *args, **kwargs):
            try:
                feeds = feed_keys(args[0] if args else kwargs.get("feed_dict"))
            except Exception as exc:
                give_up(tap, "Session.run", exc)
                feeds = ()
            try:
                call = _recorded(tap, original, None, fetches, feeds)
            except Exception as exc:
                give_up(tap, "Session.run", exc)
                call = original
            return call(fetches, *args, **kwargs)

        return run

    def note_growth(self, recorders: Iterable[Any]) -> None:
        """Let each of `recorders` attribute the ops added since it last looked."""
        version = self.version()
        if version != self.version_seen:
            for rec in recorders:
                if version != rec.last_version:
                    grown = rec.on_growth(version)
                    sink = self.growth_sinks.get(rec)
                    if grown and sink is not None:
                        sink(grown)  # in the program's own run: its alert names the program's line
            self.version_seen = version

    def record_other_thread(self, duration: float) -> None:
        """Count a run made by a thread that no guard of this session is on."""
        if self.failed:
            return
        recorders = list(self.recorders)
        for rec in recorders:
            rec.record_other_thread(duration)
        if any(rec.follow_busiest_thread for rec in recorders):
            self._maybe_follow(get_ident())

    def _maybe_follow(self, ident: int) -> None:
        """Move recorders that follow the busiest thread to `ident` once it has made
        `_FOLLOW_EVERY` runs in a row while their thread, with at most `_FOLLOW_MAX_RUNS` runs of
        its own (set-up), made none and is not inside one: a training loop on a worker thread
        while the creating thread waits for it (not queue runners filling a queue while the
        training thread's first batch dequeue waits on them)."""
        window = self.other_counts.get(ident)
        if window is None or window[0] % _FOLLOW_EVERY == 0:
            window = self.other_counts[ident] = [0, perf_counter()]  # runs, when this window began
        window[0] += 1
        if window[0] % _FOLLOW_EVERY:
            return
        window_start = window[1]
        with _lock:
            for rec in list(self.recorders):
                if not rec.follow_busiest_thread or rec.thread == ident or rec.runs > _FOLLOW_MAX_RUNS \
                        or rec.last_run_end() >= window_start or _in_session_run(rec.thread):
                    continue
                rec.drain()
                old = rec.thread
                owners = self.by_thread[old]
                owners.remove(rec)
                if not owners:
                    del self.by_thread[old]
                rec.thread = ident
                self.by_thread.setdefault(ident, []).append(rec)
                self._update_sink(old)
                self._update_sink(ident)
            self.other_counts.pop(ident, None)

    def _call_begin(self) -> Any:
        """Before a recorded call on this thread: None (call straight through), `_OTHER` (another thread's:
        count it), or (sink, quiet block entered) for the guarding thread."""
        ident = get_ident()
        sink = self.sinks.get(ident)
        if not sink:
            return _OTHER if sink is None and self.recorders and not self.failed else None
        if self._watch_growth:
            self.note_growth(self.by_thread.get(ident, ()))
        # Quiet: a callable may run through sess.run itself (TF's generic callable does).
        quiet = self.quiet(ident)
        quiet.__enter__()
        return sink, quiet

    def _call_end(self, token: Any, kind: Optional[str], fetches: Any, feeds: tuple, t0: float, t1: float) -> None:
        """After a recorded call that `_call_begin` returned `token` for."""
        if token is _OTHER:
            self.record_other_thread(t1 - t0)
        else:
            sink, quiet = token
            quiet.__exit__(None, None, None)
            sink.record(fetches, feeds, t0, t1, kind)

    def _wrap_make_callable(self, original: Callable) -> Callable:
        original = weakly_bound(original, self.session)
        tap = self

        @functools.wraps(original)
        def make_callable(fetches, feed_list=None, *args, **kwargs):
            inner = original(fetches, feed_list, *args, **kwargs)
            try:
                feeds = feed_keys(feed_list)
            except Exception as exc:
                give_up(tap, "Session.make_callable", exc)
                return inner

            try:  # stays usable after the block: with no recorders it just calls through
                return _recorded(tap, inner, "callable", fetches, feeds)
            except Exception as exc:
                give_up(tap, "Session.make_callable", exc)
                return inner

        return make_callable

    def _wrap_callable_from_options(self, original: Callable) -> Callable:
        """Keras (`tf.compat.v1.keras`, tf_keras) runs `model.fit` steps through these callables."""
        original = weakly_bound(original, self.session)
        tap = self

        @functools.wraps(original)
        def make_callable_from_options(callable_options, *args, **kwargs):
            inner = original(callable_options, *args, **kwargs)
            try:
                fetches = tuple(callable_options.fetch) + tuple(callable_options.target)
                feeds = tuple(callable_options.feed)
                kind = _made_by(sys._getframe(1))
            except Exception as exc:
                give_up(tap, "Session._make_callable_from_options", exc)
                return inner

            try:
                return _recorded(tap, inner, kind, fetches, feeds)
            except Exception as exc:
                give_up(tap, "Session._make_callable_from_options", exc)
                return inner

        return make_callable_from_options

    def _wrap_partial_run(self, original: Callable) -> Callable:
        original = weakly_bound(original, self.session)
        tap = self

        @functools.wraps(original)
        def partial_run(handle, fetches, feed_dict=None, *args, **kwargs):
            try:
                feeds = feed_keys(feed_dict)
            except Exception as exc:
                give_up(tap, "Session.partial_run", exc)
                feeds = ()
            try:
                call = _recorded(tap, original, "partial_run", fetches, feeds)
            except Exception as exc:
                give_up(tap, "Session.partial_run", exc)
                call = original
            return call(handle, fetches, feed_dict, *args, **kwargs)

        return partial_run
