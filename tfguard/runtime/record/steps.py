"""What the guard keeps of a TF2 training loop: its steps, the waits for the next batch, checkpoints and summaries.

A **step** is one call of the function that applies gradients: a `tf.function` whose trace applied them (a custom
loop's compiled `train_step`, Keras' train function: one call per batch, or per `steps_per_execution` batches), or,
where no compiled function applies them, one eager `apply_gradients` (an eager custom loop, `run_eagerly=True`).
Applies, or calls of two step functions, made in one loop iteration or one call of a Python function (a GAN's two
optimizers, each once per batch) are one step (capture/step_hooks.py's `same_step`): the step ends where the
iteration or call starts again.
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
#: Call times kept per step function (its count and the series stay exact beyond it).
MAX_FUNCTION_SAMPLES = 10000
COMPILED, EAGER, NONE = "compiled", "eager", "none"


class SiteCost(object):
    """Calls made from one line and the seconds they took (a checkpoint, a summary, a map's Python function)."""

    __slots__ = ("count", "seconds", "through", "parallel", "made_at_step", "source", "name", "defined")

    def __init__(self, through: str = "", parallel: Any = None) -> None:
        self.count = 0
        self.seconds = 0.0
        self.through = through
        self.parallel = parallel
        self.made_at_step: Optional[int] = None  # a map: the steps run when it was made (None: not seen made)
        #: For a pipeline that reads a Python input (a generator or PyDataset given to Keras, a
        #: `Dataset.from_generator`): its kind, name and defining line ("", "", None for a map's function).
        self.source = ""
        self.name = ""
        self.defined: Site = None


class StepFunction(object):
    """A `tf.function` whose trace applied gradients: its name and the line of its Python function."""

    __slots__ = ("name", "path", "line", "calls", "samples", "index", "call_site")

    def __init__(self, name: str, path: str, line: int, index: int = 0) -> None:
        self.name = name
        self.path = path
        self.line = line
        self.index = index  # its place among the run's step functions (StepRecord.step_owner holds it per step)
        self.call_site: Site = None  # the user's line that called it first
        self.calls = 0
        self.samples = array("d")  # the seconds of its first MAX_FUNCTION_SAMPLES calls (their median is its step)


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
        self.step_owner = array("l")  # per compiled step kept, its StepFunction's index (the one that started it)
        self.eager_steps = 0
        self.eager_ends = array("d")  # when each eager apply_gradients returned, and the thread's CPU clock then
        self.eager_cpu = array("d")
        self.eager_site: Any = None  # capture.step_hooks.EagerSite of the first eager apply
        self.step_call_site: Site = None  # the user's line that called the compiled step first
        self.next_count = 0
        self.next_seconds = 0.0
        #: Of them, those taken once the steps had begun (count, seconds): read through `loop_nexts()`.
        self.loop_next_count = 0
        self.loop_next_seconds = 0.0
        self.next_sites: Dict[Site, SiteCost] = {}
        self.maps: Dict[Site, SiteCost] = {}  # Dataset.map lines -> their Python functions' time
        self.writes: Dict[Tuple[str, Site, str], SiteCost] = {}  # (kind, line, callback) -> cost
        self.end: Optional[float] = None  # when the run ended (the guard stopped)
        #: Calls of the tf.functions that applied no gradients, outside predict/evaluate, by call key (a code
        #: object): [calls, the seconds of the first MAX_FUNCTION_SAMPLES]. A program that applies no gradients
        #: (inference, a `w.assign_sub` update) has its most called one as its steps (`program_step()`).
        self.other_calls: Dict[Any, List[Any]] = {}
        #: Samples of the stepping thread inside its loop (capture/loop_sampler.py), and of them those taking the
        #: next batch from a Python input: (kind, name, definition (path, line), loop (path, line)) -> samples.
        #: Per sample, the steps made by then and its key's index in `loop_keys` (-1: not input); read through
        #: `loop_input()`, which keeps the samples taken between the first step and the last.
        self.loop_keys: List[Tuple[str, str, Site, Site]] = []
        self.sample_steps = array("l")
        self.sample_keys = array("l")

    # -- filled while the program runs -----------------------------------------------------------------------
    def step_function(self, key: int, name: str, path: str, line: int) -> None:
        """A tf.function object (id `key`) applied gradients in its trace: its calls are steps from now on."""
        if key not in self.functions:
            self.functions[key] = StepFunction(name, path, line, len(self.functions))

    def compiled_step(self, function: StepFunction, start: float, seconds: float, cpu: float,
                      joins: bool = False) -> None:
        """One call of a step function, started at `start` (perf_counter), `cpu`: the thread's CPU clock at its end;
        `joins`: the call is part of the step before it (another step function called in the same loop iteration),
        whose time inside calls it adds to."""
        function.calls += 1
        if function.calls <= MAX_FUNCTION_SAMPLES:
            function.samples.append(seconds)
        if joins and self.compiled_steps:
            if len(self.starts) < MAX_STEPS_KEPT:
                self.seconds[-1] += seconds
                self.thread_cpu[-1] = cpu
            return
        self.compiled_steps += 1
        if len(self.starts) < MAX_STEPS_KEPT:
            self.starts.append(start)
            self.seconds.append(seconds)
            self.thread_cpu.append(cpu)
            self.step_owner.append(function.index)

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
        if self.steps:
            self.loop_next_count += 1
            self.loop_next_seconds += seconds
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

    def input_source(self, site: Site, kind: str, name: str, defined: Site, parallel: Any) -> None:
        """The pipeline timed for `site` reads a Python input of `kind` (`name`, defined at `defined`)."""
        with self._lock:
            cost = self.maps.get(site)
            if cost is None:
                cost = self.maps[site] = SiteCost(parallel=_parallel_text(parallel))
            cost.source, cost.name, cost.defined = kind, name, defined
            cost.parallel = _parallel_text(parallel)

    def python_input(self, seconds: float, site: Site, parallel: Any) -> None:
        """A pipeline's Python function ran `seconds` for the map made at `site` (any thread)."""
        with self._lock:
            cost = self.maps.get(site)
            if cost is None:
                cost = self.maps[site] = SiteCost(parallel=_parallel_text(parallel))
            cost.count += 1
            cost.seconds += seconds

    def loop_sampled(self, key: Any) -> None:
        """One sample of the loop's thread inside its loop (the sampler's thread); `key`: the Python input it was
        taking the next batch from, or None."""
        if len(self.sample_steps) >= MAX_STEPS_KEPT:
            return
        index = -1
        if key == "step":  # capture/loop_sampler.STEP: inside a compiled step's call
            index = -2
        elif key is not None:
            if key not in self.loop_keys:
                self.loop_keys.append(key)
            index = self.loop_keys.index(key)
        self.sample_steps.append(self.steps)
        self.sample_keys.append(index)

    def loop_input(self) -> Tuple[int, List[Tuple[Tuple[str, str, Site, Site], int]]]:
        """(the loop's samples taken between the first step and the last outside the step calls, (key, samples) of
        those that were taking the next batch from a Python input, the most sampled first)."""
        last = self.steps
        total = 0
        counts: Dict[int, int] = {}
        for steps, index in zip(self.sample_steps, self.sample_keys):
            if 0 < steps < last and index != -2:
                total += 1
                if index >= 0:
                    counts[index] = counts.get(index, 0) + 1
        found = [(self.loop_keys[index], count) for index, count in counts.items()]
        return total, sorted(found, key=lambda item: -item[1])

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

    def function_series(self) -> List[Tuple[StepFunction, List[int]]]:
        """(step function, the indices of the kept compiled steps it started) per step function that started any:
        each function's own series (a Keras `fit` then a custom loop's `train_step`: two series, judged apart)."""
        by_index = {function.index: function for function in self.functions.values()}
        found: Dict[int, List[int]] = {}
        for step, owner in enumerate(self.step_owner):
            found.setdefault(owner, []).append(step)
        return [(by_index[owner], steps) for owner, steps in sorted(found.items()) if owner in by_index]

    def between_steps(self) -> float:
        """Seconds the loop spent between its steps: the gaps of compiled steps, an eager loop's whole wall time."""
        return sum(self.gaps()) if self.mode == COMPILED else self.wall()

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

    def other_call(self, key: Any, seconds: float) -> None:
        """One call of a tf.function that applied no gradients (outside predict/evaluate)."""
        found = self.other_calls.get(key)
        if found is None:
            self.other_calls[key] = [1, array("d", (seconds,))]
            return
        found[0] += 1
        if found[0] <= MAX_FUNCTION_SAMPLES:
            found[1].append(seconds)

    def program_step(self) -> Tuple[str, int, List[float]]:
        """(name, calls, call seconds kept) of the program's step function as TFG912 and `pytest --tfguard` count
        steps: the step function called most (a program with a Keras `fit` and a custom loop has two), else, where
        no function applied gradients, the tf.function called most; ("", 0, []) where none was called."""
        function = max(self.functions.values(), key=lambda f: f.calls, default=None)
        if function is not None and function.calls:
            return function.name, function.calls, list(function.samples)
        if self.other_calls:
            key, (calls, samples) = max(self.other_calls.items(), key=lambda item: item[1][0])
            return str(getattr(key, "co_name", key)), calls, list(samples)
        return "", 0, []

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
        samples, loop_input = self.loop_input()
        return {
            "mode": self.mode, "steps": self.steps, "compiled_steps": self.compiled_steps,
            "eager_steps": self.eager_steps, "wall_seconds": self.wall(), "step_seconds": self.step_seconds(),
            "step_functions": [{"function": f.name, "path": f.path, "line": f.line, "calls": f.calls}
                               for f in self.functions.values()],
            "eager_site": dict(site(eager.site), function=eager.function, definition_line=eager.definition,
                               through_keras=eager.through_keras) if eager is not None else None,
            "next_batches": self.next_count, "next_seconds": self.next_seconds,
            "maps": [dict(site(where), parallel=cost.parallel, python_calls=cost.count, python_seconds=cost.seconds,
                          **_source(cost)) for where, cost in self.maps.items()],
            "writes": [dict(site(where), kind=kind, through=cost.through, count=cost.count, seconds=cost.seconds)
                       for (kind, where, _), cost in sorted(self.writes.items(), key=lambda item: -item[1].seconds)],
            "loop_samples": samples,
            "loop_input": [{"kind": kind, "name": name, "path": defined[0] if defined else None,
                            "line": defined[1] if defined else None, "loop_path": loop[0] if loop else None,
                            "loop_line": loop[1] if loop else None, "samples": count}
                           for (kind, name, defined, loop), count in loop_input],
            "intervals": _decimated(intervals), "intervals_per_point": max(1.0, len(intervals) / float(_POINTS)),
            "time_parts": self.time_parts(),
        }

    def sampled_input_seconds(self) -> float:
        """The loop's estimated seconds taking batches from a Python input it iterates itself: the share of its
        stack samples between steps that were doing so, times its time between steps (0.0 without samples).
        A point estimate for the breakdown; TFG903 judges its lower bound (judge/steps_input.py)."""
        samples, found = self.loop_input()
        if not samples or not found:
            return 0.0
        return self.between_steps() * sum(count for _, count in found) / float(samples)

    def input_python_seconds(self) -> float:
        """Seconds in the Python functions of the maps that ran one call at a time (TFG903's measure)."""
        return sum(cost.seconds for _, cost in self.serial_maps())

    def loop_nexts(self) -> Tuple[int, float]:
        """(count, seconds) of the `next`s taken once the steps had begun: the loop's own batches. A peek at the data
        before training (`list(ds.take(1))` to plot a batch) takes none of them, and must not say the loop took its
        batches itself. (A `next` after the last step, Keras' `predict` on a NumPy row, still counts.)"""
        return self.loop_next_count, self.loop_next_seconds

    def time_parts(self) -> Dict[str, Optional[float]]:
        """Where the steps' wall time went, in parts measured apart (the HTML page's breakdown), from the figures
        the judges read: `input` (waiting for the next batch: the iterator's `next` between steps, or a Python
        generator's share of the loop's samples (`sampled_input_seconds`); where the
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
        loop_nexts, loop_next_seconds = self.loop_nexts()
        if self.mode == COMPILED:
            inside = sum(self.seconds)
            between = max(0.0, wall - inside)
            # a Python generator the loop iterates itself is seen by the loop's stack samples, not by a `next`
            taking = min(between, max(loop_next_seconds, self.sampled_input_seconds()))
            # With batches taken between steps, a map's Python time overlaps the steps and the waits (tf.data runs
            # it on its own threads): the wait is `next`'s alone.
            waited = 0.0 if loop_nexts else min(inside, python)
            return {"wall": wall, "input": taking + waited, "step": inside - waited, "saves": saves,
                    "summaries": summaries, "host": max(0.0, between - taking - saves - summaries)}
        waited = min(wall, max(loop_next_seconds if loop_nexts else python, self.sampled_input_seconds()))
        return {"wall": wall, "input": waited, "step": max(0.0, wall - waited - saves - summaries), "saves": saves,
                "summaries": summaries, "host": None}


def _source(cost: SiteCost) -> Dict[str, Any]:
    """The Python input a pipeline reads, for the JSON (nothing for a map's function)."""
    if not cost.source:
        return {}
    return {"source": cost.source, "source_name": cost.name, "source_path": cost.defined[0] if cost.defined else None,
            "source_line": cost.defined[1] if cost.defined else None}


def _parallel_text(parallel: Any) -> Optional[str]:
    """None for a serial map, else its `num_parallel_calls` as text (AUTOTUNE is -1); True: a Python input made
    by workers ("workers")."""
    if parallel is None or parallel is False:
        return None
    if parallel is True:
        return "workers"
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
