"""The judges of a TF2 run's steps (TFG909, TFG902-905's TF2 cases) on hand-made StepRecords: no TensorFlow."""

from __future__ import annotations

from collections import namedtuple

from tfguard.runtime.judge import all_diagnostics
from tfguard.runtime.judge.eager_training_step import MIN_EAGER_STEPS
from tfguard.runtime.judge.judgement import judge_steps as judged_steps
from tfguard.runtime.output.step_report import render_steps
from tfguard.runtime.record.steps import StepRecord
from tfguard.runtime.verdict import PROGRAM

EagerSite = namedtuple("EagerSite", "site function definition through_keras")
LOOP = ("train.py", 30)


def _compiled(steps=150, step_s=0.01, gap_s=0.002, cpu=lambda i: 0.001 * i):
    record = StepRecord()
    record.step_function(1, "train_step", "train.py", 10)
    function = record.functions[1]
    record.step_call_site = LOOP
    start = 0.0
    for i in range(steps):
        gap = gap_s(i) if callable(gap_s) else gap_s
        record.compiled_step(function, start, step_s, cpu(i))
        start += step_s + gap
    return record


def _eager(steps, site):
    record = StepRecord()
    for i in range(steps):
        record.eager_step(0.05 * i, 0.04 * i, site)
    return record


def judge_steps(record):
    """The findings on a record, each of PROGRAM scope."""
    figures, found = judged_steps(record)
    assert figures["steps"] == record.steps and all(f.scope == PROGRAM for f in found)
    return found


def _codes(findings):
    return [(f.code, f.severity, f.path, f.line) for f in findings]


def test_tfg909_is_declared_and_fails_runs_by_name():
    declared = all_diagnostics()["TFG909"]
    assert (declared.name, declared.fail_on) == ("eager-training-step", "eager-step")


def test_an_eager_step_blames_the_definition_of_its_function():
    site = EagerSite(("train.py", 17), "train_step", 12, False)
    (finding,) = judge_steps(_eager(40, site))
    assert _codes([finding]) == [("TFG909", "warning", "train.py", 12)]
    assert "put @tf.function on `train_step`" in finding.help and "50.0 ms per step" in finding.headline
    assert finding.evidence["apply_line"] == 17


def test_eager_steps_at_top_level_or_under_keras_name_their_own_line_and_fix():
    (top,) = judge_steps(_eager(40, EagerSite(("train.py", 17), "<module>", 1, False)))
    assert (top.line, "top level" in (top.headline + " — " + top.help)) == (17, True)
    (keras,) = judge_steps(_eager(40, EagerSite(("train.py", 40), "<module>", 1, True)))
    assert (keras.line, "run_eagerly=True" in (keras.headline + " — " + keras.help)) == (40, True)


EPOCH_FUNCTION = """\
import tensorflow as tf


def train_epoch(batches):
    for x, y in batches:
        with tf.GradientTape() as tape:
            loss = model(x)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))


@timed
def train_models(x):
    for model, optimizer in pairs:
        optimizer.apply_gradients(grads_of(model, x))
"""


def test_an_epoch_function_that_loops_over_batches_is_told_to_compile_its_loop_body(tmp_path):
    # Field wave f (a lab's grl_training.py): `train_epoch` loops over the batches and applies the gradients in the
    # loop; @tf.function on it would trace the whole epoch unrolled, so the advice names the loop and its body.
    source = tmp_path / "train.py"
    source.write_text(EPOCH_FUNCTION)
    (finding,) = judge_steps(_eager(40, EagerSite((str(source), 9), "train_epoch", 4, False)))
    assert (finding.code, finding.line) == ("TFG909", 9)
    assert "inside its loop at line 5" in finding.headline and "move that loop's body" in finding.help
    assert "put @tf.function on `train_epoch`" not in finding.help


def test_a_loop_is_read_only_in_the_function_that_applies_and_an_unreadable_source_falls_back(tmp_path):
    source = tmp_path / "train.py"
    source.write_text(EPOCH_FUNCTION)
    # a decorated function's code starts at its decorator line (12); a loop over models is a loop body to compile too
    (decorated,) = judge_steps(_eager(40, EagerSite((str(source), 15), "train_models", 12, False)))
    assert "inside its loop at line 14" in decorated.headline
    gone = EagerSite((str(tmp_path / "gone.py"), 17), "train_step", 12, False)
    (fallback,) = judge_steps(_eager(40, gone))
    assert (fallback.line, "put @tf.function on `train_step`" in fallback.help) == (12, True)


def test_a_few_eager_steps_or_a_compiled_step_are_not_judged_eager():
    site = EagerSite(("train.py", 17), "train_step", 12, False)
    assert judge_steps(_eager(MIN_EAGER_STEPS - 1, site)) == []
    assert [f for f in judge_steps(_compiled()) if f.code == "TFG909"] == []


def test_summaries_every_step_warn_when_they_cost_and_are_info_when_cheap():
    record = _compiled()
    for _ in range(150):
        record.wrote("summary", 0.004, ("train.py", 33), "")
        record.wrote("flush", 0.001, ("train.py", 34), "")
    (finding,) = judge_steps(record)
    assert _codes([finding]) == [("TFG904", "warning", "train.py", 33)]
    cheap = _compiled()
    for _ in range(150):
        cheap.wrote("summary", 0.00001, ("train.py", 33), "")
    assert _codes(judge_steps(cheap)) == [("TFG904", "info", "train.py", 33)]
    rare = _compiled()
    for _ in range(10):
        rare.wrote("summary", 0.004, ("train.py", 33), "")
    assert judge_steps(rare) == []


def test_checkpoints_blame_the_callback_that_made_them():
    record = _compiled()
    for _ in range(50):
        record.wrote("save", 0.01, ("fit.py", 22), "ModelCheckpoint")
    (finding,) = judge_steps(record)
    assert _codes([finding]) == [("TFG905", "warning", "fit.py", 22)]
    assert "the `ModelCheckpoint` callback made there" in (finding.headline + " — " + finding.help)
    few = _compiled()
    for _ in range(2):
        few.wrote("save", 0.5, ("fit.py", 22), "")
    assert judge_steps(few) == []


def test_a_serial_python_map_is_input_bound_and_a_parallel_one_is_silent():
    record = _compiled()
    record.map_made(("fit.py", 19), None)
    for _ in range(150):
        record.python_input(0.011, ("fit.py", 19), None)
    (finding,) = judge_steps(record)
    assert _codes([finding]) == [("TFG903", "warning", "fit.py", 19)]
    assert "num_parallel_calls=tf.data.AUTOTUNE" in (finding.headline + " — " + finding.help)
    parallel = _compiled()
    for _ in range(150):
        parallel.python_input(0.011, ("fit.py", 19), -1)
    assert judge_steps(parallel) == []


def test_waiting_on_the_iterator_blames_its_serial_map_and_without_one_is_silent():
    record = _compiled(gap_s=0.02)
    for _ in range(150):
        record.next_batch(0.02, LOOP)
    assert judge_steps(record) == []  # no map to change: the wait may be a busy machine's
    record.map_made(("train.py", 8), -1)
    assert judge_steps(record) == []
    record.map_made(("train.py", 9), None)
    (finding,) = judge_steps(record)
    assert _codes([finding]) == [("TFG903", "warning", "train.py", 9)]
    assert "(iterated at train.py:30)" in (finding.headline + " — " + finding.help)


def test_a_short_run_is_not_judged_for_shares():
    record = _compiled(steps=10)
    for _ in range(10):
        record.wrote("save", 0.05, ("train.py", 40), "")
    (finding,) = judge_steps(record)
    assert finding.severity == "info" and (finding.headline + " — " + finding.help).startswith("not judged:")


def test_steps_slowing_with_growing_own_cpu_time_are_named_at_the_step():
    record = _compiled(steps=400, gap_s=lambda i: 0.00005 * i, cpu=lambda i: 0.00003 * i * i / 2.0)
    (finding,) = judge_steps(record)
    assert _codes([finding]) == [("TFG902", "warning", "train.py", 30)]
    assert finding.evidence["slowdown_cause"] == "python work"


def test_steps_slowing_without_more_cpu_time_are_silent():
    record = _compiled(steps=400, gap_s=lambda i: 0.00005 * i, cpu=lambda i: 0.001 * i)
    assert judge_steps(record) == []


def test_the_text_says_what_the_steps_were_and_where_time_went():
    record = _compiled()
    record.wrote("save", 0.01, ("train.py", 40), "")
    text = render_steps(record.to_dict(), 0)
    assert text.startswith("tfguard TF2 steps: 150 steps (calls of `train_step`, which applies the gradients)")
    assert "1 checkpoint" in text


def test_a_run_with_no_step_says_so_without_timing_a_span_of_no_steps():
    # Field wave f (a predict loop from a TF issue thread): the line read "no step ... in 0.00 us".
    record = StepRecord()
    for _ in range(200):
        record.next_batch(0.006, ("predict.py", 21))
    text = render_steps(record.to_dict(), 0)
    assert text == "tfguard TF2 steps: no step (no gradients applied), 1.20 s getting 200 batches"


def test_steps_slowing_are_not_judged_on_eager_steps_or_a_small_cpu_growth():
    record = StepRecord()
    site = EagerSite(("train.py", 17), "train_step", 12, False)
    for i in range(400):
        record.eager_step(0.01 * i + 0.00003 * i * i, 0.00002 * i * i, site)
    assert [f for f in judge_steps(record) if f.code == "TFG902"] == []
    slight = _compiled(steps=400, gap_s=lambda i: 0.0001 * i, cpu=lambda i: 0.02 * i + 0.0000005 * i * i)
    assert judge_steps(slight) == []  # CPU per step rose x1.04 while wall time per step rose x4: contention
