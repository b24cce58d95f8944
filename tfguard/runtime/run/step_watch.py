"""`tfguard run`'s watch of a TF2 program's training loop: its steps, input waits, checkpoints and summaries.

One sink for capture/function_calls.py (the calls of the step functions) and capture/step_hooks.py (gradients
applied, batches taken, writes), filling one `StepRecord` (record/steps.py), judged at the end
(judge/judgement.py's `judge_steps`).
With `max_steps`, the step that reaches it finishes and the program is stopped (`stop_type`, a BaseException the
runner catches), as `--max-steps` stops a session program.
"""

from __future__ import annotations

import sys
import time
import weakref
from typing import Any, Dict, Optional

from tfguard.runtime import tf_access
from tfguard.runtime.capture import function_calls, step_hooks
from tfguard.runtime.capture.import_hook import OnTensorFlowImport
from tfguard.runtime.judge.judgement import judge_steps
from tfguard.runtime.record.steps import StepRecord


class StepWatch:
    """Follows a TF2 training loop while started (see module docstring)."""

    def __init__(self, max_steps: Optional[int] = None, stop_type: Optional[type] = None,
                 options: Optional[Dict[str, Any]] = None) -> None:
        self.record = StepRecord()
        self.max_steps = max_steps
        self.stop_type = stop_type
        self.options = dict(options or {})
        self.stopped_by_max_steps = False
        self.failed = False
        #: id of a step tf.function object -> (a weak reference to it, its StepFunction).
        self._steps: Dict[int, Any] = {}
        self._on_import = OnTensorFlowImport(self._tensorflow_loaded)
        self._clock = time.perf_counter
        self._cpu = time.thread_time

    def start(self) -> None:
        """Follow the loop from now (or from when the program imports TensorFlow)."""
        self._on_import.install()
        step_hooks.attach(self)

    def stop(self) -> None:
        """Stop following (idempotent); the record stays."""
        self._on_import.remove()
        function_calls.detach(self)
        step_hooks.detach(self)

    def _tensorflow_loaded(self, _tensorflow: Any) -> None:
        function_calls.attach(self)

    # -- the sink of capture/function_calls ----------------------------------------------------------------
    def called(self, key: Any, seconds: float, function: Any = None) -> None:
        """One finished tf.function call: a step when that function object applies gradients."""
        entry = self._steps.get(id(function))
        if entry is None or entry[0]() is not function:
            return
        end = self._clock()
        record = self.record
        if record.step_call_site is None:
            record.step_call_site = step_hooks.user_site(sys._getframe(2))[0]
        record.compiled_step(entry[1], end - seconds, seconds, self._cpu())
        self._count(record.compiled_steps)

    def traced(self, *args: Any) -> None:
        """A trace (capture/function_calls): nothing to keep here (function_watch.py keeps traces)."""

    # -- the sink of capture/step_hooks ----------------------------------------------------------------------
    def applied(self, function: Any, site: Any) -> None:
        """Gradients applied: in the trace of `function` (its calls are steps), or eagerly (`site`)."""
        if function is not None:
            if id(function) not in self._steps:
                key = tf_access.call_key(function)
                name = getattr(key, "co_name", None) or getattr(function, "__name__", "?")
                self._steps[id(function)] = (weakref.ref(function), None)
                self.record.step_function(id(function), str(name), getattr(key, "co_filename", "?"),
                                          getattr(key, "co_firstlineno", 0))
                self._steps[id(function)] = (weakref.ref(function), self.record.functions[id(function)])
            return
        # Kept even beside compiled steps (a program may train in a compiled phase and an eager one, TFG909), but
        # counted for --max-steps only where no compiled step exists (then the compiled calls are the steps).
        self.record.eager_step(self._clock(), self._cpu(), site)
        if not self.record.compiled_steps:
            self._count(self.record.eager_steps)

    def next_batch(self, seconds: float, site: Any) -> None:
        """An eager tf.data `next`."""
        self.record.next_batch(seconds, site)

    def map_made(self, site: Any, parallel: Any) -> None:
        """A Dataset.map made."""
        self.record.map_made(site, parallel)

    def python_input(self, seconds: float, site: Any, parallel: Any) -> None:
        """A pipeline's Python function ran."""
        self.record.python_input(seconds, site, parallel)

    def wrote(self, kind: str, seconds: float, site: Any, through: str) -> None:
        """A checkpoint, summary or flush."""
        self.record.wrote(kind, seconds, site, through)

    def _count(self, steps: int) -> None:
        if self.max_steps is not None and steps >= self.max_steps and self.stop_type is not None:
            self.stopped_by_max_steps = True
            self.stop()
            raise self.stop_type()

    # -- results ---------------------------------------------------------------------------------------------
    @property
    def saw_training(self) -> bool:
        """Whether the program applied gradients, took a batch or wrote a checkpoint or summary while watched."""
        record = self.record
        return bool(record.steps or record.next_count or record.writes or any(c.count for c in record.maps.values()))

    def judged(self) -> Any:
        """(the steps' figures, the run's `steps` fact; their diagnostics, PROGRAM scope)."""
        figures, found = judge_steps(self.record)
        figures["failed"] = self.failed
        return figures, found
