"""`frozen(sess)` and `watch(sess)`: context managers that guard one session."""

from __future__ import annotations

import warnings
import weakref
from threading import get_ident
from typing import Any, List, Optional

from tfguard.runtime.capture import host_sampler
from tfguard.runtime.capture.graph_patch import GraphPatch
from tfguard.runtime.capture.saver_patch import SaverPatch
from tfguard.runtime.capture.session_tap import SessionTap
from tfguard.runtime.capture.writer_patch import WriterPatch
from tfguard.runtime.devices.devicewatch import DeviceWatch
from tfguard.runtime.output.session_report import SessionReport
from tfguard.runtime.output.tensorboard import TensorBoardExport, validate_tensorboard
from tfguard.runtime.record.growth import GrowthSite
from tfguard.runtime.record.recorder import Recorder, validate_options
from tfguard.runtime.run.reporting import alert_repeated, final_report, report_of
from tfguard.runtime.safety import internal_error, reraise_deliberate
from tfguard.runtime.tf_access import tf_v1


class Guard:
    """Records every sess.run of one session for the length of a `with` block.

    In "frozen" mode the session's graph is finalized for the block, and an attempt to
    add an op raises `GraphFrozenError` naming the line; in "watch" mode the graph may
    grow and the guard attributes the growth to source lines. With `logdir`, the per-step
    series are written there as TensorBoard scalars when the block ends (and every
    `tensorboard_every` runs from a background thread). With `placement_at=N`, the N-th run of the
    first fetch signature to get there is traced and the report gets its device placement;
    `sample_gpu` samples NVML GPU utilisation for the block (see devicewatch.py).
    """

    def __init__(self, session: Any, mode: str, logdir: Optional[str] = None,
                 tensorboard_every: Optional[int] = None, placement_at: Optional[int] = None,
                 sample_gpu: bool = True, weak_session: bool = False, **options: Any) -> None:
        if mode not in ("frozen", "watch"):
            raise ValueError("tfguard guard mode must be 'frozen' or 'watch', not %r" % (mode,))
        graph = getattr(session, "graph", None)
        if graph is None or not hasattr(graph, "version") or not callable(getattr(session, "run", None)):
            raise TypeError("tfguard.%s needs a TensorFlow session with .run and .graph, got %s" % (
                mode, type(session).__name__))
        # `tfguard run` holds its guards weakly to their session, so that a session the
        # program dropped is freed as it would be unguarded (and its report kept).
        self._session = weakref.ref(session) if weak_session else (lambda: session)
        self.graph = graph
        self.mode = mode
        self.options = validate_options(options)
        validate_tensorboard(logdir, tensorboard_every)
        self._tensorboard = TensorBoardExport(logdir, tensorboard_every) if logdir is not None else None
        self._devices = DeviceWatch(placement_at, sample_gpu)
        self._recorder: Optional[Recorder] = None
        self._report: Optional[SessionReport] = None
        #: False under `tfguard run`: live alerts go to stderr, never through the warnings machinery.
        self.alerts_through_warnings = True
        self._undo: list = []
        self._finalized_here = False
        self._tap = None
        self._failed: Optional[str] = None

    @property
    def session(self) -> Any:
        """The guarded session (None once collected, for a guard that holds it weakly)."""
        return self._session()

    def __enter__(self) -> "Guard":
        if self._recorder is not None:
            raise RuntimeError("a tfguard guard cannot be entered twice; create a new one")
        try:
            self._enter()
        except Exception as exc:  # the block runs unguarded: tfguard's error is not the program's
            self._failed = internal_error("tfguard.%s" % self.mode, exc)
        return self

    def _enter(self) -> None:
        v1 = tf_v1()
        recorder = Recorder(self.graph, self.mode, get_ident(), self.options)
        self._recorder = recorder
        session = self.session
        try:
            patch = GraphPatch.attach(self.graph, recorder)
            self._undo.append(lambda: patch.detach(recorder))
            SaverPatch.attach(v1.train.Saver)
            self._undo.append(SaverPatch.detach)
            WriterPatch.attach(v1.summary.FileWriter)
            self._undo.append(WriterPatch.detach)
            tap = SessionTap.attach(session, self.graph, recorder, self._grew)
            self._undo.append(lambda: tap.detach(recorder))
            if self.mode == "frozen" and not self.graph.finalized:
                self.graph.finalize()
                self._finalized_here = True
                recorder.finalized_by = "tfguard.frozen block"
            tap.watch_growth = not self.graph.finalized
            self._tap = tap
            self._undo.append(host_sampler.watch(recorder))  # where host time goes (TFG903)
            self._devices.start(recorder.thread)
            self._undo.append(self._devices.stop)
            self._undo.append(self._devices.attach(self.session, self.graph))
            if self._tensorboard is not None:
                self._tensorboard.start(recorder)
        except BaseException:
            self._recorder = None
            self._restore()
            raise

    def _grew(self, grown: List[GrowthSite]) -> None:
        """The session's graph grew at `grown` while the program ran: the live alert of a site turned repeated."""
        alert_repeated(self._recorder, grown, self.alerts_through_warnings)

    @property
    def failed(self) -> Optional[str]:
        """The warning line of tfguard's internal error that stopped this guard, None while it works."""
        if self._failed is None and self._recorder is not None and self._recorder.failed:
            return "tfguard: internal error while guarding"
        return self._failed

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        try:
            self._exit()
        except Exception as error:  # never instead of the block's own outcome
            reraise_deliberate(error)
            self._failed = internal_error("tfguard.%s" % self.mode, error, "guarding this session")
        return False

    def _exit(self) -> None:
        try:
            if self._recorder is not None and not self._recorder.failed:
                self._recorder.finish()
        finally:
            self._restore()
        if self._recorder is not None and not self._recorder.failed:
            self._report = final_report(self._recorder, self._devices, self.alerts_through_warnings)
            if self._tensorboard is not None:
                self._write_tensorboard()

    def _write_tensorboard(self) -> None:
        try:
            self._tensorboard.close(self._report.session.figures)
        except Exception as exc:  # losing the scalars must not hide the user's own outcome
            warnings.warn("tfguard: could not write TensorBoard scalars to %s: %s" % (
                self._tensorboard.logdir, exc), RuntimeWarning, stacklevel=3)

    def _restore(self) -> None:
        try:
            if self._finalized_here:
                self._finalized_here = False
                self.graph._unsafe_unfinalize()
                if self._tap is not None:
                    self._tap.watch_growth = True
        finally:
            while self._undo:
                undo = self._undo.pop()
                try:
                    undo()
                except Exception:  # keep restoring the rest; a failed undo must not hide the user's error
                    pass

    @property
    def report(self) -> SessionReport:
        """The report: final after the block, a live snapshot inside it."""
        if self._report is not None:
            return self._report
        if self.failed:
            raise RuntimeError("no tfguard report: %s" % self.failed)
        if self._recorder is None:
            raise RuntimeError("the guard has not been entered yet")
        return report_of(self._recorder, self._devices)


def frozen(session: Any, logdir: Optional[str] = None, tensorboard_every: Optional[int] = None,
           placement_at: Optional[int] = None, sample_gpu: bool = True, **options: Any) -> Guard:
    """Finalize `session.graph` for a `with` block and record every run (see Guard)."""
    return Guard(session, "frozen", logdir=logdir, tensorboard_every=tensorboard_every,
                 placement_at=placement_at, sample_gpu=sample_gpu, **options)


def watch(session: Any, logdir: Optional[str] = None, tensorboard_every: Optional[int] = None,
          placement_at: Optional[int] = None, sample_gpu: bool = True, **options: Any) -> Guard:
    """Record every run and attribute graph growth to source lines, without finalizing."""
    return Guard(session, "watch", logdir=logdir, tensorboard_every=tensorboard_every,
                 placement_at=placement_at, sample_gpu=sample_gpu, **options)
