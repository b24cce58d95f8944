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
pipeline would fix.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from tfguard.runtime.document import format_seconds
from tfguard.runtime.judge.step_shares import options_of, percent, share_judged, split, where
from tfguard.runtime.record.steps import StepRecord


def judge(record: StepRecord, diagnostic: Any, options: Optional[Dict[str, Any]] = None) -> List[Any]:
    """TFG903 (`diagnostic`, input_bound.py's declaration) on a TF2 run (see module docstring)."""
    options = options_of(options)
    wall = record.wall()
    if record.steps < options["min_runs"] or wall <= 0:
        return []
    serial = record.serial_maps()
    python_seconds = sum(cost.seconds for _, cost in serial)
    serial_made = [made for made, cost in record.maps.items() if cost.parallel is None]
    waited = max(record.next_seconds if serial_made else 0.0, python_seconds)
    written = sum(cost.seconds for cost in record.writes.values())
    training = max(wall - written, waited, 1e-9)
    share = waited / training
    if share < options["host_threshold"]:
        return []
    advice = ("make its map parallel (`num_parallel_calls=tf.data.AUTOTUNE`), end the pipeline with "
              "`.prefetch(tf.data.AUTOTUNE)` so the next batch is made while the step runs, and `.cache()` what is the "
              "same every epoch")
    if python_seconds >= record.next_seconds and serial:
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
        headline, None, site[0] if site else None, site[1] if site else None, help=advice, input_fraction=share,
        input_seconds=waited, next_seconds=record.next_seconds, python_input_seconds=python_seconds,
        steps=record.steps, wall_seconds=wall, training_seconds=training)], record, options)

