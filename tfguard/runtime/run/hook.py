"""`GuardHook`: the guard's recording as a SessionRunHook (imports TensorFlow)."""

from __future__ import annotations

from threading import get_ident
from time import perf_counter
from typing import Any, Callable, Dict, Optional, Tuple

from tfguard.runtime.capture.attrs import instance_attr as _instance_attr
from tfguard.runtime.capture.attrs import restore_attr as _restore_attr
from tfguard.runtime.capture.attrs import weakly_bound
from tfguard.runtime.capture.graph_patch import GraphPatch
from tfguard.runtime.capture.saver_patch import SaverPatch
from tfguard.runtime.capture.writer_patch import WriterPatch
from tfguard.runtime.devices.devicewatch import DeviceWatch, validate_placement_at
from tfguard.runtime.devices.placement import session_devices
from tfguard.runtime.output.session_report import SessionReport
from tfguard.runtime.record.recorder import Recorder, validate_options
from tfguard.runtime.record.signature import feed_keys
from tfguard.runtime.run.reporting import alert_repeated, final_report, report_of
from tfguard.runtime.safety import internal_error, reraise_deliberate
from tfguard.runtime.tf_access import tf_v1

_v1 = tf_v1()


def _shielded(where: str) -> Callable[[Callable], Callable]:
    """A SessionRunHook method of GuardHook: nothing once the hook has failed; an internal error (an `Exception`)
    stops the hook (`GuardHook._fail`: one warning line, patches taken back) and the MonitoredSession goes on."""
    def decorate(method: Callable) -> Callable:
        def call(self: "GuardHook", *args: Any) -> Any:
            if self._failed:
                return None
            try:
                return method(self, *args)
            except Exception as exc:
                self._fail(where, exc)
                return None

        call.__name__ = method.__name__
        call.__doc__ = method.__doc__
        call.__wrapped__ = method  # type: ignore[attr-defined]
        return call

    return decorate


class GuardHook(_v1.train.SessionRunHook):
    """Records runs of a MonitoredSession/Estimator and logs the report table at end().

    A step's run time is the time of the one `Session.run` the MonitoredSession makes for it
    (the caller's fetches and every hook's, merged), timed on the session it created, as
    `tfguard run` and `tfguard.frozen` time it: never the other hooks' `before_run`/`after_run`
    around it (CheckpointSaverHook's save is Saver.save time, the rest host time).

    `placement_at=N` traces the N-th run of the first fetch signature to get there (its device
    placement goes into the report); `sample_gpu` samples NVML GPU utilisation from begin() to end().
    """

    def __init__(self, log: bool = True, placement_at: Optional[int] = None, sample_gpu: bool = True,
                 **options: Any) -> None:
        self.options = validate_options(options)
        self.log = log
        self._placement_at, self._sample_gpu = placement_at, sample_gpu
        validate_placement_at(placement_at)  # a bad value fails here, not in begin()
        self._devices: Optional[DeviceWatch] = None
        self._session_devices: Optional[list] = None
        self._recorder: Optional[Recorder] = None
        self._pending: Dict[int, Tuple[Any, Any, float]] = {}
        self._report: Optional[SessionReport] = None
        self._attached: Optional[Tuple[GraphPatch, Recorder]] = None
        #: Per thread, (run_metadata, start, end) of the latest timed Session.run that had a run_metadata.
        self._timed: Dict[int, Tuple[Any, float, float]] = {}
        #: (session, its previous instance-level `run`) for each session whose runs are timed.
        self._timed_sessions: list = []
        #: tfguard's warning line once it failed internally (safety.py): the hook then does nothing.
        self._failed: Optional[str] = None

    def _fail(self, where: str, exc: BaseException) -> None:
        """Stop: one warning line, the patches taken back; the MonitoredSession goes on unhooked."""
        reraise_deliberate(exc)
        self._failed = internal_error(where, exc)
        if self._recorder is not None:
            self._recorder.failed = True
        try:
            self._detach()
        except Exception:  # what cannot be taken back is left to call through
            pass
        try:
            if self._devices is not None:
                self._devices.stop()
        except Exception:
            pass

    @_shielded("GuardHook.begin")
    def begin(self) -> None:
        """Start recording on the default graph of the session being created; time Saver.save
        (CheckpointSaverHook's saves too) on that graph until end()."""
        self._detach()
        # A GuardHook alerts through the warnings machinery, as tfguard.watch does.
        self._recorder = Recorder(_v1.get_default_graph(), "hook", get_ident(), self.options)
        self._report = None
        if self._devices is not None:
            self._devices.stop()
        self._devices = DeviceWatch(self._placement_at, self._sample_gpu)
        self._devices.start(self._recorder.thread)
        self._attached = (GraphPatch.attach(self._recorder.graph, self._recorder), self._recorder)
        SaverPatch.attach(_v1.train.Saver)
        WriterPatch.attach(_v1.summary.FileWriter)

    @_shielded("GuardHook.after_create_session")
    def after_create_session(self, session: Any, coord: Any) -> None:
        """Take the graph size and clock baseline once the session has built its own ops."""
        recorder = self._recorder
        recorder.nodes_start = recorder.last_version = recorder.graph.version
        recorder.t_start = perf_counter()
        self._time_runs(session)
        if self._devices.armed:
            self._session_devices = session_devices(session)

    def _time_runs(self, session: Any) -> None:
        """Time `session`'s own runs; after_run takes the one its step's `run_metadata` went to."""
        original = getattr(session, "run", None)
        if original is None:
            return
        self._timed_sessions.append((session, _instance_attr(session, "run")))
        original = weakly_bound(original, session)
        timed = self._timed

        def run(fetches, feed_dict=None, options=None, run_metadata=None):
            t0 = perf_counter()
            try:
                return original(fetches, feed_dict, options, run_metadata)
            finally:
                if run_metadata is not None:  # MonitoredSession passes its step's own RunMetadata
                    try:
                        timed[get_ident()] = (run_metadata, t0, perf_counter())
                    except Exception as exc:
                        self._fail("GuardHook's Session.run", exc)

        session.run = run

    def _untime_runs(self) -> None:
        while self._timed_sessions:
            session, previous = self._timed_sessions.pop()
            _restore_attr(session, "run", previous)
        self._timed.clear()

    @_shielded("GuardHook.before_run")
    def before_run(self, run_context: Any) -> None:
        """Note the start of a run and attribute any growth since the last one."""
        recorder = self._recorder
        args = run_context.original_args
        if get_ident() == recorder.thread:
            version = recorder.graph.version
            if version != recorder.last_version:
                alert_repeated(recorder, recorder.on_growth(version), True)
        trace = self._devices.before_run(args) if self._devices.armed else None
        self._pending[get_ident()] = (args.fetches, feed_keys(args.feed_dict), perf_counter())
        return trace

    @_shielded("GuardHook.after_run")
    def after_run(self, run_context: Any, run_values: Any) -> None:
        """Record the run that before_run started."""
        t1 = perf_counter()
        pending = self._pending.pop(get_ident(), None)
        if pending is None:
            return
        if self._devices.armed:
            self._devices.after_run(self._recorder.graph, run_values, self._session_devices)
        fetches, feeds, t0 = pending
        timed = self._timed.pop(get_ident(), None)
        if timed is not None and timed[0] is run_values.run_metadata:
            t0, t1 = timed[1], timed[2]  # the step's Session.run itself, not the hooks around it
        if get_ident() == self._recorder.thread:
            self._recorder.record(fetches, feeds, t0, t1, feed=run_context.original_args.feed_dict)
        else:
            self._recorder.record_other_thread(t1 - t0)

    def _detach(self) -> None:
        self._untime_runs()
        if self._attached is not None:
            patch, recorder = self._attached
            self._attached = None
            patch.detach(recorder)
            SaverPatch.detach()
            WriterPatch.detach()

    @_shielded("GuardHook.end")
    def end(self, session: Any) -> None:
        """Freeze the report, stop timing Saver.save, and log the table."""
        self._recorder.finish()
        self._devices.stop()
        self._detach()
        self._report = final_report(self._recorder, self._devices)
        if self.log:
            _v1.logging.info("tfguard GuardHook report:\n%s", self._report.table())

    @property
    def report(self) -> SessionReport:
        """The report: final after end(), a live snapshot before."""
        if self._report is not None:
            return self._report
        if self._failed:
            raise RuntimeError("no tfguard report: %s" % self._failed)
        if self._recorder is None:
            raise RuntimeError("GuardHook has not been used by a session yet")
        return report_of(self._recorder, self._devices)
