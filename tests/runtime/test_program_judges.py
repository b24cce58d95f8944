"""TFG910-TFG912 judged on synthetic ProgramRecords (no TensorFlow): the edges of each threshold."""

from __future__ import annotations

import pytest

from tfguard.runtime.judge import all_diagnostics, host_syncs_per_step, predict_in_loop, slow_callback
from tfguard.runtime.judge.judgement import judge_program
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.record.keras_calls import (
    CallbackTime,
    HostSyncSite,
    KerasCallRecorder,
    ModelCallSite,
    ProgramRecord,
)
from tfguard.runtime.record.steps import StepRecord

GPU = "/job:localhost/replica:0/task:0/device:GPU:0"
CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def record(**fields):
    base = dict(wall_seconds=10.0, model_calls=[], callbacks=[], train_batches=0, batch_seconds=0.0,
                batch_median_seconds=0.0, host_syncs=[], step_name="train_step", steps=0, step_seconds=0.0)
    base.update(fields)
    return ProgramRecord(**base)


def judged(module, program):
    """`module`'s findings on a program's evidence."""
    return module.judge(Evidence("program", program=program))


def predict_site(calls=20, rows=1, seconds_per_call=0.05, model_per_call=0.002, method="predict"):
    site = ModelCallSite(method, "Sequential", "/work/agent.py", 42, calls=calls, seconds=calls * seconds_per_call,
                         function_calls=calls if model_per_call else 0, dataset_traces=3 * calls)
    site.rows = [rows] * calls
    site.per_call = [seconds_per_call] * calls
    site.function_per_call = [model_per_call] * calls if model_per_call else []
    site.function_seconds = sum(site.function_per_call)
    return site


def codes(found):
    return [(d.code, d.severity, d.line) for d in found]


def test_the_three_fail_on_their_names_and_judge_only_a_program():
    declared = all_diagnostics()
    assert [declared[c].fail_on for c in ("TFG910", "TFG911", "TFG912")] == [
        "predict-in-loop", "slow-callback", "host-syncs"]
    assert all(declared[c].judge(Evidence()) == [] for c in ("TFG910", "TFG911", "TFG912"))


def test_predict_per_sample_taking_a_tenth_of_the_run_is_a_warning_on_the_calling_line():
    found = judged(predict_in_loop, record(model_calls=[predict_site(calls=20, seconds_per_call=0.05)]))
    assert codes(found) == [("TFG910", "warning", 42)]
    evidence = found[0].evidence
    assert (evidence["calls"], evidence["median_rows"], evidence["dataset_traces"]) == (20, 1, 60)
    assert "called 20 times from" in found[0].headline and "60 tf.data pipeline traces" in found[0].headline


@pytest.mark.parametrize("change, expected", [
    (dict(calls=predict_in_loop.LOOP_CALLS - 1), []),  # not a loop
    (dict(rows=predict_in_loop.SMALL_ROWS + 1), []),  # a batch big enough for predict
    (dict(rows=predict_in_loop.SMALL_ROWS), ["warning"]),
    (dict(seconds_per_call=0.05, model_per_call=0.02), []),  # the model itself costs most of the call
    (dict(seconds_per_call=0.06, model_per_call=0.02), ["warning"]),  # exactly OVERHEAD_RATIO
    (dict(model_per_call=0.0), ["warning"]),  # run_eagerly: no compiled call to compare with
    (dict(seconds_per_call=0.01), ["info"]),  # 0.2 s of a 10 s run
])
def test_predict_edges(change, expected):
    params = dict(calls=20, seconds_per_call=0.05, model_per_call=0.002)
    params.update(change)
    found = judged(predict_in_loop, record(model_calls=[predict_site(**params)]))
    assert [d.severity for d in found] == expected


def test_unknown_rows_a_dataset_input_is_not_judged():
    site = predict_site()
    site.rows = []
    assert judged(predict_in_loop, record(model_calls=[site])) == []


def test_evaluate_gets_its_own_advice():
    (found,) = judged(predict_in_loop, record(model_calls=[predict_site(method="evaluate")]))
    assert "`Sequential.evaluate`" in found.headline and "evaluate once on all the rows" in found.help


def callback(seconds_per_batch, batches=20, name="SlowLogger"):
    return CallbackTime(name, "/work/train.py", 12, {"on_train_batch_end": seconds_per_batch * batches}, batches)


@pytest.mark.parametrize("per_batch, expected", [
    (0.025, ["warning"]), (0.0249, ["info"]), (0.0101, ["info"]), (0.0099, [])])
def test_callback_share_of_the_median_batch(per_batch, expected):
    found = judged(slow_callback, record(callbacks=[callback(per_batch)], train_batches=20, batch_seconds=3.0,
                                       batch_median_seconds=0.1))
    assert [d.severity for d in found] == expected
    if found:
        assert (found[0].path, found[0].line) == ("/work/train.py", 12)
        assert found[0].headline.startswith("callback `SlowLogger` (defined at /work/train.py:12)")


def test_too_few_batches_are_not_judged():
    assert judged(slow_callback, record(callbacks=[callback(0.5, batches=4)], train_batches=4, batch_seconds=2.0,
                                      batch_median_seconds=0.5)) == []


def test_the_costliest_callback_comes_first():
    found = judged(slow_callback, record(callbacks=[callback(0.03, name="A"), callback(0.06, name="B")],
                                       train_batches=20, batch_seconds=2.0, batch_median_seconds=0.1))
    assert [d.evidence["callback"] for d in found] == ["B", "A"]


def sync(count=100, device=GPU, dtype="float32", size=1, kind="__float__", line=30):
    return HostSyncSite("/work/train.py", line, kind, count, device, dtype, size)


def sync_record(*sites, steps=100, step_seconds=0.01):
    return record(host_syncs=list(sites), steps=steps, step_seconds=step_seconds)


def test_a_float_loss_synced_every_short_gpu_step_is_a_warning():
    (found,) = judged(host_syncs_per_step, sync_record(sync()))
    assert codes([found]) == [("TFG912", "warning", 30)]
    assert "float(t) at /work/train.py:30 copies a tensor to the host 1.0 times per step" in found.headline
    assert "on GPU:0" in found.headline


@pytest.mark.parametrize("site, step_seconds, why", [
    (sync(device=CPU), 0.01, "on the CPU"),
    (sync(dtype="int64"), 0.01, "cannot avoid"),  # a gym-style action
    (sync(dtype="bool"), 0.01, "cannot avoid"),
    (sync(size=4), 0.01, "cannot avoid"),  # Q-values for a NumPy argmax
    (sync(), host_syncs_per_step.SHORT_STEP_S * 2, "hides a short stall"),
])
def test_syncs_that_do_not_cost_are_information_saying_why(site, step_seconds, why):
    (found,) = judged(host_syncs_per_step, sync_record(site, step_seconds=step_seconds))
    assert found.severity == "info" and why in found.headline


def test_fewer_syncs_than_steps_or_too_few_steps_are_not_judged():
    assert judged(host_syncs_per_step, sync_record(sync(count=99))) == []
    assert judged(host_syncs_per_step, sync_record(sync(count=9), steps=9)) == []


def test_syncs_of_one_line_are_counted_together():
    (found,) = judged(host_syncs_per_step, sync_record(sync(count=50, kind="numpy"), sync(count=50, kind="__str__")))
    assert found.evidence["syncs"] == 100 and found.evidence["written"] == [".numpy()", "print(t)"]


def test_judge_program_gives_the_figures_and_the_three_in_code_order_in_the_program_scope():
    figures, found = judge_program(record(model_calls=[predict_site()], callbacks=[callback(0.05)],
                                          train_batches=20, batch_seconds=2.0, batch_median_seconds=0.1,
                                          host_syncs=[sync()], steps=100, step_seconds=0.01))
    assert [(d.code, d.scope) for d in found] == [("TFG910", "program"), ("TFG911", "program"), ("TFG912", "program")]
    assert figures["steps"] == {"name": "train_step", "count": 100, "seconds": 0.01}
    assert all(d.help for d in found if d.severity == "warning")


def test_the_recorder_reads_its_steps_from_the_one_step_series_or_keras_batches():
    recorder, steps = KerasCallRecorder(), StepRecord()
    steps.step_function(1, "train", "/work/a.py", 4)
    steps.step_function(2, "finetune", "/work/a.py", 9)
    for step in range(5):
        steps.compiled_step(steps.functions[1], step, 0.01 if step else 0.5, 0.0)  # the first call traced
    steps.compiled_step(steps.functions[2], 6.0, 0.5, 0.0)
    assert recorder.recording().steps == 0  # no step series given: no steps
    for _ in range(9):
        steps.other_call("eval", 0.3)  # more calls of a function that applies no gradients: no step while some does
    made = recorder.recording(steps)
    assert (made.steps, made.step_name, made.step_seconds) == (5, "train", 0.01)
    for _ in range(8):
        recorder.batch_ran(0.02)
    made = recorder.recording(steps)
    assert (made.steps, made.step_name, made.batch_median_seconds) == (8, "Keras train batch", 0.02)
    updates = StepRecord()  # a loop that applies no gradients (w.assign_sub): its most called tf.function
    for _ in range(3):
        updates.other_call("update", 0.01)
    updates.other_call("report", 0.2)
    assert KerasCallRecorder().recording(updates).steps == 3
    assert KerasCallRecorder().recording(updates).step_name == "update"
    recorder.model_called("predict", "Sequential", ("/work/a.py", 3), 1, 0.05, 0.002, 1, 3)
    recorder.model_called("predict", "Sequential", ("/work/a.py", 3), None, 0.05, 0.0, 0, 3)
    (site,) = recorder.recording().model_calls
    assert (site.calls, site.rows, site.dataset_traces, site.model_seconds_per_call) == (2, [1], 6, 0.002)
    assert recorder.recording().to_dict()["model_calls"][0]["median_rows"] == 1
