"""TFG908 on what programs nobody here wrote do (issue 47): which line to blame and name, which change leads, when
a handful of traces is bounded; and what the mutation sample of issue 46 found untested. Synthetic records, no
TensorFlow.

Mutation sample of ``tfguard/runtime/judge/function_retracing.py``: ``python tools/mutate_judges.py --module
tfguard/runtime/judge/function_retracing.py --limit 60 --tests tests/runtime/test_retracing.py
tests/runtime/test_retracing_causes.py`` (seed 39) kills 60 of 60; no survivor is judged equivalent.
"""

from __future__ import annotations

from tfguard.runtime.judge import function_retracing as retracing
from tfguard.runtime.judge.function_retracing import CALLS_PER_NEW_TRACE
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.record.functions import Argument, FunctionRecord

KERAS = "/venv/lib/python3.12/site-packages/keras/src/backend/tensorflow/trainer.py"


def _value(name, value):
    return [(name, Argument("value", repr(value)))]


def _tensor(name="x", shape="float32[2]"):
    return [(name, Argument("tensor", shape))]


def test_a_function_created_per_call_names_the_line_that_creates_it():
    record = FunctionRecord("step", "/p/train.py", 4)
    for call in range(1, 9):  # a factory called in the loop at line 20, its function called at line 21
        record.traced(0.01, _tensor(), call, ("/p/train.py", 21), (), ("/p/train.py", 20))
        record.called(0.001)
    (found,) = retracing.judge(Evidence(functions=[record]))
    assert found.severity == "warning" and (found.path, found.line) == ("/p/train.py", 21)
    assert [(s.path, s.line) for s in found.sites[1:]] == [("/p/train.py", 20), ("/p/train.py", 4)]
    assert "created again at /p/train.py:20" in found.headline or "created again at p/train.py:20" in found.headline
    # the first object is no creation "again": 7 of the 8 were
    assert record.created_sites == {("/p/train.py", 20): 7}
    assert record.to_dict()["created_at"] == [{"path": "/p/train.py", "line": 20, "objects": 7}]


def test_keras_own_function_is_named_at_the_users_lines_not_inside_keras():
    record = FunctionRecord("multi_step_on_iterator", KERAS, 151)
    for call in range(1, 9):  # a model built per image (line 30) and predicted on (line 31)
        record.traced(0.01, _tensor("iterator", "float32[1, 3]"), call, ("/p/infer.py", 31), (), ("/p/infer.py", 30))
        record.called(0.001)
    (found,) = retracing.judge(Evidence(functions=[record]))
    assert (found.path, found.line) == ("/p/infer.py", 31)
    assert [(s.path, s.line) for s in found.sites[1:]] == [("/p/infer.py", 30)]  # never keras/src
    assert "keras/src" not in found.headline and "a function of keras" in found.headline
    assert "keras/src" not in retracing.alert_message(record)


def test_a_keras_model_built_per_call_is_named_where_it_is_built():
    record = FunctionRecord("one_step_on_data_distributed", KERAS, 279)
    for call in range(1, 9):  # `model = make_model()` at line 30, `model.predict(x)` at line 31: a model per call
        record.traced(0.01, _tensor("data", "float32[1, 3]"), call, ("/p/infer.py", 31), (), ("/p/infer.py", 31),
                      (100 + call, ("/p/infer.py", 30)))
        record.called(0.001)
    (found,) = retracing.judge(Evidence(functions=[record]))
    assert found.severity == "warning" and (found.path, found.line) == ("/p/infer.py", 31)
    assert [(s.path, s.line, s.role) for s in found.sites[1:]] == [("/p/infer.py", 30, "named")]
    assert "the model is built again at" in found.headline and "infer.py:30 for each call" in found.headline
    assert "build the Keras model once" in found.help and "infer.py:30" in found.help
    assert "keras/src" not in found.headline
    assert record.built_sites == {("/p/infer.py", 30): 7}  # the first model is not built "again"
    assert record.to_dict()["built_at"] == [{"path": "/p/infer.py", "line": 30, "models": 7}]


def test_a_model_compiled_again_is_not_said_to_be_built_again():
    record = FunctionRecord("multi_step_on_iterator", KERAS, 151)
    for call in range(1, 9):  # one model (serial 7, built at line 5), compiled again before each fit
        record.traced(0.01, _tensor(), call, ("/p/fit.py", 9), (), ("/p/fit.py", 9), (7, ("/p/fit.py", 5)))
        record.called(0.001)
    (found,) = retracing.judge(Evidence(functions=[record]))
    assert found.severity == "warning" and record.built_sites == {}
    assert "built again" not in found.headline and [s.line for s in found.sites] == [9]
    # every 3rd function of a new model: said as how many models, not "for each call"
    mixed = FunctionRecord("multi_step_on_iterator", KERAS, 151)
    for call in range(1, 10):
        mixed.traced(0.01, _tensor(), call, ("/p/fit.py", 9), (), ("/p/fit.py", 9), (call // 3, ("/p/fit.py", 5)))
        mixed.called(0.001)
    assert mixed.built_sites == {("/p/fit.py", 5): 3}
    assert "the model is built again at" in retracing.message(mixed, "warning")
    assert "fit.py:5 (3 times)" in retracing.message(mixed, "warning")


def test_train_and_test_functions_built_from_one_python_function_are_not_created_again():
    record = FunctionRecord("multi_step_on_iterator", KERAS, 151)
    train, test = ("train_step",), ("test_step",)  # the variants: what the one Python function closes over
    for epoch in range(3):
        record.traced(0.01, _tensor(), 1, ("/p/fit.py", 9), train) if epoch == 0 else None
        for _ in range(10):
            record.called(0.001)
        record.traced(0.01, _tensor(), 2, ("/p/fit.py", 9), test) if epoch == 0 else None
        record.called(0.001)
    assert record.changes == {} and record.objects == 2
    text = retracing.message(record, "info")
    assert "created again" not in text and "2 functions made from one Python function" in text
    record.traced(0.01, _tensor(), 3, ("/p/fit.py", 9), train)  # a model compiled again: its train function anew
    assert [c.kind for c in record.top_changes()] == ["new-function"]


def test_new_objects_alternating_a_training_flag_do_not_blame_the_flag():
    record = FunctionRecord("call", "/p/model.py", 7)
    for call in range(1, 21):  # a model built per batch, called with training=True, then False
        record.traced(0.01, _tensor() + _value("training", call % 2 == 1), call, ("/p/loop.py", 12), ())
        record.called(0.001)
    (change,) = record.top_changes()
    assert change.kind == "new-function" and change.count == 19
    assert "training" not in retracing.message(record, "warning").split("what changed:")[1]


def test_what_keeps_changing_leads_the_changes():
    record = FunctionRecord("step", "/p/train.py", 3)
    for call in range(1, 21):  # a flag alternating on every call, a learning rate decayed on every call
        args = _value("training", call % 2 == 0) + _value("mode", "a" if call % 2 else "b") + _value("lr", 0.9 ** call)
        record.traced(0.01, args, 1, ("/p/train.py", 20))
        record.called(0.001)
    leading = record.top_changes()[0]
    assert leading.argument == "lr" and len(leading.values) == 19
    text = retracing.message(record, "warning")
    assert "argument `lr`" in text.split(";")[1] and "and 1 more" in text  # the float leads, a flag is the "more"
    assert record.to_dict()["changes"][0]["argument"] == "lr"


def test_a_shape_cycling_through_nine_values_in_twenty_calls_is_not_bounded():
    record = FunctionRecord("step", "/p/train.py", 3)
    for call in range(1, 21):
        shape = call % 9
        if call <= 9:  # each of the 9 shapes traces once, the next cycle hits the cache
            record.traced(0.01, _tensor(shape="float32[%d]" % shape), 1, ("/p/train.py", 20))
        record.called(0.001)
    assert record.traced_call_count == 9 and retracing.severity(record) == "warning"
    # the same nine shapes met early in a run long enough to show the set is bounded: information
    longer = FunctionRecord("step", "/p/train.py", 3)
    for call in range(1, 9 * CALLS_PER_NEW_TRACE + 2):
        if call <= 9:
            longer.traced(0.01, _tensor(shape="float32[%d]" % call), 1, ("/p/train.py", 20))
        longer.called(0.001)
    assert retracing.severity(longer) == "info"


def test_one_function_called_from_several_lines_is_blamed_where_the_literals_retrace():
    record = FunctionRecord("scale", "/p/prog.py", 5)
    record.traced(0.01, _tensor() + _value("factor", 2), 1, ("/p/prog.py", 10))  # tensors first: traces that
    record.called(0.001)  # cannot be avoided
    record.traced(0.01, _tensor(shape="float32[3]") + _value("factor", 2), 1, ("/p/prog.py", 11))
    record.called(0.001)
    for line in (12, 13, 14, 15):  # then a Python literal on each line: a trace each
        record.traced(0.01, _tensor(shape="float32[3]") + _value("factor", line), 1, ("/p/prog.py", line))
        record.called(0.001)
    found = retracing.judge(Evidence(functions=[record]))[0]
    assert (found.path, found.line) == ("/p/prog.py", 12)
    assert [s.line for s in found.sites[1:]] == [13, 14, 15, 5]
    assert record.top_changes()[0].argument == "factor"


# -- what the mutation sample of issue 46 found untested ------------------------------------------------------


def _traced_at(traced_at, calls, site=("/p/train.py", 20)):
    record = FunctionRecord("step", "/p/train.py", 3)
    for call in range(1, calls + 1):
        if call in traced_at:
            record.traced(0.25, _value("n", call), 1, site)
        record.called(0.5 if call in traced_at else 0.001)
    return record


def test_the_live_alert_judges_the_call_in_progress():
    record = _traced_at(range(1, 10), 40)  # 9 traces in calls 1-9, then 31 calls without one
    record.traced(0.01, _value("n", 41), 1, ("/p/train.py", 20))  # the 10th, during call 41
    # judged after 41 calls: 10 traces are not one per 4 calls, and only one came in the later half
    assert not retracing.alert_due(record)
    assert retracing.keeps_retracing(record, 40) and not retracing.keeps_retracing(record, 41)


def test_a_function_with_no_calling_line_is_located_at_its_definition():
    record = _traced_at(range(1, 11), 10, site=None)
    (found,) = retracing.judge(Evidence(functions=[record]))
    assert (found.path, found.line) == ("/p/train.py", 3) and found.sites[1:] == []
    assert "called from" not in found.headline and "called from" not in retracing.alert_message(record)


def test_the_evidence_holds_the_functions_figures():
    record = _traced_at(range(1, 11), 10)
    (found,) = retracing.judge(Evidence(functions=[record]))
    evidence = found.evidence
    assert evidence["definition_path"] == "/p/train.py" and evidence["definition_line"] == 3
    assert evidence["trace_seconds"] == 2.5 and evidence["run_seconds"] == 2.5  # 10 calls of 0.5 s, half tracing
    assert evidence["objects"] == 1 and evidence["traces"] == 10 and evidence["calls"] == 10
    assert [c["argument"] for c in evidence["changes"]] == ["n"] and evidence["changes"][0]["count"] == 9
    assert "tracing took 2.50 s, running 2.50 s" in found.headline or "tracing took 2.5" in found.headline
    assert "tf.constant" in found.help
    before_any_call = _traced_at(range(1, 11), 10)
    before_any_call.trace_seconds += 9.0  # traced outside the calls (get_concrete_function): never below zero
    (found,) = retracing.judge(Evidence(functions=[before_any_call]))
    assert found.evidence["run_seconds"] == 0.0


def test_warnings_come_before_information_whatever_their_traces():
    bounded = _traced_at(range(1, 10), 1000)  # 9 traces, information
    retracing_few = _traced_at(range(1, 6), 5)  # 5 traces, a warning
    retracing_more = _traced_at(range(1, 8), 7)
    found = retracing.judge(Evidence(functions=[bounded, retracing_few, retracing_more]))
    assert [(d.severity, d.evidence["traces"]) for d in found] == [("warning", 7), ("warning", 5), ("info", 9)]


def test_the_message_says_objects_the_last_traced_call_and_what_more_changed():
    record = FunctionRecord("step", "/p/train.py", 3)
    for call in range(1, 7):
        args = _value("a", call) + _value("b", -call) + _value("c", 2 * call)
        record.traced(0.01, args, call % 2, ("/p/train.py", 20))
        record.called(0.001)
    text = retracing.message(record, "warning")
    assert "6 traces in 6 calls of 2 tf.function objects, the last in call 6" in text
    assert text.count("argument `") == 2 and "; and 2 more;" in text  # c, and the second object
    single = _traced_at(range(1, 6), 5)
    assert "tf.function objects" not in retracing.message(single, "warning")
    assert "(once)" in retracing.message(_traced_at([1, 2], 9), "info")
    assert "bounded handful" in retracing.message(_traced_at([1, 2], 9), "info")


def _leading(kind, before, after):
    """A record whose traces change one argument of `kind`, before -> after (alternately)."""
    record = FunctionRecord("step", "/p/train.py", 3)
    for call in range(1, 7):
        record.traced(0.01, [("x", Argument(kind, before if call % 2 else after, "%s%d" % (kind, call)))], 1,
                      ("/p/train.py", 20))
        record.called(0.001)
    return record


def test_the_advice_follows_what_changed():
    assert "input_signature with None" in retracing.advice(_leading("tensor", "float32[2]", "float32[3]"), "warning")
    assert "cast the argument" in retracing.advice(_leading("tensor", "float32[2]", "int32[2]"), "warning")
    assert "create the object once" in retracing.advice(_leading("object", "object of class A", "object of class A"),
                                                        "warning")
    assert "fixed-length list" in retracing.advice(_leading("structure", "(1,)", "(1, 2)"), "warning")
    assert "tf.constant" in retracing.advice(_leading("value", "1", "2"), "warning")
    new_objects = FunctionRecord("step", "/p/train.py", 3)
    for call in range(1, 7):
        new_objects.traced(0.01, _tensor(), call, ("/p/train.py", 20), ())
        new_objects.called(0.001)
    assert "outside the loop" in retracing.advice(new_objects, "warning")
    assert retracing.advice(FunctionRecord("f", "/p/x.py", 1), "warning") == ""  # nothing changed: no advice
    mixed = FunctionRecord("step", "/p/train.py", 3)  # a Python value, then a tensor: a change of type
    for call in range(1, 7):
        kind = "value" if call % 2 else "tensor"
        mixed.traced(0.01, [("x", Argument(kind, "1" if call % 2 else "int32[]"))], 1, ("/p/train.py", 20))
        mixed.called(0.001)
    assert mixed.top_changes()[0].kind == "type" and retracing.advice(mixed, "warning") == ""


def test_the_boundaries_of_keeps_retracing():
    # one object traced in exactly RETRACE_THRESHOLD calls, exactly LATE_TRACES of them late, sparse
    record = _traced_at([1, 2, 3, 60, 100], 100)
    assert record.most_traced_calls_of_one_object == 5 and retracing.severity(record) == "warning"
    # the live alert judges after the call in progress, not one more: the 10th trace during call 40 is dense
    record = _traced_at(range(1, 10), 39)
    record.traced(0.01, _value("n", 40), 1, ("/p/train.py", 20))
    assert retracing.alert_due(record)


def test_the_same_arguments_traced_again_are_said():
    record = FunctionRecord("step", "/p/train.py", 3)
    for _ in range(2):
        record.traced(0.01, _tensor(), 1, ("/p/train.py", 20), ())
        record.called(0.001)
    assert "the same arguments traced again" in retracing.message(record, "info")


def test_a_library_file_is_shown_from_its_package_on():
    nested = "/x/site-packages/app/site-packages/keras/src/a.py"
    assert retracing.where(nested, 3) == "app/site-packages/keras/src/a.py:3"


def test_exactly_two_changes_are_said_with_no_more():
    record = FunctionRecord("step", "/p/train.py", 3)
    for call in range(1, 7):
        record.traced(0.01, _value("a", call) + _value("b", -call), 1, ("/p/train.py", 20))
        record.called(0.001)
    text = retracing.message(record, "warning")
    assert "argument `a`" in text and "argument `b`" in text and "more" not in text


def test_the_declaration_is_the_rule_pages():
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "rules" / "TFG908-function-retracing" / "README.md"
    declared = retracing.DIAGNOSTIC
    assert (declared.code, declared.name, declared.severity, declared.fail_on) == (
        "TFG908", "function-retracing", "warning", "retracing")
    summary = " ".join(declared.summary.split())
    page_text = " ".join(page.read_text(encoding="utf-8").split())
    assert len(summary) > 20 and summary[1:] in page_text  # the page's first line, but for its "A"
