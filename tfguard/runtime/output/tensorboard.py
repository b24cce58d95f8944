"""Write a guard's per-step series as TensorBoard scalars, off the training thread.

Events go through `tf.compat.v1.summary.FileWriter` with `Summary` protos built in Python,
so no op is ever added to the user's graph. Points are written once when the guard ends,
or also every `every` runs from a background thread that polls the recorder; the
training thread never writes.
"""

from __future__ import annotations

import threading
from typing import Any, Dict, List, Optional

from tfguard.runtime.record.series import scalar_series
from tfguard.runtime.tf_access import tf_v1

_POLL_SECONDS = 0.5


def validate_tensorboard(logdir: Any, every: Any) -> None:
    """Raise a one-line TypeError/ValueError for a bad `logdir=` / `tensorboard_every=`."""
    if logdir is not None and not isinstance(logdir, str):
        raise TypeError("tfguard logdir must be a folder path (str), not %s" % type(logdir).__name__)
    if every is not None:
        if logdir is None:
            raise ValueError("tfguard tensorboard_every needs logdir")
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError("tfguard tensorboard_every must be a positive int, not %r" % (every,))


def _live_data(recorder: Any) -> Dict[str, Any]:
    """The series keys of a report, copied from a recorder that may still be running."""
    label, series, measure = recorder._trend_series()
    key = "run_series" if measure == "run time" else "series"
    return {
        "dominant_signature": label,
        "slowdown_measure": measure,
        "signatures": [{"label": label, key: {"points": series.points()}}],
        "all_runs_series": {"points": recorder.all_series.points()},
        "host_gap_series": {"points": recorder.gap_series.points()},
    }


class TensorBoardExport:
    """Event-file writer of one guard's `tfguard/*` scalars."""

    def __init__(self, logdir: str, every: Optional[int] = None) -> None:
        self.logdir = logdir
        self.every = every
        self._written: Dict[str, int] = {}
        self._writer: Any = None
        self._thread: Optional[threading.Thread] = None
        self._stop = threading.Event()

    def start(self, recorder: Any) -> None:
        """Open the event file; with `every`, start the background writer thread."""
        v1 = tf_v1()
        # FileWriter refuses to open under eager execution; a private empty graph is enough.
        with v1.Graph().as_default():
            self._writer = v1.summary.FileWriter(self.logdir)
        if self.every:
            self._thread = threading.Thread(target=self._poll, args=(recorder,), name="tfguard-tensorboard",
                                            daemon=True)
            self._thread.start()

    def _poll(self, recorder: Any) -> None:
        try:
            self._poll_until_stopped(recorder)
        except Exception as exc:  # this thread is tfguard's: its error stops the live scalars only
            from tfguard.runtime.safety import internal_error

            internal_error("the TensorBoard writer thread", exc, "writing live scalars")

    def _poll_until_stopped(self, recorder: Any) -> None:
        next_flush = self.every
        while not self._stop.wait(_POLL_SECONDS):
            if recorder.runs < next_flush:
                continue
            next_flush = recorder.runs + self.every
            try:
                data = _live_data(recorder)
            except RuntimeError:  # a dict changed size under us: try again next time
                continue
            self._write(data)

    def close(self, data: Dict[str, Any]) -> None:
        """Stop the thread, write the points not yet written from the final report, close the file."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._writer is None:
            return
        try:
            self._write(data)
        finally:
            self._writer.close()
            self._writer = None

    def _write(self, data: Dict[str, Any]) -> None:
        v1 = tf_v1()
        for tag, points in scalar_series(data).items():
            last = self._written.get(tag, -1)
            fresh: List[tuple] = [(s, v) for s, v in points if s > last]
            for step, value in fresh:
                summary = v1.Summary(value=[v1.Summary.Value(tag=tag, simple_value=float(value))])
                self._writer.add_summary(summary, int(step))
            if fresh:
                self._written[tag] = fresh[-1][0]
        self._writer.flush()
