"""What the guard keeps of a TF2 training loop: its steps, the waits for the next batch, checkpoints and summaries.

A **step** is one call of the function that applies gradients: a `tf.function` whose trace applied them (a custom
loop's compiled `train_step`, Keras' train function: one call per batch, or per `steps_per_execution` batches), or,
where no compiled function applies them, one eager `apply_gradients` (an eager custom loop, `run_eagerly=True`).
Plain Python, no TensorFlow: capture/step_hooks.py and capture/function_calls.py fill it through
run/step_watch.py, and a test builds one by hand. The judges read it (judge/steps_*.py, judge/eager_training_step.py).
"""

from __future__ import annotations

import threading
from array import array
from typing import Any, Dict, List, Optional, Tuple

Site = Optional[Tuple[str, int]]
#: Step times kept (a longer run keeps its count and totals, and the first ones' times).
MAX_STEPS_KEPT = 500000
COMPILED, EAGER, NONE = "compiled", "eager", "none"


class SiteCost(object):
    """Calls made from one line and the seconds they took (a checkpoint, a summary, a map's Python function)."""

    __slots__ = ("count", "seconds", "through", "parallel", "made_at_step")

    def __init__(self, through: str = "", parallel: Any = None) -> None:
        self.count = 0
        self.seconds = 0.0
        self.through = through
        self.parallel = parallel
        self.made_at_step: Optional[int] = None  # a map: the steps run when it was made (None: not seen made)


class StepFunction(object):
    """A `tf.function` whose trace applied gradients: its name and the line of its Python function."""

    __slots__ = ("name", "path", "line", "calls")

    def __init__(self, name: str, path: str, line: int) -> None:
        self.name = name
        self.path = path
        self.line = line
        self.calls = 0


class StepRecord(object):
    """The facts of one run's steps (see module docstring); `to_dict()` is the JSON document's `steps`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # tf.data's threads report Python input time
        #: id of each step tf.function object -> StepFunction (the objects themselves are not held).
        self.functions: Dict[int, StepFunction] = {}
        self.compiled_steps = 0
        self.starts = array("d")  # a compiled step's start (time.perf_counter), its seconds, the thread's CPU clock
        self.seconds = array("d")
        self.thread_cpu = array("d")
        self.eager_steps = 0
        self.eager_ends = array("d")  # when each eager apply_gradients returned, and the thread's CPU clock then
        self.eager_cpu = array("d")
        self.eager_site: Any = None  # capture.step_hooks.EagerSite of the first eager apply
        self.step_call_site: Site = None  # the user's line that called the compiled step first
        self.next_count = 0
        self.next_seconds = 0.0
        self.next_sites: Dict[Site, SiteCost] = {}
        self.maps: Dict[Site, SiteCost] = {}  # Dataset.map lines -> their Python functions' time
        self.writes: Dict[Tuple[str, Site, str], SiteCost] = {}  # (kind, line, callback) -> cost
        self.end: Optional[float] = None  # when the run ended (the guard stopped)

    # -- filled while the program runs -----------------------------------------------------------------------
    def step_function(self, key: int, name: str, path: str, line: int) -> None:
        """A tf.function object (id `key`) applied gradients in its trace: its calls are steps from now on."""
        if key not in self.functions:
            self.functions[key] = StepFunction(name, path, line)

    def compiled_step(self, function: StepFunction, start: float, seconds: float, cpu: float) -> None:
        """One call of a step function, started at `start` (perf_counter), `cpu`: the thread's CPU clock at its end."""
        function.calls += 1
        self.compiled_steps += 1
        if len(self.starts) < MAX_STEPS_KEPT:
            self.starts.append(start)
            self.seconds.append(seconds)
            self.thread_cpu.append(cpu)

    def eager_step(self, end: float, cpu: float, site: Any) -> None:
        """One eager apply_gradients, returned at `end`."""
        self.eager_steps += 1
        if self.eager_site is None:
            self.eager_site = site
        if len(self.eager_ends) < MAX_STEPS_KEPT:
            self.eager_ends.append(end)
            self.eager_cpu.append(cpu)

    def next_batch(self, seconds: float, site: Site) -> None:
        """An eager `next` on a tf.data iterator from `site`."""
        self.next_count += 1
        self.next_seconds += seconds
        cost = self.next_sites.get(site)
        if cost is None:
            cost = self.next_sites[site] = SiteCost()
        cost.count += 1
        cost.seconds += seconds

    def map_made(self, site: Site, parallel: Any) -> None:
        """A `Dataset.map` made at `site` with `num_parallel_calls=parallel` (None: serial)."""
        with self._lock:
            if site not in self.maps:
                self.maps[site] = SiteCost(parallel=_parallel_text(parallel))
                self.maps[site].made_at_step = self.steps

    def python_input(self, seconds: float, site: Site, parallel: Any) -> None:
        """A pipeline's Python function ran `seconds` for the map made at `site` (any thread)."""
        with self._lock:
            cost = self.maps.get(site)
            if cost is None:
                cost = self.maps[site] = SiteCost(parallel=_parallel_text(parallel))
            cost.count += 1
            cost.seconds += seconds

    def wrote(self, kind: str, seconds: float, site: Site, through: str) -> None:
        """A checkpoint (`save`), summary (`summary`) or flush (`flush`) from `site` (through a Keras callback)."""
        key = (kind, site, through)
        cost = self.writes.get(key)
        if cost is None:
            cost = self.writes[key] = SiteCost(through)
        cost.count += 1
        cost.seconds += seconds

    # -- read by the judges -----------------------------------------------------------------------------------
    @property
    def mode(self) -> str:
        """compiled (a tf.function applies the gradients), eager, or none (no gradients applied)."""
        return COMPILED if self.compiled_steps else EAGER if self.eager_steps else NONE

    @property
    def steps(self) -> int:
        """The number of steps (compiled ones when there are any)."""
        return self.compiled_steps or self.eager_steps

    def intervals(self) -> List[float]:
        """Seconds from one step's start to the next's (eager steps: from one apply to the next)."""
        times = self.starts if self.mode == COMPILED else self.eager_ends
        return [b - a for a, b in zip(times, times[1:])]

    def gaps(self) -> List[float]:
        """Seconds between one compiled step's end and the next's start (the loop's own work); [] when eager."""
        if self.mode != COMPILED:
            return []
        return [max(0.0, b - a - s) for a, b, s in zip(self.starts, self.starts[1:], self.seconds)]

    def cpu_intervals(self) -> List[float]:
        """The stepping thread's CPU seconds from one step to the next."""
        cpu = self.thread_cpu if self.mode == COMPILED else self.eager_cpu
        return [b - a for a, b in zip(cpu, cpu[1:])]

    def wall(self) -> float:
        """Seconds from the first step to the last (compiled: from its start to the last's end)."""
        if self.mode == COMPILED and self.starts:
            return self.starts[-1] + self.seconds[-1] - self.starts[0]
        if self.mode == EAGER and len(self.eager_ends) > 1:
            return self.eager_ends[-1] - self.eager_ends[0]
        return 0.0

    def step_seconds(self) -> float:
        """Seconds inside compiled step calls (eager: the whole wall time)."""
        return sum(self.seconds) if self.mode == COMPILED else self.wall()

    def costs(self, kind: str) -> List[Tuple[Site, SiteCost]]:
        """(site, cost) of the writes of one kind (`save`, `summary`, `flush`), the costliest first."""
        found = [(site, cost) for (k, site, _), cost in self.writes.items() if k == kind]
        return sorted(found, key=lambda item: -item[1].seconds)

    def serial_maps(self) -> List[Tuple[Site, SiteCost]]:
        """(site, cost) of the maps with Python functions that ran one at a time, the costliest first."""
        found = [(site, cost) for site, cost in self.maps.items() if cost.count and cost.parallel is None]
        return sorted(found, key=lambda item: -item[1].seconds)

    def serial_maps_made(self) -> List[Site]:
        """The lines that made a serial `Dataset.map` before the last step, in the order made: a map made after
        every step (Keras `predict`'s own pipeline, an evaluation after training) fed none of them."""
        return [site for site, cost in self.maps.items() if cost.parallel is None
                and (cost.made_at_step is None or cost.made_at_step < self.steps)]

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready facts (the judges' findings are added by run/step_watch.py)."""
        def site(where: Site) -> Dict[str, Any]:
            return {"path": where[0] if where else None, "line": where[1] if where else None}

        eager = self.eager_site
        intervals = self.intervals()
        return {
            "mode": self.mode, "steps": self.steps, "compiled_steps": self.compiled_steps,
            "eager_steps": self.eager_steps, "wall_seconds": self.wall(), "step_seconds": self.step_seconds(),
            "step_functions": [{"function": f.name, "path": f.path, "line": f.line, "calls": f.calls}
                               for f in self.functions.values()],
            "eager_site": dict(site(eager.site), function=eager.function, definition_line=eager.definition,
                               through_keras=eager.through_keras) if eager is not None else None,
            "next_batches": self.next_count, "next_seconds": self.next_seconds,
            "maps": [dict(site(where), parallel=cost.parallel, python_calls=cost.count, python_seconds=cost.seconds)
                     for where, cost in self.maps.items()],
            "writes": [dict(site(where), kind=kind, through=cost.through, count=cost.count, seconds=cost.seconds)
                       for (kind, where, _), cost in sorted(self.writes.items(), key=lambda item: -item[1].seconds)],
            "intervals": _decimated(intervals), "intervals_per_point": max(1.0, len(intervals) / float(_POINTS)),
            "time_parts": self.time_parts(),
        }

    def input_python_seconds(self) -> float:
        """Seconds in the Python functions of the maps that ran one call at a time (TFG903's measure)."""
        return sum(cost.seconds for _, cost in self.serial_maps())

    def time_parts(self) -> Dict[str, Optional[float]]:
        """Where the steps' wall time went, in parts measured apart (the HTML page's breakdown), from the figures
        the judges read: `input` (waiting for the next batch: the iterator's `next` between steps; where the
        program took no batch itself, as Keras takes its batches inside its train function, the Python time of
        its serial maps, which that function waited on), `step` (in the step, less that wait), `saves` and
        `summaries` (checkpoints; summary writes and flushes), `host` (the rest of the time between steps: the
        loop's own Python). Eager steps run inside the loop's Python: their `step` holds the host's time and
        `host` is None. A batch taken or a checkpoint written before the first step or after the last falls
        outside `wall`: the parts can add up to a little more than it."""
        wall = self.wall()
        saves = sum((cost.seconds for _, cost in self.costs("save")), 0.0)
        summaries = sum((cost.seconds for kind in ("summary", "flush") for _, cost in self.costs(kind)), 0.0)
        python = self.input_python_seconds()
        if self.mode == COMPILED:
            inside = sum(self.seconds)
            between = max(0.0, wall - inside)
            taking = min(self.next_seconds, between)
            # With batches taken between steps, a map's Python time overlaps the steps and the waits (tf.data runs
            # it on its own threads): the wait is `next`'s alone.
            waited = 0.0 if self.next_count else min(inside, python)
            return {"wall": wall, "input": taking + waited, "step": inside - waited, "saves": saves,
                    "summaries": summaries, "host": max(0.0, between - taking - saves - summaries)}
        waited = min(wall, self.next_seconds if self.next_count else python)
        return {"wall": wall, "input": waited, "step": max(0.0, wall - waited - saves - summaries), "saves": saves,
                "summaries": summaries, "host": None}


def _parallel_text(parallel: Any) -> Optional[str]:
    """None for a serial map, else its `num_parallel_calls` as text (AUTOTUNE is -1)."""
    if parallel is None:
        return None
    try:
        number = int(parallel)
    except Exception:  # a tensor or another object: parallel, of a size not read here
        return "?"
    return "AUTOTUNE" if number == -1 else None if number <= 1 else str(number)


#: Step intervals the document keeps (means of consecutive ones beyond it).
_POINTS = 500


def _decimated(values: List[float], cap: int = _POINTS) -> List[float]:
    """At most `cap` points: means of consecutive runs of values (the chart of step intervals)."""
    if len(values) <= cap:
        return list(values)
    size = len(values) / float(cap)
    return [sum(values[int(i * size):int((i + 1) * size)]) / max(1, int((i + 1) * size) - int(i * size))
            for i in range(cap)]
