"""The device side of a guard: one traced step (`placement_at=N`) and GPU sampling while guarded.

A `DeviceWatch` belongs to one guard or `GuardHook`. It traces the N-th run of the first fetch
signature to reach N runs (the training step, in a training loop): that run itself, made with a
full-trace `RunOptions`, so no extra step runs. Until then a thin wrapper sits on `session.run`
and counts runs; it takes itself off once the step is traced, so the guard's hot path is
untouched afterwards (and always when `placement_at` is None). Its findings go into the guard's
report (`placement`, `gpu`, TFG906/TFG907, the GPU's share in TFG903) through `contribute`.
"""

from __future__ import annotations

import functools
from threading import get_ident
from time import perf_counter
from typing import Any, Callable, Dict, List, Optional

from tfguard.runtime.devices.gpu import GpuSampler, busy_phrase, describe_gpus
from tfguard.runtime.devices.placement import (
    DEFAULT_COPIES_THRESHOLD,
    placement_blocks,
    read_step,
    session_devices,
    trace_options,
)
from tfguard.runtime.judge.input_bound import DIAGNOSTIC as INPUT_BOUND
from tfguard.runtime.record.signature import describe_fetches, feed_keys, fetch_key
from tfguard.runtime.verdict import Diagnostic

#: The keyword arguments of `Session.run` the traced call passes on (anything else: left untraced).
_RUN_KEYWORDS = frozenset(("feed_dict", "options", "run_metadata"))


def validate_placement_at(value: Any, name: str = "placement_at") -> Optional[int]:
    """None, or a positive whole number; anything else is a one-line ValueError."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError("%s must be a positive whole number (the run to trace), got %r" % (name, value))
    return value


class DeviceWatch:
    """Takes the placement of one step and samples GPUs for one guard (see module docstring)."""

    def __init__(self, placement_at: Optional[int] = None, sample_gpu: bool = True,
                 copies_threshold: int = DEFAULT_COPIES_THRESHOLD) -> None:
        self.placement_at = validate_placement_at(placement_at)
        self.sample_gpu = bool(sample_gpu)
        self.copies_threshold = copies_threshold
        self.placement: Optional[Dict[str, Any]] = None
        self.sampler: Optional[GpuSampler] = None
        self.thread: Optional[int] = None
        self._counts: Dict[Any, int] = {}
        self._due_count: Optional[int] = None
        self._hook_trace: Optional[tuple] = None

    # -- life cycle -------------------------------------------------------------------------------
    def start(self, thread: int) -> None:
        """Start GPU sampling (when asked) for runs made on `thread`."""
        self.thread = thread
        if self.sample_gpu and self.sampler is None:
            self.sampler = GpuSampler().start()

    def stop(self) -> None:
        """Stop GPU sampling (idempotent)."""
        if self.sampler is not None:
            self.sampler.stop()

    @property
    def armed(self) -> bool:
        """True while a step is still to be traced."""
        return self.placement_at is not None and self.placement is None

    def due(self, fetches: Any, feed_dict: Any) -> bool:
        """Count a run of this signature; True when it is (at least) the N-th one and still untraced."""
        try:
            key = (fetch_key(fetches), tuple(map(id, feed_keys(feed_dict))))
        except TypeError:  # an unhashable fetch TensorFlow will reject itself
            return False
        count = self._counts.get(key, 0) + 1
        self._counts[key] = count
        self._due_count = count
        return count >= self.placement_at

    def take(self, graph: Any, metadata: Any, fetches: Any, feed_dict: Any, run_s: Optional[float],
             devices: Optional[List[str]]) -> None:
        """Read the traced run's metadata into the placement report."""
        report = read_step(graph, metadata, label=describe_fetches(fetches, feed_keys(feed_dict)),
                           session_devices=devices, run_s=run_s, copies_threshold=self.copies_threshold,
                           run=self._due_count)
        self.placement = report.to_dict()

    # -- a guard: a wrapper on session.run until the step is traced -------------------------------
    def attach(self, session: Any, graph: Any) -> Callable[[], None]:
        """Wrap `session.run` to trace the N-th run; return the undo. Nothing to wrap without placement_at."""
        if not self.armed:
            return lambda: None
        from tfguard.runtime.tf_access import tf_v1

        v1 = tf_v1()
        inner = session.run
        watch = self

        @functools.wraps(inner)
        def run(fetches, *args, **kwargs):
            if not watch.armed or get_ident() != watch.thread:
                return inner(fetches, *args, **kwargs)
            feed_dict = args[0] if args else kwargs.get("feed_dict")
            if not watch.due(fetches, feed_dict) or len(args) > 3 or not _RUN_KEYWORDS.issuperset(kwargs):
                return inner(fetches, *args, **kwargs)
            options = args[1] if len(args) > 1 else kwargs.get("options")
            metadata = args[2] if len(args) > 2 else kwargs.get("run_metadata")
            if metadata is None:
                metadata = v1.RunMetadata()
            t0 = perf_counter()
            result = inner(fetches, feed_dict=feed_dict, options=trace_options(options), run_metadata=metadata)
            watch.take(graph, metadata, fetches, feed_dict, perf_counter() - t0, session_devices(session))
            unlink()
            return result

        def unlink() -> None:
            if vars(session).get("run") is run:  # still on top: off the hot path again
                session.run = inner

        session.run = run
        return unlink

    # -- GuardHook: the same through SessionRunArgs -----------------------------------------------
    def before_run(self, original_args: Any) -> Any:
        """SessionRunArgs asking for a full trace when this run is the one to trace, else None."""
        self._hook_trace = None
        if not self.armed or get_ident() != self.thread:
            return None
        if not self.due(original_args.fetches, original_args.feed_dict):
            return None
        from tfguard.runtime.tf_access import tf_v1

        self._hook_trace = (original_args.fetches, original_args.feed_dict, perf_counter())
        return tf_v1().train.SessionRunArgs(fetches=None, options=trace_options())

    def after_run(self, graph: Any, run_values: Any, devices: Optional[List[str]]) -> None:
        """Read the trace of the run before_run asked for."""
        pending, self._hook_trace = self._hook_trace, None
        metadata = getattr(run_values, "run_metadata", None)
        if pending is None or metadata is None:
            return
        fetches, feed_dict, t0 = pending
        self.take(graph, metadata, fetches, feed_dict, perf_counter() - t0, devices)

    # -- the guard's report ---------------------------------------------------------------------
    def contribute(self, figures: Dict[str, Any], diagnostics: List[Diagnostic]) -> List[Diagnostic]:
        """Add `placement` and `gpu` to a session's figures; the diagnostics with the GPU's share in TFG903.
        (TFG906/TFG907 are judged on the placement data with the rest: judge/judgement.py.)"""
        figures["placement"] = self.placement
        figures["placement_at"] = self.placement_at
        figures["gpu"] = self.sampler.summary() if self.sampler is not None else None
        busy = busy_phrase(figures["gpu"])
        if not busy:
            return diagnostics
        return [d.with_headline(d.headline + "; meanwhile %s" % busy) if d.code == INPUT_BOUND.code else d
                for d in diagnostics]


def device_blocks(data: Dict[str, Any]) -> List[str]:
    """The guard report's device section: the placement tables and the GPU utilisation lines."""
    blocks = []
    if data.get("placement"):
        blocks.extend(placement_blocks(data["placement"]))
    elif data.get("placement_at"):
        blocks.append("placement: not traced (no fetch signature reached %d runs through session.run)"
                      % data["placement_at"])
    lines = describe_gpus(data.get("gpu"))
    if lines:
        blocks.append("GPU utilisation\n  " + "\n  ".join(lines))
    return blocks
