"""Issue 45: a run whose last fifth is another step (a test-set evaluation after training) is a phase change, not a
`slowdown x0.04`: the verdict says so, and the report's slowdown row names the other step."""

from __future__ import annotations

from tfguard.runtime.judge.judgement import judged_session
from tfguard.runtime.judge.slowdown import phase_change, slowdown_of
from tfguard.runtime.output.session_report import SessionReport, _ratio
from tfguard.runtime.record.recorder import DEFAULT_OPTIONS
from tfguard.runtime.record.recording import Recording, SignatureRecord
from tfguard.runtime.verdict import SessionVerdict

TRAIN, EVAL = "train_op, loss:0 <- x:0, y:0", "loss:0 <- x_test:0, y_test:0"


def _series(steps, value):
    return {"bucket": 1, "points": [[step, value, 100] for step in steps]}


def _summary(count, value):
    return {"count": count, "total": count * value, "median": value, "p95": value}


def _recording(train_runs=range(0, 45), eval_runs=range(45, 100)):
    signatures = [SignatureRecord(label=TRAIN, count=len(train_runs), run_series=_series(train_runs, 0.05),
                                  run_time=_summary(len(train_runs), 0.05), interval=_summary(len(train_runs), 0.05),
                                  series=_series(train_runs, 0.05)),
                  SignatureRecord(label=EVAL, count=len(eval_runs), run_series=_series(eval_runs, 0.002),
                                  run_time=_summary(len(eval_runs), 0.002), interval=_summary(len(eval_runs), 0.002),
                                  series=_series(eval_runs, 0.002))]
    points = sorted([[s, 0.05, 100] for s in train_runs] + [[s, 0.002, 100] for s in eval_runs])
    return Recording(runs=len(points), wall_s=10.0, run_s=4.0, signatures=signatures,
                     all_runs_series={"bucket": 1, "points": points}, options=dict(DEFAULT_OPTIONS))


def test_training_then_evaluation_is_a_phase_change_not_a_speed_up():
    recording = _recording()
    assert phase_change(recording) == {"first": TRAIN, "last": EVAL}
    verdict = slowdown_of(recording)
    assert verdict["slowdown_shape"] == "phase change" and not verdict["slowdown_significant"]
    row = _ratio(dict(verdict, slowdown=0.04))  # the ratio of the two fifths, as the field run's report printed it
    assert "a phase change, not a speed change: the last fifth ran another step, `%s`" % EVAL in row


def test_one_step_throughout_or_mixed_fifths_is_no_phase_change():
    assert phase_change(_recording(eval_runs=range(0))) is None
    mixed = _recording(train_runs=range(0, 100, 2), eval_runs=range(1, 100, 2))
    assert phase_change(mixed) is None


def test_the_document_with_a_phase_change_is_valid():
    import jsonschema

    from tfguard.runtime.output.formats import document_schema

    figures, found = judged_session(_recording())
    document = SessionReport(SessionVerdict(figures=figures), found).to_dict()
    assert document["phase_change"]["last"] == EVAL
    jsonschema.Draft202012Validator(document_schema()).validate(document)
