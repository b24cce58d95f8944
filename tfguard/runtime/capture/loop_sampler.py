"""Sample what a TF2 custom loop's thread does between its steps: is it taking the next batch from a Python input?

A plain Python generator (`for x, y in batches(): step(x, y)`) or a `keras.utils.PyDataset`/`Sequence` indexed in
the loop makes its batches on the loop's own thread, where no TensorFlow call can time them, and patching the
program's generator is out of the question (the guard never changes the program). So a daemon thread wakes every
`INTERVAL_S` and reads the loop thread's stack (`sys._current_frames()`): nothing runs on the program's thread. A
sample is the loop's when one of the loop's frames (the code that calls the step; `loop_codes`) is on the stack;
it is the input's when the first program frame inside the loop frame is a generator's (its code has the generator
flag), a `__next__` or a `__getitem__` (Keras' own `PyDataset.__iter__` between them counts as the library it is).

The sink gets `loop_sampled(key)`: `key` is STEP for a sample inside a compiled step's call (the guard's wrapper of
`Function.__call__` on the stack, inside the loop frame or not), None for other work of the loop, else (kind, name,
(path, definition line), (path, line) of the loop); kind is "generator" or "getitem". An error stops the sampling
only. A thread waiting for the GIL is sampled when it gets it: samples lean towards code that releases it (a
sleep, I/O), so the judge weighs the input's samples against the loop's samples between the steps, and multiplies
by the measured time between the steps, never by the run's wall time alone.
"""

from __future__ import annotations

import inspect
import sys
import threading
from typing import Any, Iterable, Optional, Tuple

from tfguard.runtime.record.tracebacks import is_library_file

#: Seconds between samples: about 50 a second, a few microseconds of stack reading each, off the program's thread.
INTERVAL_S = 0.02
#: Frames read per sample.
_DEPTH = 64
_INPUT_METHODS = frozenset(("__next__", "__getitem__"))
GENERATOR, GETITEM, STEP = "generator", "getitem", "step"


def input_key(frame: Any, loop_codes: Iterable[Any], step_code: Any = None) -> Tuple[bool, Any]:
    """(whether a loop frame is on the stack from `frame` out, the input key of this sample, STEP inside a step
    call (`step_code`: the guard's wrapper of a tf.function call), or None); see the module docstring."""
    codes = set(loop_codes)
    chain = []
    while frame is not None and len(chain) < _DEPTH:
        code = frame.f_code
        if code in codes:
            return True, _classify(chain, frame)
        if code is step_code:
            return True, STEP
        chain.append(frame)
        frame = frame.f_back
    return False, None


def _classify(chain: list, loop: Any) -> Optional[tuple]:
    """The input key of the frames inside the loop frame (innermost first in `chain`), or None."""
    for frame in reversed(chain):  # from the loop's child inwards: the first program frame decides
        code = frame.f_code
        if is_library_file(code.co_filename):
            continue
        if code.co_flags & inspect.CO_GENERATOR:
            kind = GENERATOR
        elif code.co_name in _INPUT_METHODS:
            kind = GETITEM
        else:
            return None
        # the qualified name (`Batches.__getitem__`, Python 3.11+): never the frame's locals, which reading from
        # another thread would write into the running frame
        name = code.co_name
        if kind == GETITEM:
            name = ".".join(getattr(code, "co_qualname", name).split(".")[-2:])
        return (kind, name, (code.co_filename, code.co_firstlineno), (loop.f_code.co_filename, loop.f_lineno))
    return None


class LoopSampler:
    """One sampling thread for one loop thread; `stop()` ends it (idempotent)."""

    def __init__(self, sink: Any, thread_id: int, loop_codes: Tuple[Any, ...], step_code: Any = None) -> None:
        self._sink = sink
        self._thread_id = thread_id
        self._codes = loop_codes
        self._step_code = step_code
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="tfguard-loop-sampler", daemon=True)

    def start(self) -> None:
        """Start sampling."""
        self._thread.start()

    def stop(self) -> None:
        """Stop sampling (the thread ends at its next wake-up)."""
        self._stop.set()

    def _loop(self) -> None:
        try:
            while not self._stop.wait(INTERVAL_S):
                frame = sys._current_frames().get(self._thread_id)
                if frame is None:  # the loop's thread has ended
                    return
                in_loop, key = input_key(frame, self._codes, self._step_code)
                frame = None  # hold no frame while asleep: it keeps the program's locals alive
                if in_loop:
                    self._sink.loop_sampled(key)
        except Exception as exc:  # tfguard's thread: its error stops the sampling only
            from tfguard.runtime.safety import internal_error

            internal_error("the TF2 loop sampler", exc, "sampling the loop's input")
