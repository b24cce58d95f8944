"""`tfguard run`'s watch of a TF2 program's training loop: its steps, input waits, checkpoints and summaries.

One sink for capture/function_calls.py (the calls of the step functions) and capture/step_hooks.py (gradients
applied, batches taken, writes), filling one `StepRecord` (record/steps.py), judged at the end
(judge/judgement.py's `judge_steps`). capture/loop_sampler.py samples the stepping thread (a Python generator or
PyDataset the loop iterates makes its batches there, where nothing else can time them): an eager loop from its
first step, a compiled one once its time between steps is a quarter of its wall time (`_sample_if_host_bound`).
With `max_steps`, the step that reaches it finishes and the program is stopped (`stop_type`, a BaseException the
runner catches), as `--max-steps` stops a session program.
"""

from __future__ import annotations

import sys
import threading
import time
import weakref
from typing import Any, Dict, Optional, Tuple

from tfguard.runtime import tf_access
from tfguard.runtime.capture import function_calls, keras_calls, step_hooks
from tfguard.runtime.capture.import_hook import OnTensorFlowImport
from tfguard.runtime.capture.loop_sampler import LoopSampler
from tfguard.runtime.judge.judgement import judge_steps
from tfguard.runtime.record.steps import StepRecord

#: A compiled loop is sampled (capture/loop_sampler.py) once its time between steps is this share of its wall time
#: (half of TFG903's threshold: the judge needs the samples before the share reaches it), checked at the
#: SAMPLE_AFTER_STEPS-th step and each power of two after.
SAMPLE_SHARE = 0.25
SAMPLE_AFTER_STEPS = 16


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
        self._sampler: Optional[LoopSampler] = None
        self._loop: Optional[Tuple[int, Tuple[Any, ...]]] = None  # the stepping thread and the loop's codes
        #: Where the last step function was called (step_hooks.loop_position), read once a run has two of them.
        self._called_at: Tuple[Any, ...] = ()

    def start(self) -> None:
        """Follow the loop from now (or from when the program imports TensorFlow)."""
        self._on_import.install()
        step_hooks.attach(self)
        if self._sampler is not None and self._loop is not None:  # started again: sampled again
            self._sampler = None
            self._sample_loop(self._loop[1], self._loop[0])

    def stop(self) -> None:
        """Stop following (idempotent); the record stays."""
        self._on_import.remove()
        function_calls.detach(self)
        step_hooks.detach(self)
        if self._sampler is not None:
            self._sampler.stop()

    def _tensorflow_loaded(self, _tensorflow: Any) -> None:
        function_calls.attach(self)

    # -- the sink of capture/function_calls ----------------------------------------------------------------
    def called(self, key: Any, seconds: float, function: Any = None) -> None:
        """One finished tf.function call: a step when that function object applies gradients, else a call of
        another function (outside a predict/evaluate), the steps of a program that applies none."""
        entry = self._steps.get(id(function))
        if entry is None or entry[0]() is not function:
            if not keras_calls.in_model_call():  # a predict/evaluate's calls are the model's, not the loop's
                self.record.other_call(key, seconds)
            return
        end = self._clock()
        record = self.record
        function_record = entry[1]
        if function_record.call_site is None:
            function_record.call_site = step_hooks.user_site(sys._getframe(2))[0]
        if record.step_call_site is None:
            record.step_call_site = function_record.call_site
            self._loop = (threading.get_ident(), tuple(step_hooks.user_codes(sys._getframe(2), 2)))
        # Two step functions called in one loop iteration (a GAN's) are one step: where each call is made is read
        # once a run has two of them, and at each function's first call (the second function's first call may be
        # in the first one's iteration); a later call of the only one forgets it (a `fit` then a loop: no join).
        joins = False
        if len(record.functions) > 1 or not function_record.calls:
            position = step_hooks.loop_position(sys._getframe(2))
            joins = step_hooks.same_step(self._called_at, position)
            self._called_at = position
        elif self._called_at:
            self._called_at = ()
        record.compiled_step(function_record, end - seconds, seconds, self._cpu(), joins)
        if joins:
            return
        steps = record.compiled_steps
        if steps >= SAMPLE_AFTER_STEPS and not steps & (steps - 1) and self._sampler is None:
            self._sample_if_host_bound()
        self._count(steps)

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
        if self._sampler is None:  # an eager step's time is all the loop's own: sampled from the first
            self._sample_loop(step_hooks.user_codes(sys._getframe(1), 2))
        if not self.record.compiled_steps:
            self._count(self.record.eager_steps)

    def next_batch(self, seconds: float, site: Any) -> None:
        """An eager tf.data `next`, unless a Keras `predict`/`evaluate` takes it (its batches feed no step)."""
        if not keras_calls.in_predict_or_evaluate():
            self.record.next_batch(seconds, site)

    def map_made(self, site: Any, parallel: Any) -> None:
        """A Dataset.map made."""
        self.record.map_made(site, parallel)

    def input_source(self, site: Any, kind: str, name: str, defined: Any, parallel: Any) -> None:
        """The pipeline timed for `site` reads a Python input (a generator, a PyDataset, a Sequence)."""
        self.record.input_source(site, kind, name, defined, parallel)

    def python_input(self, seconds: float, site: Any, parallel: Any) -> None:
        """A pipeline's Python function ran."""
        self.record.python_input(seconds, site, parallel)

    def wrote(self, kind: str, seconds: float, site: Any, through: str) -> None:
        """A checkpoint, summary or flush."""
        self.record.wrote(kind, seconds, site, through)

    def _sample_if_host_bound(self) -> None:
        """Start sampling a compiled loop (at its 16th, 32nd, 64th... step) once the time between its steps is
        `SAMPLE_SHARE` of its wall time or more: a loop that waits on its device is never sampled (the sampling
        thread's wake-ups, about 3% of a 0.3 ms step on a busy 2-core machine, are then no cost of the program)."""
        record = self.record
        wall = record.wall()
        if self._loop is not None and wall > 0 and sum(record.gaps()) >= SAMPLE_SHARE * wall:
            self._sample_loop(self._loop[1], self._loop[0])

    def _sample_loop(self, codes: Any, thread: Optional[int] = None) -> None:
        """Sample the loop from now: its frame is the program's function that calls the step (or applies the
        gradients) or the one that calls that one (a loop that calls its own `run_step`)."""
        if codes and self._sampler is None:
            self._loop = (thread or threading.get_ident(), tuple(codes))
            self._sampler = LoopSampler(self.record, self._loop[0], self._loop[1], function_calls.call_code())
            self._sampler.start()

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
