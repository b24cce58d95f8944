"""TFG909 eager-training-step: gradients are applied per batch by a step that is never compiled.

An eager step runs every op of the forward pass, the tape and the optimizer one at a time from Python; the same step
under `tf.function` runs as one graph (the TF performance guide's first advice). The step time is measured between
successive `apply_gradients` calls (record/steps.py); the line blamed is where `@tf.function` goes: the definition of
the user's function that applies the gradients (or the `apply_gradients` line at a script's top level, or the
`fit` line when Keras runs the step eagerly because the model was compiled with `run_eagerly=True`).
"""

from __future__ import annotations

from typing import Any, Dict, List

from tfguard.runtime.diagnostics import RuntimeDiagnostic
from tfguard.runtime.document import format_seconds
from tfguard.runtime.judge.step_shares import split, where
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.record.stats import median_of, warmup_points
from tfguard.runtime.record.steps import EAGER
from tfguard.runtime.verdict import Diagnostic

#: Eager steps needed before it is judged (a smoke run of one or two batches proves nothing).
MIN_EAGER_STEPS = 5


def judge(evidence: Evidence) -> List[Diagnostic]:
    """TFG909 when at least MIN_EAGER_STEPS gradients were applied eagerly and no tf.function applied any."""
    record = evidence.steps
    if record is None or record.mode != EAGER or record.eager_steps < MIN_EAGER_STEPS or record.eager_site is None:
        return []
    intervals = record.intervals()
    per_step = median_of(intervals[warmup_points(len(intervals)):]) if intervals else None
    site = record.eager_site
    measured = "%d steps, %s per step measured between apply_gradients calls" % (
        record.eager_steps, format_seconds(per_step))
    figures = dict(steps=record.eager_steps, step_seconds=per_step, apply_path=site.site[0] if site.site else None,
                    apply_line=site.site[1] if site.site else None, function=site.function)
    path = site.site[0] if site.site else None
    if site.through_keras:
        return _found("the training step runs eagerly: Keras applied the gradients outside any tf.function (%s), from "
                      "the call at %s — compile the model without `run_eagerly=True` (Keras then compiles its train "
                      "step)" % (measured, where(site.site)), path, site.site[1] if site.site else None, figures)
    if site.function == "<module>":
        return _found("the training step runs eagerly: gradients applied at %s, at the script's top level, never "
                      "compiled (%s) — move the forward pass, the GradientTape and apply_gradients into a function "
                      "decorated with @tf.function and call it once per batch" % (where(site.site), measured), path,
                      site.site[1] if site.site else None, figures)
    return _found("the training step runs eagerly: `%s` (defined at %s) applies the gradients at %s and is never "
                  "compiled (%s) — put @tf.function on `%s`" % (
                      site.function, where((path, site.definition)) if path else "an unknown line", where(site.site),
                      measured, site.function), path, site.definition, figures)


def _found(message: str, path: Any, line: Any, figures: Dict[str, Any]) -> List[Diagnostic]:
    headline, advice = split(message)
    return [DIAGNOSTIC.finding(headline, None, path, line, help=advice, **figures)]


DIAGNOSTIC = RuntimeDiagnostic(
    "TFG909", "eager-training-step", "warning", "Gradients are applied per batch by a training step that is never "
    "compiled with tf.function.", "eager-step", judge)
