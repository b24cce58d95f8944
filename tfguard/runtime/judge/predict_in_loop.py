"""TFG910 predict-in-loop: a Keras model's `predict`/`evaluate` called again and again on a few rows.

Reads the ProgramRecord of a TF2 run (record/keras_calls.py; the `program` scope's evidence). Each call of `predict`
builds an input pipeline, a progress bar and a callback list around the model's compiled step (Keras 3 builds and
traces a new `tf.data` pipeline per call); for a handful of rows that is most of the call. Keras' docs: call the
model, `model(x, training=False)`, for small inputs. One finding per calling line and method, when all hold:

1. the line called it at least `LOOP_CALLS` times;
2. on at most `SMALL_ROWS` rows per call (median; an input whose rows are unknown, a dataset or a generator, is
   not judged);
3. a call took at least `OVERHEAD_RATIO` times the model's own compiled call (the median time spent inside the
   predict step's tf.function per call), or the model ran no compiled function (`run_eagerly=True`).

It is a warning when those calls took at least `RUN_SHARE` of the run's wall time, information otherwise.
"""

from __future__ import annotations

from typing import List

from tfguard.runtime.diagnostics import RuntimeDiagnostic
from tfguard.runtime.document import display_path, format_seconds
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.record.keras_calls import ModelCallSite
from tfguard.runtime.verdict import Diagnostic

#: Calls from one line that make a loop.
LOOP_CALLS = 10
#: Rows per call (median) that count as a small input.
SMALL_ROWS = 64
#: A call this many times the model's own compiled call is mostly Keras' per-call work.
OVERHEAD_RATIO = 3.0
#: Share of the run's wall time these calls must take for a warning.
RUN_SHARE = 0.10

_ADVICE = {
    "predict": "call the model instead, `model(x, training=False)` (Keras' advice for small inputs), or collect "
               "the rows and predict once on the whole batch",
    "evaluate": "compute the loss and metrics of a few rows with the model's call (`model(x, training=False)` and "
                "the loss function), or evaluate once on all the rows",
}


def _judged(site: ModelCallSite) -> bool:
    rows = site.median_rows
    if site.calls < LOOP_CALLS or rows is None or rows > SMALL_ROWS:
        return False
    model = site.model_seconds_per_call
    return model is None or site.median_seconds >= OVERHEAD_RATIO * model


def _per_model_call(site: ModelCallSite) -> str:
    model = site.model_seconds_per_call
    if model is None:
        return "the model ran no compiled function (run_eagerly)"
    return "%s in the model's own compiled call (x%.0f)" % (format_seconds(model),
                                                            site.median_seconds / model if model else 0.0)


def message(site: ModelCallSite, share: float) -> str:
    """The finding's headline (its help is `_ADVICE`)."""
    rows = site.median_rows or 0
    traces = ", %d tf.data pipeline traces" % site.dataset_traces if site.dataset_traces else ""
    return ("`%s.%s` called %d times from %s:%d on %s row%s per call: %s per call against %s; %s in all (%.0f%% "
            "of the run)%s" % (
                site.model, site.method, site.calls, display_path(site.path), site.line, "%g" % rows,
                "" if rows == 1 else "s", format_seconds(site.median_seconds), _per_model_call(site),
                format_seconds(site.seconds), 100 * share, traces))


def judge(evidence: Evidence) -> List[Diagnostic]:
    """TFG910 findings, one per calling line judged (module docstring), the costliest first."""
    record = evidence.program
    if record is None:
        return []
    found = []
    for site in sorted(record.model_calls, key=lambda s: -s.seconds):
        if not _judged(site):
            continue
        share = site.seconds / record.wall_seconds if record.wall_seconds > 0 else 0.0
        level = "warning" if share >= RUN_SHARE else "info"
        found.append(DIAGNOSTIC.finding(
            message(site, share), level, site.path, site.line, help=_ADVICE.get(site.method, _ADVICE["predict"]),
            method=site.method, model=site.model,
            calls=site.calls, median_rows=site.median_rows, seconds_per_call=site.median_seconds,
            model_seconds_per_call=site.model_seconds_per_call, seconds=site.seconds, run_share=share,
            dataset_traces=site.dataset_traces))
    return found


DIAGNOSTIC = RuntimeDiagnostic(
    "TFG910", "predict-in-loop", "warning", "A Keras model's `predict`/`evaluate` is called in a loop on a few rows "
    "at a time, each call costing many times the model's own call.", "predict-in-loop", judge)
