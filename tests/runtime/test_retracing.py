"""TFG908's judgement on synthetic recordings (no TensorFlow): what keeps retracing, what is a bounded handful."""

from __future__ import annotations

from tfguard.runtime.judge import function_retracing as retracing
from tfguard.runtime.judge.function_retracing import ALERT_TRACES, CALLS_PER_NEW_TRACE, LATE_TRACES, RETRACE_THRESHOLD
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.record.functions import Argument, FunctionRecord, changes_between, describe


def _record(traced_at, calls, objects=None, arguments=None):
    """A record whose calls `traced_at` (1-based) traced, `calls` calls in all; `objects[i]`: the tf.function object
    of the i-th trace (default: one object); `arguments[i]`: its arguments (default: `n` = the call number)."""
    record = FunctionRecord("step", "/p/train.py", 3)
    traced = iter(enumerate(traced_at))
    index, next_trace = next(traced, (None, None))
    for call in range(1, calls + 1):
        while next_trace == call:
            serial = objects[index] if objects else 1
            args = arguments[index] if arguments else [("n", Argument("value", str(call)))]
            record.traced(0.01, args, serial, ("/p/train.py", 20))
            index, next_trace = next(traced, (None, None))
        record.called(0.001)
    return record


def test_a_trace_per_call_keeps_retracing():
    record = _record(range(1, 31), 30)
    assert retracing.severity(record) == "warning"
    text = retracing.message(record, "warning")
    assert "30 traces in 30 calls" in text and "argument `n`: Python value 29 -> 30 (29 times)" in text
    assert "defined at" in text and "train.py:3" in text and "called from" in text and "train.py:20" in text
    assert "tf.constant" in retracing.advice(record, "warning") and retracing.advice(record, "info") == ""


def test_a_trace_every_fourth_call_keeps_retracing_where_tensorflow_never_warns():
    record = _record(range(1, 401, 4), 400)
    assert record.traced_call_count == 100 and retracing.severity(record) == "warning"


def test_the_threshold_is_the_threshold():
    assert retracing.severity(_record(range(1, RETRACE_THRESHOLD + 1), RETRACE_THRESHOLD)) == "warning"
    assert retracing.severity(_record(range(1, RETRACE_THRESHOLD), RETRACE_THRESHOLD - 1)) == "info"


def test_a_fixed_set_of_shapes_met_early_is_a_bounded_handful():
    record = _record(range(1, 9), 100)  # 8 shapes in the first 8 calls, then none
    assert retracing.severity(record) == "info"
    assert "bounded handful" in retracing.message(record, "info")


def test_traces_must_still_come_in_the_later_half():
    calls = 100
    one_late = list(range(1, 9)) + [calls // 2 + 1]
    assert LATE_TRACES == 2 and retracing.severity(_record(one_late, calls)) == "info"
    two_late = one_late + [calls]
    assert retracing.severity(_record(two_late, calls)) == "warning"
    exactly_half = list(range(1, 9)) + [calls // 2]  # call 50 of 100 is not in the later half
    assert not retracing.keeps_retracing(_record(exactly_half + [calls], calls))


def test_a_training_flag_is_information():
    args = [[("training", Argument("value", "True"))], [("training", Argument("value", "False"))]]
    record = _record([1, 2], 50, arguments=args)
    assert retracing.severity(record) == "info"
    assert "Python value True -> False (once)" in retracing.message(record, "info")


def test_traced_once_is_not_reported():
    assert retracing.severity(_record([1], 50)) is None
    assert retracing.judge(Evidence(functions=[_record([1], 50)])) == []


def test_a_new_object_per_fold_fit_for_many_steps_is_information():
    folds, steps = 6, 100
    traced_at = [fold * steps + 1 for fold in range(folds)]
    same = [("data", Argument("tensor", "float32[None, 3]"))]
    record = _record(traced_at, folds * steps, objects=list(range(1, folds + 1)), arguments=[same] * folds)
    assert record.objects == folds and record.most_traced_calls_of_one_object == 1
    assert retracing.severity(record) == "info"
    assert "a new tf.function object" in retracing.message(record, "info")


def test_new_objects_used_a_few_calls_each_keep_retracing():
    traced_at = list(range(1, 41, CALLS_PER_NEW_TRACE))  # a new tf.function every 4 calls
    same = [("x", Argument("tensor", "float32[2]"))]
    record = _record(traced_at, 40, objects=list(range(1, len(traced_at) + 1)), arguments=[same] * len(traced_at))
    assert retracing.severity(record) == "warning"
    assert "create the tf.function" in retracing.advice(record, "warning")
    sparser = list(range(1, 41, CALLS_PER_NEW_TRACE + 1))
    record = _record(sparser, 40, objects=list(range(1, len(sparser) + 1)), arguments=[same] * len(sparser))
    assert retracing.severity(record) == "info"


def test_one_object_whose_cache_grows_keeps_retracing_however_many_calls_between():
    epochs, steps = 10, 100  # the epoch passed as a Python int to a step called per batch
    record = _record([epoch * steps + 1 for epoch in range(epochs)], epochs * steps)
    assert record.most_traced_calls_of_one_object == epochs
    assert retracing.severity(record) == "warning"


def test_a_first_call_that_traces_twice_is_one_traced_call():
    record = FunctionRecord("f", "/p/x.py", 1)
    args = [("x", Argument("tensor", "float32[3]"))]
    record.traced(0.01, args, 1, None)
    record.traced(0.01, args, 1, None)  # the same call: once creating variables, once more
    record.called(0.03)
    assert record.traces == 2 and record.traced_call_count == 1 and record.changes == {}


def test_the_live_alert_waits_for_more_traces_than_the_verdict():
    record = _record(range(1, ALERT_TRACES), ALERT_TRACES - 1)
    assert retracing.keeps_retracing(record) and not retracing.alert_due(record)
    record.traced(0.01, [("n", Argument("value", "x"))], 1, ("/p/train.py", 20))
    assert retracing.alert_due(record)
    assert "TFG908" in retracing.alert_message(record) and "train.py:20" in retracing.alert_message(record)
    record.alerted = True
    assert not retracing.alert_due(record)


def test_diagnostics_are_located_at_the_calling_line_warnings_first():
    found = retracing.judge(Evidence(functions=[_record([1, 2], 50), _record(range(1, 31), 30)]))
    assert [d.severity for d in found] == ["warning", "info"]
    assert found[0].path == "/p/train.py" and found[0].line == 20
    evidence = found[0].evidence
    assert evidence["definition_line"] == 3 and evidence["traces"] == 30 and evidence["calls"] == 30
    assert found[0].code == retracing.DIAGNOSTIC.code == "TFG908" and evidence["function"] == "step"


def test_what_changed_in_words():
    shape = changes_between([("x", Argument("tensor", "float32[32, 10]"))],
                            [("x", Argument("tensor", "float32[17, 10]"))])
    dtype = changes_between([("x", Argument("tensor", "float32[3]"))], [("x", Argument("tensor", "float64[3]"))])
    assert shape == [("x", "shape", "float32[32, 10]", "float32[17, 10]")]
    assert dtype == [("x", "dtype", "float32[3]", "float64[3]")]
    assert changes_between([("x", Argument("value", "3"))], [("x", Argument("value", "3"))]) == []


class Literal:
    def __init__(self, value):
        self.value = value


class Weakref:
    def __init__(self, target):
        import weakref

        self._ref = weakref.ref(target)


class Adam:
    pass


def test_trace_types_are_described_without_tensorflow():
    assert describe(Literal(3)) == ("value", "3", "3")
    optimizer, other = Adam(), Adam()
    first, second = describe(Weakref(optimizer)), describe(Weakref(other))
    assert first.kind == "object" and first.description == "object of class Adam"
    assert changes_between([("opt", first)], [("opt", second)]) == [
        ("opt", "object", "object of class Adam", "object of class Adam")]
    assert describe(None).kind == "type"
    del other
    assert describe(Weakref(Adam())).kind == "object"  # freed already: still a new object


def test_a_function_the_live_alert_named_stays_a_warning_in_the_report():
    # 10 traces in its first 10 calls (the alert fires), then 990 calls without one: on the record alone a
    # bounded handful, but the report never contradicts the alert printed while the program ran.
    record = _record(range(1, ALERT_TRACES + 1), 1000)
    assert retracing.severity(record) == "info"
    record.alerted = True
    assert retracing.severity(record) == "warning"
    assert "keeps retracing" in retracing.judge(Evidence(functions=[record]))[0].headline
