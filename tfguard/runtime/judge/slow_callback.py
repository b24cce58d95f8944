"""TFG911 slow-callback: a user's Keras callback whose train-batch hooks take a large share of each batch.

Reads the ProgramRecord of a TF2 run (record/keras_calls.py; the `program` scope's evidence). `fit` runs every
callback's `on_train_batch_begin`/`on_train_batch_end` between its steps, on the same thread: their time adds to
every batch. Keras' own check warns "Callback method `on_train_batch_end` is slow compared to the batch time"
without saying which callback; this names its class and the line it is defined on. One finding per callback class
when:

1. `fit` ran at least `MIN_BATCHES` train batches;
2. the class's batch hooks took, per batch, at least `WARNING_SHARE` of the median batch (a batch: its begin
   hook to the end of its end hook, the train step and every callback's hooks in it; the median, so that the
   batch that traced the train step does not hide the callback): a warning; at least `INFO_SHARE`: information.

Keras' own callbacks (`TensorBoard`, `ModelCheckpoint`, the progress bar) are not judged here: their cost is
the summaries' and the checkpoints' (TFG904, TFG905). A user's subclass of them is judged.
"""

from __future__ import annotations

from typing import List

from tfguard.runtime.diagnostics import RuntimeDiagnostic
from tfguard.runtime.document import display_path, format_seconds
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.record.keras_calls import CallbackTime, ProgramRecord
from tfguard.runtime.verdict import Diagnostic

#: Train batches a run must have for its callbacks to be judged.
MIN_BATCHES = 5
#: Share of the batches' time a callback's hooks take for a warning.
WARNING_SHARE = 0.25
#: ... and for information.
INFO_SHARE = 0.10
#: What to do instead.
HELP = "do its work every N batches (count them in the hook) or in on_epoch_end"


def _hooks_text(callback: CallbackTime, batches: int) -> str:
    return ", ".join("%s per batch in %s" % (format_seconds(seconds / batches), hook)
                     for hook, seconds in sorted(callback.hooks.items(), key=lambda item: -item[1]))


def message(callback: CallbackTime, record: ProgramRecord, share: float) -> str:
    """The finding's headline (its help is `HELP`)."""
    batches = record.train_batches
    return ("callback `%s` (defined at %s:%d) took %.0f%% of each training batch: %s, over %d batches of "
            "%s each (median)" % (
                callback.name, display_path(callback.path), callback.line, 100 * share,
                _hooks_text(callback, batches), batches, format_seconds(record.batch_median_seconds)))


def judge(evidence: Evidence) -> List[Diagnostic]:
    """TFG911 findings, one per user callback class above `INFO_SHARE` (module docstring), the costliest first."""
    record = evidence.program
    if record is None or record.train_batches < MIN_BATCHES or record.batch_median_seconds <= 0:
        return []
    found = []
    for callback in sorted(record.callbacks, key=lambda c: -c.seconds):
        share = min(1.0, callback.seconds / record.train_batches / record.batch_median_seconds)
        if share < INFO_SHARE:
            continue
        level = "warning" if share >= WARNING_SHARE else "info"
        found.append(DIAGNOSTIC.finding(
            message(callback, record, share), level, callback.path, callback.line, help=HELP, callback=callback.name,
            hooks=dict(callback.hooks), seconds=callback.seconds, batches=record.train_batches,
            batch_median_seconds=record.batch_median_seconds, batch_share=share))
    return found


DIAGNOSTIC = RuntimeDiagnostic(
    "TFG911", "slow-callback", "warning", "A Keras callback's per-batch hooks take a large share of every training "
    "batch; names the callback's class and where it is defined.", "slow-callback", judge)
