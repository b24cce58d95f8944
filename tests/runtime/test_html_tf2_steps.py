"""A TF2 run's charts on the HTML page, from hand-made StepRecords judged as a run is (no TensorFlow): time per step
with TFG902's edges where it judged the steps slower, where the steps' time went (`time_parts`, the same figures
the judges read) and the retracing functions' traces over their calls. Real runs: tests/run/test_html_tf2_*.py."""

from __future__ import annotations

import re

import jsonschema

from tests.runtime.test_step_judges import EagerSite, _compiled, _eager, _peeked
from tfguard.runtime.document import format_seconds
from tfguard.runtime.judge.judgement import judge_steps
from tfguard.runtime.output.formats import document_schema
from tfguard.runtime.output.html.page import render_report
from tfguard.runtime.record.steps import StepRecord
from tfguard.runtime.verdict import FunctionsVerdict, RunVerdict

FACTS = {"command": ["train.py"], "tensorflow_version": "2.21.0", "exit_status": 0, "stopped_by_max_steps": False,
         "freeze_after": None, "unguarded_sessions": []}


def _verdict(record: StepRecord, functions=None) -> RunVerdict:
    """The run verdict of a TF2 run of `record`'s steps, as runner.run_verdict makes it."""
    figures, found = judge_steps(record)
    figures["failed"] = False
    return RunVerdict(dict(FACTS, steps=figures), functions=FunctionsVerdict(True, False, functions or []),
                      diagnostics=found)


def _section(html: str, name: str) -> str:
    start = html.index('id="%s"' % name)
    return html[start:html.index("</section>", start)]


def test_time_parts_split_a_custom_loops_time_between_input_step_host_saves_and_summaries():
    record = _compiled(steps=100, step_s=0.01, gap_s=0.01)  # 99 gaps of 10 ms
    for _ in range(99):
        record.next_batch(0.004, ("train.py", 29))
        record.wrote("summary", 0.001, ("train.py", 33), "")
    for _ in range(10):
        record.wrote("save", 0.02, ("train.py", 35), "")
    record.map_made(("train.py", 12), None)
    record.python_input(5.0, ("train.py", 12), None)  # tf.data's threads: overlaps the steps, no wait of its own
    parts = record.time_parts()
    assert abs(parts["wall"] - 1.99) < 1e-9 and abs(parts["step"] - 1.0) < 1e-9
    assert abs(parts["input"] - 0.396) < 1e-9 and abs(parts["summaries"] - 0.099) < 1e-9
    assert abs(parts["saves"] - 0.2) < 1e-9 and abs(parts["host"] - (0.99 - 0.396 - 0.099 - 0.2)) < 1e-9


def test_time_parts_of_keras_steps_count_a_serial_maps_python_time_as_the_steps_wait():
    record = _compiled(steps=50, step_s=0.02, gap_s=0.001)  # Keras takes its batches inside its train function
    record.map_made(("train.py", 12), None)
    record.python_input(0.6, ("train.py", 12), None)
    record.map_made(("train.py", 13), 8)
    record.python_input(9.0, ("train.py", 13), 8)  # a parallel map's calls overlap: not counted
    parts = record.time_parts()
    assert abs(parts["input"] - 0.6) < 1e-9 and abs(parts["step"] - 0.4) < 1e-9


def test_a_peek_before_the_first_step_leaves_a_serial_maps_python_time_in_the_input_part():
    # field (keras-io 3D_image_classification.py): a peek before `fit` (`list(train_dataset.take(1))`) made the
    # breakdown take the peek for the loop's batches and leave out the map's Python time the steps waited on
    record = _peeked(steps=50, step_s=0.02, gap_s=0.001)
    record.map_made(("train.py", 12), None)
    record.python_input(0.6, ("train.py", 12), None)
    parts = record.time_parts()
    assert abs(parts["input"] - 0.6) < 1e-9 and abs(parts["step"] - 0.4) < 1e-9


def test_eager_steps_hold_the_hosts_time_in_the_step():
    record = _eager(40, EagerSite(("train.py", 17), "train_step", 12, False))
    record.next_batch(0.2, ("train.py", 16))
    parts = record.time_parts()
    assert parts["host"] is None and abs(parts["input"] - 0.2) < 1e-9
    assert abs(parts["step"] - (parts["wall"] - 0.2)) < 1e-9
    html = render_report(_verdict(record))
    assert "not apart: eager steps run in the loop&#x27;s Python" in _section(html, "tf2-steps")


def test_the_page_draws_the_step_time_and_the_breakdown_of_a_healthy_loop():
    record = _compiled(steps=150, step_s=0.01, gap_s=0.002)
    for _ in range(150):
        record.wrote("save", 0.001, ("train.py", 40), "")
    verdict = _verdict(record)
    html = render_report(verdict)
    assert "150 training steps watched" in html
    section = _section(html, "tf2-steps")
    assert section.count('<svg class="chart"') == 1 and 'class="trend"' not in section  # no TFG902: no trend
    assert "Time per step (150 steps: calls of `train_step`)" in section
    assert 'aria-label="where the steps&#x27; time went"' in section
    shares = dict(re.findall(r'data-label="part">([^<]+)</td><td data-label="time">[^<]*</td>'
                             r'<td data-label="share of the steps&#x27; time">([^<]+)</td>', section))
    assert set(shares) == {"waiting for input", "in the step", "host (Python between steps)", "checkpoints",
                           "summaries"}, section
    parts = verdict.facts["steps"]["time_parts"]
    assert shares["checkpoints"] == "%.3g%%" % (100 * parts["saves"] / parts["wall"])
    assert shares["waiting for input"] == "-" and shares["summaries"] == "-"
    facts = _section(html, "facts")
    assert "training steps" in facts and "150 (calls of train_step)" in facts


def test_steps_slowing_are_drawn_with_the_edges_tfg902_took_its_medians_at():
    record = _compiled(steps=400, gap_s=lambda i: 0.00005 * i, cpu=lambda i: 0.00003 * i * i / 2.0)
    verdict = _verdict(record)
    (slowing,) = [d for d in verdict.diagnostics if d.code == "TFG902"]
    evidence = slowing.evidence
    assert (evidence["warmup_intervals"], evidence["first_fifth_end"], evidence["last_fifth_start"]) == (
        39, 39 + 72 - 1, 399 - 72)  # 399 intervals, 39 skipped, fifths of 72
    section = _section(render_report(verdict), "tf2-steps")
    assert section.count('class="trend"') == 1 and "TFG902, %s -&gt; %s per step" % (
        format_seconds(evidence["step_seconds_first"]), format_seconds(evidence["step_seconds_last"])) in section
    first = evidence["step_seconds_first"] * 1e3
    assert "first 20%%: %.3g ms" % first in section and 'class="warmup"' in section


def test_retracing_functions_are_drawn_over_their_calls_and_functions_traced_once_are_not():
    record = _compiled(steps=150)
    once = {"function": "train_step", "path": "train.py", "line": 10, "calls": 150, "traces": 1, "traced_calls": 1,
            "traced_call_numbers": [1]}
    html = render_report(_verdict(record, [once]))
    assert "Traces over the calls" not in _section(html, "traces")
    every = {"function": "evaluate", "path": "train.py", "line": 20, "calls": 30, "traces": 30, "traced_calls": 30,
             "traced_call_numbers": list(range(1, 31))}
    some = {"function": "predict", "path": "train.py", "line": 25, "calls": 90, "traces": 3, "traced_calls": 3,
            "traced_call_numbers": [1, 40, 80]}
    traces = _section(render_report(_verdict(record, [once, some, every])), "traces")
    assert "Traces over the calls of evaluate, predict" in traces and traces.count('<svg class="chart"') == 1
    lines = re.findall(r'<polyline class="series (run-\w)" data-label="(\w+)"', traces)
    assert lines == [("run-a", "evaluate"), ("run-b", "predict")]
    assert 'class="marker"' in traces and "evaluate 30, predict 3" in traces


def test_the_document_with_the_new_facts_is_valid_and_makes_the_same_page_read_back():
    record = _compiled(steps=400, gap_s=lambda i: 0.00005 * i, cpu=lambda i: 0.00003 * i * i / 2.0)
    verdict = _verdict(record)
    document = verdict.to_document()
    jsonschema.Draft202012Validator(document_schema()).validate(document)
    assert render_report(RunVerdict.from_document(document)) == render_report(verdict)


def test_a_document_written_before_the_breakdown_says_so_and_a_long_run_keeps_500_points():
    record = _compiled(steps=2001)
    figures = record.to_dict()
    assert len(figures["intervals"]) == 500 and figures["intervals_per_point"] == 4.0
    verdict = _verdict(record)
    del verdict.facts["steps"]["time_parts"]
    section = _section(render_report(verdict), "tf2-steps")
    assert "no breakdown: the report was written before tfguard kept one" in section
    assert section.count('<svg class="chart"') == 1


def test_a_50000_step_tf2_runs_page_stays_small():
    record = _compiled(steps=50000, step_s=0.001, gap_s=lambda i: 0.0002 * (i % 5))
    verdict = _verdict(record, [{"function": "f", "calls": 50000, "traces": 1000, "traced_calls": 1000,
                                 "traced_call_numbers": list(range(1, 50001, 50))}])
    html = render_report(verdict)
    assert len(html.encode("utf-8")) < 100 * 1024
    lines = re.findall(r'<polyline [^>]*data-label="([^"]+)" points="([^"]+)"', html)
    assert [label for label, _ in lines] == ["step time", "f"]
    assert len(lines[0][1].split()) == 500 and 100 < len(lines[1][1].split()) <= 200


def test_a_report_files_tfg902_evidence_that_is_not_numbers_draws_no_trend_and_breaks_nothing():
    from dataclasses import replace

    record = _compiled(steps=400, gap_s=lambda i: 0.00005 * i, cpu=lambda i: 0.00003 * i * i / 2.0)
    verdict = _verdict(record)
    (index,) = [i for i, d in enumerate(verdict.diagnostics) if d.code == "TFG902"]
    for wrong in ("<s>", None, True, float("inf"), [1]):
        slowing = verdict.diagnostics[index]
        verdict.diagnostics[index] = replace(slowing, evidence=dict(slowing.evidence, first_fifth_end=wrong))
        section = _section(render_report(verdict), "tf2-steps")
        assert 'class="trend"' not in section and section.count('<svg class="chart"') == 1
        verdict.diagnostics[index] = slowing
