"""TFG903's TF2 case: the steps wait for the next batch (a tf.data iterator's `next`, or a pipeline's Python function
run one call at a time) for `host_threshold` of the steps' wall time or more.

The wait is what was measured: an eager `next` on a tf.data iterator (a custom loop's `for x in dataset`), or the
time in the `tf.numpy_function`/`tf.py_function`/`from_generator` functions of a serial `Dataset.map` (Keras `fit`
takes its batches inside its train function, where only those Python functions can be timed). The larger of the two
counts, against the steps' wall time less the checkpoints and summaries written meanwhile (TFG904 and TFG905 judge
those): a loop that saves every step is input-bound all the same when its training time waits on the input. A map
with `num_parallel_calls` overlaps its calls, so its Python time is no wait: silent (choose silence). An iterator's
`next` counts only when the program made a serial `map` (the line to change): on a busy machine the `next` of an
in-memory pipeline with no map took 75% of a loop's time (the wake-up of tf.data's threads), which no change to the
pipeline would fix. A map made after the last step (the pipeline a Keras `predict` makes of its input after
training) fed no step: it is not that map.

A pipeline built of a Python input (a generator, a `keras.utils.PyDataset` or tf_keras `Sequence` given to `fit`,
which Keras reads through `Dataset.from_generator`; a program's own `from_generator`) is timed the same way, in the
Python function that takes its next batch, and named by what it is: blamed where the generator or dataset class is
defined (its `workers` go there), the `fit` line named (tf_keras' Sequence: blamed at `fit`, whose `workers=` is the
change). Given workers (`workers` > 1 or multiprocessing), its batches are made ahead: silent, as a parallel map.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from tfguard.runtime.document import format_seconds
from tfguard.runtime.judge.step_shares import options_of, percent, share_judged, split, where
from tfguard.runtime.record.steps import SiteCost, StepRecord
from tfguard.runtime.tf_access import FROM_GENERATOR, GENERATOR, PY_DATASET
from tfguard.runtime.verdict import Site


def judge(record: StepRecord, diagnostic: Any, options: Optional[Dict[str, Any]] = None) -> List[Any]:
    """TFG903 (`diagnostic`, input_bound.py's declaration) on a TF2 run (see module docstring)."""
    options = options_of(options)
    wall = record.wall()
    if record.steps < options["min_runs"] or wall <= 0:
        return []
    serial = record.serial_maps()
    python_seconds = sum(_waited(cost, record) for _, cost in serial)
    serial_made = record.serial_maps_made()
    samples, sampled = record.loop_input()
    sampled_seconds = record.between_steps() * _lower_bound(sampled[0][1], samples) \
        if samples >= MIN_LOOP_SAMPLES and sampled else 0.0
    waited = max(record.next_seconds if serial_made else 0.0, python_seconds, sampled_seconds)
    written = sum(cost.seconds for cost in record.writes.values())
    training = max(wall - written, waited, 1e-9)
    share = waited / training
    if share < options["host_threshold"]:
        return []
    advice = ("make its map parallel (`num_parallel_calls=tf.data.AUTOTUNE`), end the pipeline with "
              "`.prefetch(tf.data.AUTOTUNE)` so the next batch is made while the step runs, and `.cache()` what is the "
              "same every epoch")
    named: List[Tuple[str, int]] = []
    if sampled_seconds == waited:
        message, site, named = _sampled_message(sampled[0], samples, share, record.steps, training)
    elif python_seconds >= record.next_seconds and serial and serial[0][1].source:
        site, cost = serial[0]
        message, site, named = _source_message(site, cost, share, record.steps, training)
    elif python_seconds >= record.next_seconds and serial:
        site, cost = serial[0]
        message = "input-bound: the steps wait for the next batch for %s of the time — the Python function of the " \
                  "`map` at %s runs one call at a time (%d calls, %s in all, for %d steps that trained %s): %s" % (
                      percent(share), where(site), cost.count, format_seconds(cost.seconds), record.steps,
                      format_seconds(training), advice)
    else:
        site = serial_made[-1]
        loops = sorted(record.next_sites.items(), key=lambda item: -item[1].seconds)
        said = "its map at %s runs one element at a time (iterated at %s)" % (
            where(site), where(loops[0][0] if loops else None))
        message = "input-bound: the steps wait for the next batch for %s of the time (%d batches, %s in the " \
                  "tf.data iterator's next, for %d steps that trained %s) — %s: %s" % (
                      percent(share), record.next_count, format_seconds(record.next_seconds), record.steps,
                      format_seconds(training), said, advice)
    headline, advice = split(message)
    return share_judged([diagnostic.finding(
        headline, None, site[0] if site else None, site[1] if site else None, help=advice,
        named=[Site(path, line) for path, line in named], input_fraction=share,
        input_seconds=waited, next_seconds=record.next_seconds, python_input_seconds=python_seconds,
        sampled_input_seconds=sampled_seconds,
        steps=record.steps, wall_seconds=wall, training_seconds=training)], record, options)



#: What to change, per Python input (tf_access.input_source's kinds; SEQUENCE is tf_keras' `Sequence`).
_SOURCE_ADVICE = {
    GENERATOR: "make the batches ahead of the step: a `keras.utils.PyDataset` with `workers=4` (Keras 3), `fit(..., "
               "workers=4, use_multiprocessing=True)` (tf_keras), or a tf.data pipeline (`from_tensor_slices(...)"
               ".map(..., num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE)`)",
    PY_DATASET: "give it workers so its batches are made ahead of the step (`super().__init__(workers=4, "
                "use_multiprocessing=True)` in its `__init__`), or make them with tf.data (a parallel map, "
                "`.prefetch(tf.data.AUTOTUNE)`, `.cache()` what is the same every epoch)",
    FROM_GENERATOR: "end the pipeline with `.prefetch(tf.data.AUTOTUNE)` so the next batch is made while the step "
                    "runs, move the per-element Python work into a `map` with `num_parallel_calls=tf.data.AUTOTUNE`, "
                    "and `.cache()` what is the same every epoch",
}
#: A custom loop's own Python input: made on tf.data's threads instead, ahead of the step.
_LOOP_ADVICE = "make the batches on tf.data's threads, ahead of the step: `tf.data.Dataset.from_generator(...)` (or " \
               "`from_tensor_slices` with a `map(..., num_parallel_calls=tf.data.AUTOTUNE)`) ending in " \
               "`.prefetch(tf.data.AUTOTUNE)`, iterated by the loop instead"
#: Loop samples needed before a sampled wait is judged (about 0.4 s of the loop at the sampler's 50 a second).
MIN_LOOP_SAMPLES = 20
_SEQUENCE_ADVICE = "let `fit` make its batches ahead in workers (`fit(..., workers=4, use_multiprocessing=True)`), " \
                   "or make them with tf.data (a parallel map, `.prefetch(tf.data.AUTOTUNE)`)"


def _source_message(site: Any, cost: SiteCost, share: float, steps: int, training: float
                    ) -> Tuple[str, Any, List[Tuple[str, int]]]:
    """(message, blamed line, named lines) for a pipeline that reads a Python input one batch at a time: a
    generator or PyDataset is blamed where it is defined (where the change goes), the `fit` line named; tf_keras'
    Sequence at the `fit` call (its `workers` go there); a `Dataset.from_generator` at its own line."""
    kind, defined = cost.source, cost.defined
    if kind == FROM_GENERATOR:
        what = "the generator `%s`%s of the `Dataset.from_generator` at %s" % (
            cost.name, " (defined at %s)" % where(defined) if defined else "", where(site))
        blamed, other = site, defined
    else:
        noun = {GENERATOR: "the Python generator", PY_DATASET: "the PyDataset"}.get(kind, "the Sequence")
        what = "%s `%s`%s given to Keras at %s" % (noun, cost.name, " (defined at %s)" % where(defined)
                                                   if defined else "", where(site))
        blamed, other = (site, defined) if kind not in (GENERATOR, PY_DATASET) or defined is None else (defined, site)
    message = "input-bound: the steps wait for the next batch for %s of the time — %s makes one batch at a time " \
              "(%d calls, %s in all, for %d steps that trained %s): %s" % (
                  percent(share), what, cost.count, format_seconds(cost.seconds), steps, format_seconds(training),
                  _SOURCE_ADVICE.get(kind, _SEQUENCE_ADVICE))
    return message, blamed, [other] if other else []


def _sampled_message(found: Tuple[Any, int], samples: int, share: float, steps: int, training: float
                     ) -> Tuple[str, Any, List[Tuple[str, int]]]:
    """(message, blamed line, named lines) for a Python input the loop itself iterates (sampled): blamed where
    the generator or `__getitem__` is defined, the loop's line named."""
    (kind, name, defined, loop), count = found
    what = "the Python generator `%s`" % name if kind == "generator" else "`%s`" % name
    said = " (defined at %s)" % where(defined) if defined else ""
    message = "input-bound: the steps wait for the next batch for %s of the time — %s%s makes each batch on the " \
              "loop's own thread at %s, between the steps (%d of %d samples of the loop between them, for %d " \
              "steps that trained %s): %s" % (percent(share), what, said, where(loop), count, samples, steps,
                                              format_seconds(training), _LOOP_ADVICE)
    return message, defined or loop, [loop] if defined and loop else []


def _waited(cost: SiteCost, record: StepRecord) -> float:
    """The wait a serial pipeline's Python function stands for: its time; a custom loop's `Dataset.from_generator`
    is read by the loop's own `next`, which was timed: no more than that (a prefetch overlaps the generator). A
    `next` before the first step (a peek at the data) is no loop's: Keras' `fit` reads such a pipeline itself."""
    if cost.source == FROM_GENERATOR and record.loop_nexts()[0]:
        return min(cost.seconds, record.next_seconds)
    return cost.seconds


def _lower_bound(hits: int, samples: int) -> float:
    """The share of `samples` that `hits` stands for, at its lower 95% bound (normal approximation): a sampled
    share is an estimate, and one that leans towards the input (a sleep or I/O lets go of Python's lock, where the
    sampler gets in) — an eager loop over a generator that took 46% of its time was sampled at 54%, judged at 46%."""
    share = hits / float(samples)
    return max(0.0, share - 1.96 * (share * (1.0 - share) / samples) ** 0.5)
