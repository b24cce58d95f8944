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


def _compiled(steps=150, step_s=0.01, gap_s=0.002, cpu=lambda i: 0.001 * i, maps=()):
    """A record of `steps` compiled steps; `maps`: (site, num_parallel_calls) of the maps made before them."""
    record = StepRecord()
    for site, parallel in maps:
        record.map_made(site, parallel)
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


def test_checkpoints_a_hundred_steps_apart_are_a_cadence_said_as_info():
    """The fixed twin of a checkpoint-every-step loop saves every 200 of 1,000 short steps: 5 saves took 11-14% of
    its steps' time on a busy machine, and TFG905 warned on the fix it advises."""
    record = _compiled(steps=1000)
    for _ in range(5):
        record.wrote("save", 0.4, ("train.py", 40), "")
    (finding,) = judge_steps(record)
    assert _codes([finding]) == [("TFG905", "info", "train.py", 40)]
    assert "one per 200 steps" in finding.headline and finding.help == ""
    often = _compiled(steps=1000)
    for _ in range(11):
        often.wrote("save", 0.4, ("train.py", 40), "")
    assert _codes(judge_steps(often)) == [("TFG905", "warning", "train.py", 40)]


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
    def waiting(maps):
        record = _compiled(gap_s=0.02, maps=maps)
        for _ in range(150):
            record.next_batch(0.02, LOOP)
        return record

    assert judge_steps(waiting([])) == []  # no map to change: the wait may be a busy machine's
    assert judge_steps(waiting([(("train.py", 8), -1)])) == []
    (finding,) = judge_steps(waiting([(("train.py", 8), -1), (("train.py", 9), None)]))
    assert _codes([finding]) == [("TFG903", "warning", "train.py", 9)]
    assert "(iterated at train.py:30)" in (finding.headline + " — " + finding.help)


def test_a_serial_map_made_after_the_last_step_fed_none_of_them():
    """Issue 45: the fixed demo twin's parallel pipeline waited on a busy machine, and TFG903 blamed the serial
    map Keras' `predict` made of its input after training, at the predict line."""
    record = _compiled(gap_s=0.02, maps=[(("train.py", 8), -1)])
    for _ in range(150):
        record.next_batch(0.02, LOOP)
    record.map_made(("train.py", 40), None)  # model.predict(...) after the loop
    assert judge_steps(record) == []


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


def _phases(*phases):
    """A record of consecutive phases, each (name, steps, interval, CPU seconds per step or f(i)), each phase the
    calls of its own step function (a Keras `fit`, then a custom loop's `train_step`), called at line 30 + its
    number."""
    record = StepRecord()
    record.step_call_site = LOOP
    start = cpu = 0.0
    for key, (name, steps, interval, cpu_step) in enumerate(phases, 1):
        record.step_function(key, name, "train.py", 10 * key)
        function = record.functions[key]
        function.call_site = ("train.py", 30 + key)
        for i in range(steps):
            cpu += cpu_step(i) if callable(cpu_step) else cpu_step
            record.compiled_step(function, start, interval * 0.8, cpu)
            start += interval
    return record


def test_a_fast_fit_then_slower_custom_loops_are_not_steps_that_got_slower():
    # Issue 47's field test: the phases' steps were one series, whose last fifth was x4 (x8) its first.
    two = _phases(("fit", 150, 0.01, 0.004), ("train_step", 150, 0.04, lambda i: 0.014 + 0.00002 * i))
    three = _phases(("fit", 100, 0.01, 0.004), ("train_step", 100, 0.04, 0.016), ("finetune", 100, 0.08, 0.032))
    assert [f for f in judge_steps(two) + judge_steps(three) if f.code == "TFG902"] == []


def test_a_step_function_whose_own_steps_slow_is_named_after_a_fast_fit():
    # 150 flat steps of `fit`, then 400 of `train_step` whose intervals grow with the loop's own CPU time
    record = StepRecord()
    record.step_call_site = LOOP
    record.step_function(1, "fit", "train.py", 10)
    record.step_function(2, "train_step", "train.py", 20)
    record.functions[2].call_site = ("train.py", 32)
    start = cpu = 0.0
    for i in range(550):
        grown = max(0, i - 150)
        cpu += 0.002 + 0.00003 * grown
        record.compiled_step(record.functions[1 if i < 150 else 2], start, 0.008, cpu)
        start += 0.01 + 0.00005 * grown
    (finding,) = judge_steps(record)
    assert _codes([finding]) == [("TFG902", "warning", "train.py", 32)]
    assert finding.headline.startswith("the steps of `train_step` got x") and "over 400 steps" in finding.headline
    # the chart's edges are indices into the run's intervals: this function's steps start at the 151st
    assert 150 <= finding.evidence["warmup_intervals"] < finding.evidence["first_fifth_end"] < 550


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


def _fed(source, parallel=False, seconds=0.011):
    """A compiled run fed by a Python input given to Keras at fit.py:40 (defined at fit.py:12)."""
    record = _compiled()
    record.input_source(("fit.py", 40), source, "batches", ("fit.py", 12), parallel)
    for _ in range(150):
        record.python_input(seconds, ("fit.py", 40), True if parallel else None)
    return record


def test_a_python_input_given_to_keras_is_blamed_where_the_change_goes():
    (generator,) = judge_steps(_fed("generator"))
    assert _codes([generator]) == [("TFG903", "warning", "fit.py", 12)]
    assert [(s.path, s.line) for s in generator.sites[1:]] == [("fit.py", 40)]
    said = generator.headline + " — " + generator.help
    assert "the Python generator `batches` (defined at fit.py:12) given to Keras at fit.py:40" in said
    assert "`keras.utils.PyDataset` with `workers=4`" in said
    (dataset,) = judge_steps(_fed("PyDataset"))
    assert (dataset.path, dataset.line) == ("fit.py", 12) and "super().__init__(workers=4" in dataset.help
    (sequence,) = judge_steps(_fed("Sequence"))  # tf_keras: its workers go to the fit call
    assert (sequence.path, sequence.line) == ("fit.py", 40) and "fit(..., workers=4" in sequence.help
    assert [(s.path, s.line) for s in sequence.sites[1:]] == [("fit.py", 12)]


def test_a_python_input_made_by_workers_or_fast_is_silent():
    assert judge_steps(_fed("PyDataset", parallel=True)) == []
    assert judge_steps(_fed("generator", seconds=0.001)) == []


def test_a_loops_from_generator_waits_no_longer_than_the_loops_next():
    record = _fed("from_generator")
    for _ in range(150):
        record.next_batch(0.0005, LOOP)  # prefetched: the generator ran while the steps did
    assert judge_steps(record) == []
    slow = _fed("from_generator")
    for _ in range(150):
        slow.next_batch(0.011, LOOP)
    (finding,) = judge_steps(slow)
    assert (finding.path, finding.line) == ("fit.py", 40)
    assert "the generator `batches` (defined at fit.py:12) of the `Dataset.from_generator` at fit.py:40" in \
        finding.help and ".prefetch(tf.data.AUTOTUNE)" in finding.help


def _peeked(steps=150, step_s=0.01, gap_s=0.002):
    """A record whose program took one batch itself (a peek: `list(ds.take(1))`) before `fit` stepped."""
    record = StepRecord()
    record.next_batch(0.1, ("fit.py", 33))
    record.step_function(1, "train_step", "train.py", 10)
    for i in range(steps):
        record.compiled_step(record.functions[1], i * (step_s + gap_s), step_s, 0.001 * i)
    return record


def test_a_peek_at_the_data_before_fit_does_not_cap_its_from_generators_wait():
    # field (keras-io 3D_image_classification.py plots `list(train_dataset.take(1))` before `fit`)
    record = _peeked()
    record.input_source(("fit.py", 40), "from_generator", "batches", ("fit.py", 12), None)
    for _ in range(150):
        record.python_input(0.011, ("fit.py", 40), None)
    assert (record.next_count, record.loop_nexts()) == (1, (0, 0.0))
    (finding,) = judge_steps(record)
    assert (finding.code, finding.path, finding.line) == ("TFG903", "fit.py", 40)


def _sampled(input_share, samples_per_step=2, steps=150, step_samples=1):
    """A compiled loop sampled between its steps: `input_share` of the samples in a generator it iterates."""
    record = StepRecord()
    record.step_function(1, "train_step", "train.py", 10)
    key = ("generator", "batches", ("train.py", 5), LOOP)
    start, made = 0.0, 0
    for i in range(steps):
        record.compiled_step(record.functions[1], start, 0.002, 0.001 * i)
        start += 0.012
        for _ in range(samples_per_step):
            made += 1
            record.loop_sampled(key if made * input_share % 1 < input_share else None)
        for _ in range(step_samples):
            record.loop_sampled("step")
    return record


def test_a_generator_the_loop_iterates_is_named_from_its_samples():
    (finding,) = judge_steps(_sampled(1.0))
    assert _codes([finding]) == [("TFG903", "warning", "train.py", 5)]
    assert [(s.path, s.line) for s in finding.sites[1:]] == [LOOP]
    assert "the Python generator `batches` (defined at train.py:5) makes each batch on the loop's own thread at " \
           "train.py:30" in finding.help and "from_generator" in finding.help
    # between the steps: 10 ms of each 12 ms; the step samples are not the loop's time between them
    assert abs(finding.evidence["sampled_input_seconds"] - 149 * 0.010) < 1e-6
    assert judge_steps(_sampled(0.25)) == []  # a quarter of 10 ms in 12 ms: under half the time
    assert judge_steps(_sampled(1.0, samples_per_step=0, step_samples=0)) == []
    few = _sampled(1.0, samples_per_step=1, steps=15)  # 14 samples between the first step and the last
    assert judge_steps(few) == []
    record = _sampled(1.0)
    assert record.to_dict()["loop_input"] == [
        {"kind": "generator", "name": "batches", "path": "train.py", "line": 5, "loop_path": "train.py",
         "loop_line": 30, "samples": 298}]
