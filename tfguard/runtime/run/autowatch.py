"""Watch every session a program creates: the machinery behind `tfguard run`.

When TensorFlow is imported (by the program, never by us), `Session.__init__` and
`InteractiveSession.__init__` are wrapped at class level, for this process only, so each new
session is guarded in watch mode from its creation until `close()` or the end of the
program. `MonitoredSession` builds its session through `Session`, so it is covered too.

Guards hold their session weakly: a session the program drops without closing it is freed
as it would be without tfguard, and its guard is ended (its report kept, its graph let go)
at the next session creation or when the program ends. A closed session keeps only its report.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import sys
import weakref
from threading import get_ident as threading_ident
from typing import Any, Callable, Dict, List, Optional

from tfguard.runtime.capture.attrs import weakly_bound
from tfguard.runtime.capture.import_hook import OnTensorFlowImport
from tfguard.runtime.capture.session_tap import SessionTap
from tfguard.runtime.document import display_path
from tfguard.runtime.output.session_report import SessionReport
from tfguard.runtime.record.tracebacks import live_stack, user_and_api_from_frames
from tfguard.runtime.run.guard import Guard
from tfguard.runtime.safety import give_up, internal_error, reraise_deliberate
from tfguard.runtime.tf_access import unsupported_reason


class MaxStepsReached(BaseException):
    """Raised from `sess.run` once the dominant signature has run `max_steps` times.

    A BaseException so that the program's `except Exception` handlers let it through.
    """


class WatchedSession:
    """One session created by the program, its guard, and its report once finished."""

    def __init__(self, number: int, created_at: str, guard: Guard) -> None:
        self.number = number
        self.created_at = created_at
        #: The guard until the session ends; then only `report` is kept.
        self.guard: Optional[Guard] = guard
        self.report: Optional[SessionReport] = None
        self.froze_graph = False
        self.finalizer: Optional[weakref.finalize] = None
        #: tfguard's warning line when it failed internally on this session (no report then).
        self.failed: Optional[str] = None
        #: Which graph it runs (1: the first graph a watched session ran), and whether an earlier session had
        #: already run that graph when this one was created.
        self.graph_number = 0
        self.graph_ran_before = False

    @property
    def title(self) -> str:
        """`session 1 (created at train.py:42)`."""
        return "session %d (created at %s)" % (self.number, self.created_at)


class _QuietHook:
    """A MonitoredSession hook whose own runs (a `global_step` read in `after_run`) are not
    recorded as training steps: `before_run`/`after_run` run with the thread's recording paused."""

    def __init__(self, hook: Any) -> None:
        self._hook = hook

    def __getattr__(self, name: str) -> Any:
        return getattr(self._hook, name)

    def before_run(self, run_context: Any) -> Any:
        """The hook's before_run, its runs unrecorded."""
        with _paused_recording():
            return self._hook.before_run(run_context)

    def after_run(self, run_context: Any, run_values: Any) -> Any:
        """The hook's after_run, its runs unrecorded."""
        with _paused_recording():
            return self._hook.after_run(run_context, run_values)


class _paused_recording:
    """Pause every tap's recording on this thread for the block; tfguard's own error stops the taps, never
    the block (the hook's own code runs inside it)."""

    def __enter__(self) -> None:
        self._stack = contextlib.ExitStack()
        try:
            ident = threading_ident()
            for tap in list(SessionTap._taps.values()):
                self._stack.enter_context(tap.quiet(ident))
        except Exception as exc:
            self._fail(exc)

    def __exit__(self, *exc_info: Any) -> bool:
        try:
            self._stack.close()
        except Exception as exc:
            self._fail(exc)
        return False

    @staticmethod
    def _fail(exc: BaseException) -> None:
        for tap in list(SessionTap._taps.values()):
            tap.failed = True
            tap.sinks.clear()
        internal_error("a MonitoredSession hook's wrapper", exc, "guarding its sessions")


def _runs_of(watched: WatchedSession) -> int:
    guard = watched.guard
    if guard is not None and guard._recorder is not None:
        return guard._recorder.runs
    return watched.report.runs if watched.report is not None else 0


class SessionWatcher:
    """Guards every TensorFlow session created while installed (see module docstring)."""

    def __init__(self, options: Optional[Dict[str, Any]] = None, freeze_after: Optional[int] = None,
                 max_steps: Optional[int] = None, logdir: Optional[str] = None,
                 tensorboard_every: Optional[int] = None, placement_at: Optional[int] = None) -> None:
        self.options = dict(options or {})
        self.placement_at = placement_at  # trace this run of each session (tfguard run --placement)
        self.freeze_after = freeze_after
        self.max_steps = max_steps
        self.logdir = logdir
        self.tensorboard_every = tensorboard_every
        self.sessions: List[WatchedSession] = []
        self.tensorflow_version: Optional[str] = None
        self.stopped_by_max_steps = False
        self._on_import = OnTensorFlowImport(self._patch_classes)
        self._patched: List[tuple] = []
        self.setup_error: Optional[str] = None
        #: Sessions garbage collected while guarded, ended at the next safe point (not inside
        #: the garbage collector, which may run while our own lock is held).
        self._collected: List[WatchedSession] = []
        self._graphs: List[tuple] = []
        self._graph_count = 0
        #: `tfguard run`'s watch of the program's tf.functions (function_watch.FunctionWatch), set by the CLI.
        self.functions: Optional[Any] = None
        #: `tfguard run`'s watch of the program's Keras calls, callbacks and host syncs (program_watch.ProgramWatch).
        self.program: Optional[Any] = None

    # -- installation ---------------------------------------------------------------
    def install(self) -> None:
        """Patch now if TensorFlow is already loaded, else when the program imports it."""
        self._on_import.install()

    def uninstall(self) -> None:
        """Remove the import hook and the class patches (open guards are left to `finish`)."""
        self._on_import.remove()
        while self._patched:
            cls, original = self._patched.pop()
            cls.__init__ = original

    def _patch_classes(self, tensorflow: Any) -> None:
        try:
            self.tensorflow_version = str(getattr(tensorflow, "__version__", "")) or None
            reason = unsupported_reason(tensorflow)
            if reason is not None:  # TF < 1.15, or a 2.x without compat.v1: run the program unguarded
                self.setup_error = reason
                return
            v1 = tensorflow.compat.v1
            for cls in (v1.Session, v1.InteractiveSession):
                original = cls.__dict__["__init__"]
                cls.__init__ = self._wrap_init(original)
                self._patched.append((cls, original))
        except Exception as exc:  # never break the program over our own set-up
            self.setup_error = "%s: %s" % (type(exc).__name__, exc)
            return
        self._patch_hooked_session()

    def _patch_hooked_session(self) -> None:
        """Wrap the hooks a MonitoredSession runs around each step in `_QuietHook`."""
        try:
            hooked = importlib.import_module("tensorflow.python.training.monitored_session")._HookedSession
            original = hooked.__dict__["__init__"]
        except Exception:  # another TensorFlow layout: hooks' own runs are then counted as runs
            return

        @functools.wraps(original)
        def __init__(session: Any, sess: Any, hooks: Any, *args: Any, **kwargs: Any) -> None:
            try:
                hooks = [_QuietHook(hook) for hook in hooks]
            except Exception as exc:  # the hooks as given: their runs are then counted as steps
                internal_error("MonitoredSession's hooks", exc, "keeping hooks' runs apart")
            original(session, sess, hooks, *args, **kwargs)

        hooked.__init__ = __init__
        self._patched.append((hooked, original))

    def _wrap_init(self, original: Callable) -> Callable:
        watcher = self

        @functools.wraps(original)
        def __init__(session: Any, *args: Any, **kwargs: Any) -> None:
            original(session, *args, **kwargs)
            try:
                watcher._begin(session)
            except Exception as exc:  # this session runs unguarded
                watcher._begin_failed(session, exc)

        return __init__

    # -- one session ------------------------------------------------------------------
    def _graph_number(self, graph: Any) -> int:
        """The number of `graph` among the graphs of the watched sessions (held weakly: graphs are let go)."""
        for ref, number in self._graphs:
            if ref() is graph:
                return number
        self._graphs = [(ref, number) for ref, number in self._graphs if ref() is not None]
        number = self._graph_count = self._graph_count + 1
        self._graphs.append((weakref.ref(graph), number))
        return number

    def _begin_failed(self, session: Any, exc: BaseException) -> None:
        """Guarding `session` could not start: undo what was done, say it once, and let it run unguarded."""
        line = internal_error("Session()", exc)
        try:
            for watched in self.sessions:
                guard = watched.guard
                if guard is not None and guard.session is session:
                    self._give_up(watched, line)
        except Exception:
            pass

    def _give_up(self, watched: WatchedSession, line: str) -> None:
        """Stop guarding `watched` after tfguard's internal error (`line`): no report, its patches undone."""
        watched.failed = line
        guard, watched.guard = watched.guard, None
        if watched.finalizer is not None:
            watched.finalizer.detach()
            watched.finalizer = None
        if guard is not None:
            try:
                if guard._tap is not None:
                    guard._tap.failed = True
                    guard._tap.sinks.clear()
                guard._restore()
            except Exception:  # what cannot be put back calls straight through (SessionTap.failed)
                pass
            if watched.froze_graph:
                try:
                    guard.graph._unsafe_unfinalize()
                except Exception:
                    pass

    def _begin(self, session: Any) -> None:
        self._end_collected()
        site, _ = user_and_api_from_frames(live_stack(sys._getframe(2)))
        created_at = "%s:%d" % (display_path(site[0]), site[1]) if site else "<unknown>"
        number = len(self.sessions) + 1
        logdir = None
        if self.logdir is not None:
            logdir = self.logdir if number == 1 else os.path.join(self.logdir, "session_%d" % number)
        guard = Guard(session, "watch", logdir=logdir, weak_session=True,
                      tensorboard_every=self.tensorboard_every if logdir else None,
                      placement_at=self.placement_at, **self.options)
        guard.__enter__()
        if guard.failed:  # said once by the guard; the session runs unguarded
            watched = WatchedSession(number, created_at, guard)
            watched.guard, watched.failed = None, guard.failed
            self.sessions.append(watched)
            return
        guard.alerts_through_warnings = False  # the program's behaviour must not change
        guard._recorder.follow_busiest_thread = True  # a training loop on a worker thread
        watched = WatchedSession(number, created_at, guard)
        watched.graph_number = self._graph_number(session.graph)
        # Ops this session's set-up adds to a graph an earlier session already ran are growth (across_sessions.py).
        watched.graph_ran_before = any(
            other.graph_number == watched.graph_number and _runs_of(other) > 0 for other in self.sessions)
        watched.finalizer = weakref.finalize(session, self._collected.append, watched)
        self.sessions.append(watched)
        self._wrap_session(session, watched)

    def _wrap_session(self, session: Any, watched: WatchedSession) -> None:
        # The guard's own wrappers are instance attributes; these go on top and vanish with
        # them when the guard exits (the guard restores the attributes it found).
        tapped_run = session.run
        after_run = self._after_run
        shielded = self._shield(watched)

        @functools.wraps(tapped_run)
        def run(*args: Any, **kwargs: Any) -> Any:
            result = tapped_run(*args, **kwargs)
            shielded(after_run)
            return result

        session.run = run
        tapped_make_callable = getattr(session, "make_callable", None)
        if tapped_make_callable is not None:
            @functools.wraps(tapped_make_callable)
            def make_callable(*args: Any, **kwargs: Any) -> Any:
                inner = tapped_make_callable(*args, **kwargs)

                @functools.wraps(inner)
                def counted(*call_args: Any, **call_kwargs: Any) -> Any:
                    result = inner(*call_args, **call_kwargs)
                    if watched.report is None and watched.guard is not None:
                        shielded(after_run)
                    return result

                return counted

            session.make_callable = make_callable
        had_close = "close" in vars(session)
        previous_close = session.close if had_close else None
        original_close = weakly_bound(session.close, session)
        session_ref = weakref.ref(session)  # no reference cycle through the session (see weakly_bound)

        @functools.wraps(original_close)
        def close(*args: Any, **kwargs: Any) -> Any:
            shielded(self.end)
            try:
                closing = session_ref()
                if had_close:
                    closing.close = previous_close
                else:
                    vars(closing).pop("close", None)
            except Exception as exc:  # the wrapper stays; it ends nothing twice (end is idempotent)
                internal_error("Session.close", exc, "guarding this session")
            return original_close(*args, **kwargs)

        session.close = close

    @staticmethod
    def _shield(watched: WatchedSession) -> Callable[[Callable], None]:
        """`shielded(function)` calls `function(watched)`, tfguard's part of a session call: its internal error
        stops guarding that session (safety.py); a BaseException (MaxStepsReached, KeyboardInterrupt) passes."""
        def shielded(function: Callable) -> None:
            try:
                function(watched)
            except Exception as exc:
                reraise_deliberate(exc)
                guard, watched.guard, watched.report = watched.guard, None, None
                watched.failed = "tfguard: internal error in the session watcher"
                tap = getattr(guard, "_tap", None)
                if tap is not None:  # its wrappers call straight through from now on
                    give_up(tap, "the session watcher", exc)
                else:
                    internal_error("the session watcher", exc)
                try:
                    guard._restore()
                except Exception:  # what stays patched checks `failed` and calls through
                    pass

        return shielded

    def _after_run(self, watched: WatchedSession) -> None:
        try:
            self._check_after_run(watched)
        except Exception as exc:  # MaxStepsReached is a BaseException: it passes, as meant
            reraise_deliberate(exc)
            self._give_up(watched, internal_error("Session.run", exc))

    def _check_after_run(self, watched: WatchedSession) -> None:
        guard = watched.guard
        if guard is None or guard._recorder is None or guard._recorder.failed:
            return
        recorder = guard._recorder
        runs = recorder.runs
        if self.freeze_after is not None and not watched.froze_graph and runs >= self.freeze_after:
            if not watched.guard.graph.finalized:
                watched.guard.graph.finalize()
                watched.froze_graph = True
                recorder.finalized_by = "run (tfguard run --freeze-after %d)" % self.freeze_after
        if self.max_steps is not None and runs >= self.max_steps:
            recorder.drain()  # signature counts are brought up to date when queued runs are folded
            dominant = max((sig.count for sig in recorder.signatures.values()), default=0)
            if dominant >= self.max_steps:
                self.stopped_by_max_steps = True
                raise MaxStepsReached("tfguard run --max-steps %d reached" % self.max_steps)

    def end(self, watched: WatchedSession) -> None:
        """Finish one session's guard (idempotent), keep its report and let go of the rest.

        After tfguard's internal error the session has no report (`watched.failed` says why)."""
        if watched.report is not None or watched.guard is None:
            return
        try:
            self._end(watched)
        except Exception as exc:
            self._give_up(watched, internal_error("the end of a session", exc, "reporting this session"))

    def _end(self, watched: WatchedSession) -> None:
        guard = watched.guard
        try:
            guard.__exit__(None, None, None)
        finally:
            if watched.froze_graph:
                guard.graph._unsafe_unfinalize()
                watched.froze_graph = False
            if guard.failed:
                watched.failed = guard.failed
            else:
                watched.report = guard.report
            watched.guard = None
            if watched.finalizer is not None:
                watched.finalizer.detach()
                watched.finalizer = None

    def _end_collected(self) -> None:
        while self._collected:
            self._shield(self._collected.pop(0))(self.end)

    def finish(self) -> List[WatchedSession]:
        """End every session still open, remove the patches, and return all sessions."""
        try:
            self._end_collected()
        except Exception as exc:
            internal_error("the end of the run", exc, "reporting collected sessions")
        for watched in self.sessions:
            self._shield(watched)(self.end)
        try:
            self.uninstall()
        except Exception as exc:
            internal_error("the end of the run", exc, "watching")
        return list(self.sessions)

    def reported(self) -> List[WatchedSession]:
        """The sessions that have a report (not those tfguard failed on)."""
        return [watched for watched in self.sessions if watched.report is not None]
