"""TFG909 eager-training-step: gradients are applied per batch by a step that is never compiled.

An eager step runs every op of the forward pass, the tape and the optimizer one at a time from Python; the same step
under `tf.function` runs as one graph (the TF performance guide's first advice). The step time is measured between
successive `apply_gradients` calls (record/steps.py); the line blamed is where `@tf.function` goes: the definition of
the user's function that applies the gradients (or the `apply_gradients` line at a script's top level, or the
`fit` line when Keras runs the step eagerly because the model was compiled with `run_eagerly=True`).

A program may train in two phases, one compiled and one eager (a Keras `fit`, then a custom loop of plain Python
steps, as the TensorBoard get-started notebook does): the compiled calls are then its steps for the other judges, but
its eager applies are still an eager training step, timed from one eager apply to the next.

When that function applies the gradients inside its own `for`/`while` loop (an epoch function looping over the
batches, as in a lab's `train_epoch`), `@tf.function` on it would trace the whole loop, unrolled over a Python
iterable: the advice is then to move the loop's body into a compiled step, and the line blamed is the
`apply_gradients` line in that loop (found by reading the function's source; silent fallback to the definition).
"""

from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional

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
    """TFG909 when at least MIN_EAGER_STEPS gradients were applied eagerly (whether or not a tf.function applied
    others: the module docstring's two phases)."""
    record = evidence.steps
    if record is None or record.eager_steps < MIN_EAGER_STEPS or record.eager_site is None:
        return []
    ends = record.eager_ends
    intervals = [b - a for a, b in zip(ends, ends[1:])]
    per_step = median_of(intervals[warmup_points(len(intervals)):]) if intervals else None
    site = record.eager_site
    measured = "%d steps, %s per step measured between apply_gradients calls" % (
        record.eager_steps, format_seconds(per_step))
    if record.mode != EAGER:
        measured += "; the program's other %d steps ran compiled" % record.compiled_steps
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
    loop = _loop_around(path, site.definition, site.site[1]) if path and site.site else None
    if loop is not None:
        return _found("the training step runs eagerly: `%s` (defined at %s) applies the gradients at %s, inside its "
                      "loop at line %d, and is never compiled (%s) — move that loop's body (the forward pass, the "
                      "GradientTape and apply_gradients) into a function decorated with @tf.function and call it "
                      "once per batch (@tf.function on `%s` itself would trace its loop, unrolled)" % (
                          site.function, where((path, site.definition)), where(site.site), loop, measured,
                          site.function), path, site.site[1], figures)
    return _found("the training step runs eagerly: `%s` (defined at %s) applies the gradients at %s and is never "
                  "compiled (%s) — put @tf.function on `%s`" % (
                      site.function, where((path, site.definition)) if path else "an unknown line", where(site.site),
                      measured, site.function), path, site.definition, figures)


def _loop_around(path: str, definition: int, line: int) -> Optional[int]:
    """The line of the `for`/`while` loop of the function defined at `definition` that holds `line`, or None.

    Loops of functions nested in it do not count (that inner function is the step). None where the source cannot be
    read or parsed, or no function starts at `definition` (a decorated function's code starts at its decorator)."""
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return None
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    for node in ast.walk(tree):
        if isinstance(node, functions) and definition in {node.lineno} | {d.lineno for d in node.decorator_list}:
            return _loop_holding(node.body, line, functions)
    return None


def _loop_holding(body: List[ast.stmt], line: int, functions: Any) -> Optional[int]:
    """The line of the outermost loop statement in `body` (not inside a nested function) that holds `line`."""
    for statement in body:
        if isinstance(statement, functions) or isinstance(statement, ast.ClassDef):
            continue
        if not statement.lineno <= line <= _last_line(statement):
            continue
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
            return statement.lineno
        inner = [child for field in ("body", "orelse", "finalbody") for child in getattr(statement, field, [])]
        inner += [child for handler in getattr(statement, "handlers", []) for child in handler.body]
        return _loop_holding([child for child in inner if isinstance(child, ast.stmt)], line, functions)
    return None


def _last_line(node: ast.AST) -> int:
    """The statement's last line (`end_lineno` is Python 3.8+; the TF 1.15 leg runs 3.7: the deepest node's line)."""
    end = getattr(node, "end_lineno", None)
    return end if end is not None else max(getattr(n, "lineno", 0) for n in ast.walk(node))


def _found(message: str, path: Any, line: Any, figures: Dict[str, Any]) -> List[Diagnostic]:
    headline, advice = split(message)
    return [DIAGNOSTIC.finding(headline, None, path, line, help=advice, **figures)]


DIAGNOSTIC = RuntimeDiagnostic(
    "TFG909", "eager-training-step", "warning", "Gradients are applied per batch by a training step that is never "
    "compiled with tf.function.", "eager-step", judge)
