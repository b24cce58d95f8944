"""A TF2 worker's steps as the cluster view compares them, from its report's `steps` (``tfguard report DIR``).

Under ``MultiWorkerMirroredStrategy`` the workers step together: each step ends with an all-reduce of the
gradients that waits for every worker, so every worker steps at the pace of the slowest and their step times are
alike. What tells the straggler is where its time goes: the others spend the wait inside their step call (the
all-reduce), the straggler spends it on its **own time** per step, which the guard measures apart:

- the time outside its step calls (its loop's Python, taking the next batch from the distributed iterator:
  ``(wall - time in the step) / steps``),
- plus, where the step takes its batches itself (Keras ``fit``: fewer batches taken outside the step than steps),
  the time in its
  input pipeline's Python functions (``tf.numpy_function``, ``tf.py_function``, ``Dataset.from_generator``).

A worker is the straggler when its own time per step is at least the straggler margin times the other workers'
median own time and exceeds it by at least ``SYNC_WAIT_SHARE`` of its step. A worker slowed inside its compiled
step (a slower device) spends no more own time than the others: its wait is theirs, in their all-reduce, and is
not seen here.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from tfguard.runtime.document import format_seconds as _seconds
from tfguard.views.margins import MIN_STEPS, SYNC_WAIT_SHARE


class WorkerSteps:
    """One worker's TF2 step figures (its document's `steps` fact), per step, in seconds."""

    def __init__(self, steps: Dict[str, Any]) -> None:
        self.steps = int(steps.get("steps") or 0)
        self.mode = str(steps.get("mode") or "none")
        self._intervals = sorted(float(v) for v in steps.get("intervals") or [])
        wall = float(steps.get("wall_seconds") or 0.0)
        in_step = float(steps.get("step_seconds") or 0.0)
        count = max(1, self.steps)
        self.outside = max(0.0, wall - in_step) / count if self.mode == "compiled" else None
        self.wall = wall
        self.next_batches = int(steps.get("next_batches") or 0)
        python = sum(float(m.get("python_seconds") or 0.0) for m in steps.get("maps") or [])
        self.input_python = python / count
        writes = steps.get("writes") or []
        self.saves = _writes(writes, ("save",))
        self.summaries = _writes(writes, ("summary", "flush"))

    def step_time(self, key: str) -> Optional[float]:
        """``median`` or ``p95`` of the intervals from one step's start to the next's (None without two steps)."""
        values = self._intervals
        if not values:
            return None
        if key == "median":
            middle = len(values) // 2
            return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2
        return values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]

    @property
    def own_time(self) -> Optional[float]:
        """Seconds per step the worker spends on its own (see the module docstring); None for eager steps."""
        if self.outside is None:
            return None
        return self.outside + (self.input_python if self.next_batches < self.steps else 0.0)

    def own_time_parts(self) -> str:
        """What the own time is made of, in words."""
        if self.next_batches >= self.steps:
            return "outside its step: its loop, taking the next batch"
        return "outside its step, and %s per step in its input pipeline's Python functions inside it" % (
            _seconds(self.input_python))

    def writes_share(self) -> Optional[float]:
        """Checkpoints' and summaries' seconds as a share of the steps' wall time (None without one)."""
        if not self.wall:
            return None
        return (self.saves[1] + self.summaries[1]) / self.wall


def _writes(writes: Sequence[Dict[str, Any]], kinds: Tuple[str, ...]) -> Tuple[int, float]:
    """(count, seconds) of the writes of those kinds."""
    chosen = [w for w in writes if w.get("kind") in kinds]
    return sum(int(w.get("count") or 0) for w in chosen if w.get("kind") != "flush"), \
        sum(float(w.get("seconds") or 0.0) for w in chosen)


def sync_stragglers(workers: Sequence[Tuple[Any, WorkerSteps]], margin: float) -> \
        Tuple[List[Tuple[Any, float, float]], Optional[str]]:
    """([(worker, its own time per step, the others' median)], why no verdict or None), for `workers` given as
    (anything naming the worker, its WorkerSteps)."""
    timed = [(name, w) for name, w in workers if w.steps >= MIN_STEPS and w.own_time is not None
             and w.step_time("median")]
    if len(timed) < 2:
        return [], "fewer than two workers with %d or more compiled steps" % MIN_STEPS
    found = []
    for name, worker in timed:
        others = sorted(w.own_time for n, w in timed if n is not name)
        middle = others[len(others) // 2] if len(others) % 2 else (others[len(others) // 2 - 1] +
                                                                   others[len(others) // 2]) / 2
        own = worker.own_time
        if own >= margin * middle and own - middle >= SYNC_WAIT_SHARE * worker.step_time("median"):
            found.append((name, own, middle))
    return found, None
