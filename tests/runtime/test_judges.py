"""The judgement at its edges, on synthetic recordings and clock windows (milliseconds, no TensorFlow).

Each test pins one boundary of a judge (a threshold met exactly, a figure missing, a default), so that changing a
comparison, a default or an argument of the judgement fails a test: `python tools/mutate_judges.py` measures it.
The figures are exact binary fractions, so that "exactly at the threshold" is exact.
"""

from __future__ import annotations

import pytest

from tests.runtime.test_verdicts import _rising
from tfguard.runtime.judge import (
    all_diagnostics,
    code_of,
    fail_on_codes,
    fail_on_name,
    graph_growth,
    input_bound,
    judge_placement,
    saves_too_often,
    slowing_steps,
    summaries_every_run,
)
from tfguard.runtime.judge import slowdown as sd
from tfguard.runtime.judge.input_bound import input_advice
from tfguard.runtime.judge.judgement import judge_session, judged_session
from tfguard.runtime.judge.shares import judged
from tfguard.runtime.judge.summaries_every_run import percent
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.record.recorder import DEFAULT_OPTIONS
from tfguard.runtime.record.recording import Recording, SignatureRecord, SiteRecord, TrendSeries, Violation
from tfguard.runtime.verdict import Diagnostic


def _on_recording(judge):
    """A judge called on one session's evidence: (recording, slowdown verdict) -> findings."""
    return lambda recording, slowdown: judge(Evidence(recording=recording, slowdown=slowdown))


judge_growth = _on_recording(graph_growth.judge)
judge_input = _on_recording(input_bound.judge)
judge_saves = _on_recording(saves_too_often.judge)
judge_slowing = _on_recording(slowing_steps.judge)
judge_summaries = _on_recording(summaries_every_run.judge)
THRESHOLD = 1.25
FIRST = dict(wall=1.0, run=0.5, save=0.0, process_cpu=0.5, thread_cpu=0.25, queue_wait=0.0, host=0.5,
             others_cpus=0.0, feed_bytes=None, probe=1.0)


def _verdict(sites=(), values=None, **last):
    """The slowdown verdict when the last fifth differs from FIRST by `last` (wall 2.0 unless given)."""
    first = dict(FIRST)
    for name in [n for n in last if n.startswith("first_")]:
        first[name[6:]] = last.pop(name)
    changed = dict(first, wall=2.0)
    changed.update(last)
    windows = {"first": first, "last": changed, "span_s": 3.0}
    return sd.judge_slowdown(_rising() if values is None else values, THRESHOLD, windows, list(sites))


def _cause(**last):
    return _verdict(**last)["slowdown_cause"]


# -- the ratios and rises -------------------------------------------------------------------------------------
def test_a_ratio_needs_both_figures_and_a_positive_first():
    assert sd._ratio(2.0, 3.0) == 1.5
    assert sd._ratio(None, 3.0) is None and sd._ratio(2.0, None) is None
    assert sd._ratio(0.0, 3.0) is None and sd._ratio(-1.0, 3.0) is None


def test_a_rise_needs_both_figures():
    windows = {"first": {"a": 1.0, "b": None, "c": 1.0}, "last": {"a": 1.5, "b": 2.0, "c": None}}
    assert sd._rise(windows, "a") == 0.5
    assert sd._rise(windows, "b") is None and sd._rise(windows, "c") is None


def test_slower_cpus_divide_the_last_fifths_cpu_times_and_a_faster_probe_does_not():
    windows = {"first": dict(FIRST), "last": dict(FIRST, probe=2.0, process_cpu=1.0, thread_cpu=None)}
    slower = sd._at_first_speed(windows)
    assert slower["last"]["process_cpu"] == 0.5 and slower["last"]["thread_cpu"] is None
    assert slower["cpu_speed_change"] == 2.0 and windows["last"]["process_cpu"] == 1.0  # a copy
    faster = sd._at_first_speed({"first": dict(FIRST), "last": dict(FIRST, probe=0.5, process_cpu=1.0)})
    assert faster["last"]["process_cpu"] == 1.0 and faster["cpu_speed_change"] == 0.5
    assert sd._at_first_speed({"first": dict(FIRST, probe=None), "last": dict(FIRST)})["cpu_speed_change"] is None


# -- contention -----------------------------------------------------------------------------------------------
def test_no_windows_no_contention_and_no_cause():
    verdict = sd.judge_slowdown(_rising(), THRESHOLD, None, [])
    assert verdict["contention"] is False and verdict["slowdown_cause"] is None
    assert not verdict["slowdown_significant"] and verdict["verdict_window_s"] is None


def test_other_jobs_taking_a_quarter_cpu_more_is_contention_exactly_at_the_threshold():
    assert _verdict(others_cpus=0.25)["contention"] is True
    assert _verdict(others_cpus=0.125)["contention"] is False
    assert _verdict(first_others_cpus=None)["contention"] is False


def test_waiting_for_a_cpu_a_quarter_of_walls_rise_is_contention_and_a_flat_wall_is_none():
    assert _verdict(queue_wait=0.25)["contention"] is True
    assert _verdict(queue_wait=0.125)["contention"] is False
    assert _verdict(wall=1.0, queue_wait=0.5)["contention"] is False  # wall time did not rise
    assert _verdict(first_queue_wait=None)["contention"] is False


# -- the causes -----------------------------------------------------------------------------------------------
def test_a_passing_bump_of_x1_1_or_less_has_no_cause():
    assert _cause(first_wall=10.0, wall=11.0, host=1.0) is None  # x1.1 exactly
    assert _cause(first_wall=10.0, wall=11.5, host=1.5) == sd.HOST_WAIT
    assert _cause(first_wall=0.0, wall=11.0, host=1.0) is None  # no ratio


def test_growth_in_the_window_is_the_cause_before_any_other():
    site = SiteRecord("train.py", 3, kind="repeated", last_step=90)
    verdict = _verdict(sites=[site], host=1.0, others_cpus=0.25)
    assert verdict["slowdown_cause"] == sd.GRAPH_GROWTH and verdict["contention"] is True


def test_a_host_rise_of_exactly_half_walls_is_a_host_wait_and_less_is_not():
    assert _cause(host=1.0) == sd.HOST_WAIT
    assert _cause(host=0.9375) is None
    assert _cause(first_host=None) is None


def test_host_time_must_also_grow_by_the_threshold_for_a_host_wait():
    assert _cause(first_host=0.5, host=1.0, wall=2.0) == sd.HOST_WAIT  # x2
    assert _cause(first_host=4.0, host=4.5, first_wall=1.0, wall=2.0) is None  # +0.5 but only x1.125


def test_a_busy_thread_is_python_work_not_a_wait_at_exactly_half_the_host_rise():
    assert _cause(host=1.0, thread_cpu=0.5) == sd.PYTHON_WORK  # thread +0.25 = half of host's +0.5
    assert _cause(host=1.0, thread_cpu=0.375) == sd.HOST_WAIT
    assert _cause(host=1.0, queue_wait=0.25) != sd.HOST_WAIT  # waiting for a CPU is not waiting on something


def test_no_cpu_queue_reading_next_to_other_jobs_is_no_host_wait():
    assert _cause(first_queue_wait=None, host=1.0) == sd.HOST_WAIT
    assert _cause(first_queue_wait=None, host=1.0, others_cpus=0.25) is None


def test_python_work_needs_the_threads_cpu_to_grow_by_the_threshold_in_ratio():
    assert _cause(host=1.0, first_thread_cpu=0.25, thread_cpu=0.3125) == sd.HOST_WAIT  # x1.25, +0.0625
    assert _cause(host=1.0, first_thread_cpu=2.0, thread_cpu=2.5) == sd.PYTHON_WORK  # x1.25, +0.5: busy
    assert _cause(host=1.0, first_thread_cpu=4.0, thread_cpu=4.5) is None  # +0.5 (busy) but only x1.125
    assert _cause(host=1.0, first_thread_cpu=None) == sd.HOST_WAIT


def test_a_relative_rise_explains_when_its_log_is_half_of_walls():
    # wall x4 (+3.0), host +1.5: the thread x4 (+0.75, under +1.5 in seconds) explains it in log terms
    assert _cause(wall=4.0, host=2.0, thread_cpu=1.0) == sd.PYTHON_WORK
    assert _cause(wall=4.0, host=2.0, first_thread_cpu=1.0, thread_cpu=1.75) is None  # x1.75: log under half
    # x2 of the thread against x4 of wall: exactly half in log terms (a CPU queue makes the thread busy enough)
    assert _cause(wall=4.0, host=2.0, first_thread_cpu=0.5, thread_cpu=1.0, queue_wait=0.25) == sd.PYTHON_WORK


def test_a_growing_feed_at_the_threshold_explains_by_run_time_in_seconds_or_in_ratio():
    assert _cause(first_feed_bytes=1024.0, feed_bytes=1280.0, run=1.0) == sd.GROWING_FEED  # x1.25, run +0.5
    assert _cause(first_feed_bytes=1024.0, feed_bytes=1216.0, run=1.0) is None  # x1.1875
    assert _cause(first_feed_bytes=1024.0, feed_bytes=2048.0, first_run=0.25, run=0.5) == sd.GROWING_FEED
    assert _cause(first_feed_bytes=1024.0, feed_bytes=2048.0, first_run=0.25, run=0.3) is None  # neither
    verdict = _verdict(first_feed_bytes=1024.0, feed_bytes=2048.0, run=1.0)
    assert (verdict["feed_bytes_first"], verdict["feed_bytes_last"], verdict["feed_bytes_growth"]) == (1024.0, 2048.0,
                                                                                                      2.0)


def test_tensorflow_work_is_the_process_cpu_and_under_contention_only_when_it_rose_as_much_as_wall():
    assert _cause(process_cpu=1.0) == sd.TENSORFLOW_WORK
    assert _cause(process_cpu=0.9375) is None
    assert _cause(process_cpu=1.0, others_cpus=0.25) is None  # +0.5 < wall's +1.0 next to other jobs
    assert _cause(process_cpu=1.5, others_cpus=0.25) == sd.TENSORFLOW_WORK  # +1.0 = wall's +1.0
    assert _cause(first_process_cpu=0.5, process_cpu=1.0, probe=2.0) is None  # the CPUs got x2 slower


def test_process_cpu_times_are_not_compared_when_the_probe_got_much_faster():
    assert _cause(process_cpu=1.0, probe=0.8) == sd.TENSORFLOW_WORK  # x0.8 = 1/1.25: still comparable
    assert _cause(process_cpu=1.0, probe=0.75) is None


def test_the_verdict_says_its_figures():
    verdict = _verdict(process_cpu=1.0, thread_cpu=0.5, host=0.75, probe=1.0)
    assert verdict["wall_per_run_growth"] == 2.0 and verdict["cpu_per_run_growth"] == 2.0
    assert verdict["thread_cpu_per_run_growth"] == 2.0 and verdict["host_per_run_growth"] == 1.5
    assert verdict["verdict_window_s"] == 3.0 and verdict["cpu_speed_change"] == 1.0
    assert verdict["others_cpus_rise"] == 0.0


def test_significant_needs_both_a_trend_and_a_cause():
    steady = [1e-3] * 400
    assert not _verdict(values=steady, host=1.0)["slowdown_significant"]
    assert _verdict(values=steady, host=1.0)["slowdown_cause"] is None
    rising = _verdict(host=1.0)
    assert rising["slowdown_significant"] and rising["slowdown_cause"] == sd.HOST_WAIT
    assert rising["slowdown_shape"] == "trend" and rising["slowdown"] > 1.5


# -- the recording's judges -----------------------------------------------------------------------------------
def _recording(**changes):
    values = dict(runs=100, wall_s=10.0, run_s=4.0, host_fraction=0.25, options=dict(DEFAULT_OPTIONS))
    values.update(changes)
    return Recording(**values)


def test_input_bound_exactly_at_the_threshold_and_the_least_runs():
    assert judge_input(_recording(host_fraction=0.5, runs=5), {})[0].severity == "warning"
    assert judge_input(_recording(host_fraction=0.4375), {}) == []
    assert judge_input(_recording(host_fraction=0.5, runs=4), {}) == []
    assert judge_input(_recording(host_fraction=None), {}) == []


def test_input_bound_blames_the_busiest_sampled_line():
    host = {"lines": [{"path": "input.py", "line": 7, "share": 0.5, "code": "x = load()", "cause": "input"}],
            "cause": "input", "cause_share": 0.25, "samples": 99}
    found = judge_input(_recording(host_fraction=0.75, host_time=host), {})[0]
    assert (found.path, found.line) == ("input.py", 7)
    assert found.evidence == {"host_fraction": 0.75, "runs": 100}
    assert found.headline.endswith("for 75% of the time")
    assert found.help.startswith("host time: 50% at input.py:7 `x = load()` (input); look at those lines first")


def test_the_input_advice_batches_predictions_only_when_they_are_half_of_the_runs():
    predict = [SignatureRecord("p", count=50, made_by="keras predict")]
    assert "most runs are Keras `model.predict` calls (50 of 100 runs)" in input_advice(
        _recording(signatures=predict))
    fewer = [SignatureRecord("p", count=49, made_by="keras predict"), SignatureRecord("t", count=51)]
    assert input_advice(_recording(signatures=fewer)) == "move input to tf.data with prefetch"
    other = [SignatureRecord("p", count=50, made_by=None)]
    assert input_advice(_recording(signatures=other)) == "move input to tf.data with prefetch"


def test_a_share_exactly_at_the_least_wall_time_is_judged():
    finding = Diagnostic("TFG905", "warning", "measured", "advice")
    assert judged([finding], _recording(wall_s=1.5)) == [finding]
    short = judged([finding], _recording(wall_s=1.0))[0]
    assert short.severity == "info" and short.headline.endswith("measured: measured") and short.help == ""
    assert short.headline.startswith("not judged: the run took 1.00 s, under the 1.50 s a share verdict needs")


def test_saves_exactly_at_the_threshold_and_the_least_saves():
    found = judge_saves(_recording(saves=3, save_s=1.0, wall_s=10.0), {})
    assert [f.severity for f in found] == ["warning"] and found[0].evidence["save_share"] == 0.1
    assert "Saver.save took 10% of wall time (3 saves)" in found[0].headline
    assert judge_saves(_recording(saves=2, save_s=5.0), {}) == []
    assert judge_saves(_recording(saves=3, save_s=0.9375), {}) == []
    assert judge_saves(_recording(saves=3, save_s=1.0, wall_s=0.0), {}) == []


def _summary_signatures(count, runs_without=0):
    with_ = SignatureRecord("train:0, Merge:0 <- x:0", summary_ops=["Merge"], count=count,
                            run_time={"median": 0.03})
    without = SignatureRecord("train:0 <- x:0", count=runs_without, run_time={"median": 0.01})
    return [with_, without] if runs_without else [with_]


def test_summaries_exactly_at_the_share_and_the_least_runs():
    found = judge_summaries(_recording(runs=10, signatures=_summary_signatures(5)), {})
    assert [f.evidence["runs_fetching"] for f in found] == [5]
    assert judge_summaries(_recording(runs=11, signatures=_summary_signatures(5)), {}) == []
    assert judge_summaries(_recording(runs=8, signatures=_summary_signatures(4)), {}) == []
    assert judge_summaries(_recording(runs=0, signatures=[]), {}) == []


def test_summaries_say_what_they_cost_and_whether_it_is_a_lower_bound():
    found = judge_summaries(_recording(runs=100, signatures=_summary_signatures(60, 40)), {})[0]
    assert "took 12% of wall time (1.20 s" in found.headline and not found.evidence["seconds_lower_bound"]
    writer = judge_summaries(_recording(runs=100, signatures=_summary_signatures(60), summary_writes=60,
                                        summary_write_s=0.5), {})[0]
    assert "cost 5% of wall time in FileWriter.add_summary/flush 500 ms in 60 calls" in writer.headline
    neither = judge_summaries(_recording(runs=100, signatures=_summary_signatures(60)), {})[0]
    assert "cost not measured" in neither.headline
    assert percent(0.004) == "<1%" and percent(0.0) == "0%" and percent(0.005) == "0%" and percent(0.25) == "25%"


def test_growth_blames_the_top_repeated_site_or_the_first_blocked_change():
    repeated = SiteRecord("a.py", 4, kind="repeated", ops_added=30, events_in_loop=6, last_step=40, rule="TFG102")
    blocked = Violation("b.py", 9, step=3, rule="TFG101")
    found = judge_growth(_recording(growth_sites=[repeated], frozen_violations=[blocked]), {})
    assert [(f.severity, f.path, f.line) for f in found] == [("error", "a.py", 4)]
    assert found[0].evidence["sites"] == [{"path": "a.py", "line": 4, "ops_added": 30, "runs_that_grew_it": 6,
                                              "last_run": 40, "rule": "TFG102"}]
    only_blocked = judge_growth(_recording(frozen_violations=[blocked]), {})[0]
    assert (only_blocked.path, only_blocked.line) == ("b.py", 9)
    assert only_blocked.headline == "code tried to add ops to the frozen graph: b.py:9: blocked after run 3 " \
                                      "(static rule TFG101)"


def test_slowing_steps_blame_the_growing_line_only_when_growth_is_the_cause():
    site = SiteRecord("a.py", 4, kind="repeated", last_step=90)
    slowdown = dict(_verdict(sites=[site]), slowdown_measure="step interval", dominant_signature="t:0", loop_start=0)
    found = judge_slowing(_recording(growth_sites=[site]), slowdown)[0]
    assert (found.path, found.line) == ("a.py", 4) and found.evidence["slowdown_cause"] == sd.GRAPH_GROWTH
    waiting = dict(_verdict(host=1.0), slowdown_measure="step interval", dominant_signature="t:0", loop_start=0)
    found = judge_slowing(_recording(), waiting)[0]
    assert (found.path, found.line) == (None, None) and found.evidence["slowdown"] == waiting["slowdown"]
    assert judge_slowing(_recording(), dict(waiting, slowdown_significant=False)) == []


def test_a_recording_is_judged_in_code_order_into_its_document():
    site = SiteRecord("a.py", 4, kind="repeated", ops_added=30, events_in_loop=6, last_step=95)
    recording = _recording(growth_sites=[site], host_fraction=0.75, saves=4, save_s=2.0,
                           trend=TrendSeries("t:0", "step interval", _rising(), 0, None))
    slowdown, findings = judge_session(recording)
    assert [f.code for f in findings] == ["TFG901", "TFG903", "TFG905"] and slowdown["dominant_signature"] == "t:0"
    assert {f.scope for f in findings} == {"session"}
    figures, _ = judged_session(recording)
    assert list(figures)[:2] == ["mode", "runs"] and list(figures)[-3:] == ["options", "summary_cost", "time_parts"]
    assert figures["slowdown_measure"] == "step interval" and figures["growth_sites"][0]["line"] == 4
    assert judged_session(_recording(runs=0))[0]["dominant_signature"] is None


def test_the_registry_reads_fail_on_names_and_codes_in_any_case():
    assert list(all_diagnostics()) == sorted(all_diagnostics())
    assert fail_on_codes()["growth"] == code_of("growth") == "TFG901"
    assert fail_on_name(" tfg902 ") == "slowdown" and fail_on_name("Growth") == "growth"
    assert "" not in fail_on_codes()
    with pytest.raises(KeyError):
        code_of("speed")


def test_placement_judges_read_the_placement_data():
    data = {"fallbacks": [], "gpus_visible": [], "transfers": [{"from": "CPU:0", "to": "GPU:0", "count": 20,
                                                                "bytes": 2048}], "copies_threshold": 20}
    assert [(f.code, f.severity) for f in judge_placement(data)] == [("TFG907", "info")]
    assert judge_placement(dict(data, copies_threshold=21)) == []


def test_the_causes_are_named_as_the_document_says_them():
    assert (sd.GRAPH_GROWTH, sd.GROWING_FEED, sd.PYTHON_WORK, sd.HOST_WAIT, sd.TENSORFLOW_WORK) == (
        "graph growth", "growing feed", "python work", "host wait", "tensorflow work")


def test_each_finding_carries_its_evidence_by_name():
    saves = judge_saves(_recording(saves=4, save_s=2.0, wall_s=10.0), {})[0]
    assert saves.evidence == {"save_share": 0.2, "saves": 4, "save_s": 2.0}
    one_time = SiteRecord("a.py", 4, kind="one-time", ops_added=3, first_step=2, last_step=5)
    growth = judge_growth(_recording(growth_sites=[one_time]), {})[0]
    assert growth.evidence == {"sites": [{"path": "a.py", "line": 4, "ops_added": 3, "first_run": 2,
                                             "last_run": 5}]}
    blocked = judge_growth(_recording(frozen_violations=[Violation("b.py", 9, api="tf.add", step=3, rule="R")]),
                           {})[0]
    assert blocked.evidence == {"sites": [], "blocked": [{"path": "b.py", "line": 9, "after_run": 3,
                                                             "api": "tf.add", "rule": "R"}]}
    summaries = judge_summaries(_recording(runs=100, signatures=_summary_signatures(60, 40)), {})[0]
    assert summaries.evidence == {"summary_ops": ["Merge"], "runs_fetching": 60, "runs": 100,
                                     "seconds": summaries.evidence["seconds"], "seconds_lower_bound": False}
    assert abs(summaries.evidence["seconds"] - 1.2) < 1e-9


def test_a_slowdown_finding_carries_the_verdicts_figures():
    waiting = dict(_verdict(host=1.0), slowdown_measure="run time", dominant_signature="t:0", loop_start=0)
    evidence = judge_slowing(_recording(), waiting)[0].evidence
    assert evidence == {"slowdown": waiting["slowdown"], "slowdown_shape": "trend", "slowdown_cause": sd.HOST_WAIT,
                        "slowdown_measure": "run time", "dominant_signature": "t:0", "wall_per_run_growth": 2.0,
                        "cpu_per_run_growth": 1.0, "thread_cpu_per_run_growth": 1.0, "host_per_run_growth": 2.0,
                        "feed_bytes_growth": None, "verdict_window_s": 3.0}


def test_each_diagnostic_declares_its_name_severity_and_fail_on_name():
    declared = {code: (d.name, d.severity, d.fail_on) for code, d in all_diagnostics().items()}
    assert declared == {
        "TFG901": ("graph-growth", "error", "growth"),
        "TFG902": ("slowing-steps", "warning", "slowdown"),
        "TFG903": ("input-bound", "warning", "input-bound"),
        "TFG904": ("summaries-every-run", "warning", "summaries"),
        "TFG905": ("saves-too-often", "warning", "saves"),
        "TFG906": ("gpu-op-on-cpu", "warning", "cpu-fallback"),
        "TFG907": ("cross-device-copies", "info", ""),
        "TFG908": ("function-retracing", "warning", "retracing"),
        "TFG909": ("eager-training-step", "warning", "eager-step"),
        "TFG910": ("predict-in-loop", "warning", "predict-in-loop"),
        "TFG911": ("slow-callback", "warning", "slow-callback"),
        "TFG912": ("host-syncs-per-step", "warning", "host-syncs"),
    }
    assert all(d.summary and d.page == "rules/%s-%s/README.md" % (code, d.name)
               for code, d in all_diagnostics().items())


VERDICT_FIELDS = ["slowdown", "slowdown_shape", "slowdown_points", "slowdown_edges", "slowdown_cause",
                  "verdict_window_s",
                  "wall_per_run_growth", "cpu_per_run_growth", "thread_cpu_per_run_growth", "host_per_run_growth",
                  "feed_bytes_growth", "feed_bytes_first", "feed_bytes_last", "others_cpus_rise", "cpu_speed_change",
                  "contention", "slowdown_significant"]


def test_the_verdict_has_every_field_in_the_documents_order_judged_or_not():
    unjudged = sd.judge_slowdown(_rising(), THRESHOLD, None, [])
    assert list(unjudged) == VERDICT_FIELDS
    assert unjudged["slowdown_edges"]["last"] > unjudged["slowdown_edges"]["first"]  # the trend's, judged or not
    assert all(unjudged[name] is None for name in VERDICT_FIELDS[4:15])
    assert list(_verdict(host=1.0)) == VERDICT_FIELDS


def test_the_threshold_is_the_least_slowdown_that_counts():
    rising = _rising(ratio=1.5)  # measured x1.32 after warm-up
    windows = {"first": dict(FIRST), "last": dict(FIRST, wall=2.0, host=1.0), "span_s": 3.0}
    assert sd.judge_slowdown(rising, 1.25, windows, [])["slowdown_significant"]
    assert not sd.judge_slowdown(rising, 1.5, windows, [])["slowdown_significant"]  # x1.32 is under x1.5


def test_summaries_name_every_op_and_the_step_that_costs_most_with_them():
    signatures = [
        SignatureRecord("train:0, Merge:0 <- x:0", summary_ops=["Merge"], count=40, run_time={"median": 0.03}),
        SignatureRecord("train:0 <- x:0", count=10, run_time={"median": 0.01}),
        SignatureRecord("eval:0, Other:0 <- y:0", summary_ops=["Other"], count=40, run_time={"median": 0.02}),
        SignatureRecord("eval:0 <- y:0", count=10, run_time={"median": 0.015}),
    ]
    message = judge_summaries(_recording(runs=100, signatures=signatures), {})[0].headline
    assert message.startswith("summary ops (Merge, Other) fetched on 80 of 100 runs")
    assert "runs that fetch them took 30.0 ms median against 10.0 ms" in message
    no_wall = judge_summaries(_recording(runs=100, wall_s=0.0, signatures=signatures), {})[0].headline
    assert "cost not measured" in no_wall


def test_slowing_steps_name_every_growing_site_and_read_the_loops_start():
    sites = [SiteRecord("a.py", 4, kind="repeated", last_step=90), SiteRecord("b.py", 8, kind="repeated",
                                                                             last_step=95)]
    slowdown = dict(_verdict(sites=sites), slowdown_measure="step interval", dominant_signature="t:0", loop_start=0)
    message = judge_slowing(_recording(growth_sites=sites), slowdown)[0].headline
    assert message.endswith("meanwhile the graph grew at a.py:4 (ops), b.py:8 (ops)")
    late = [SiteRecord("a.py", 4, kind="repeated", last_step=55)]
    after_loop = dict(_verdict(sites=late), slowdown_measure="step interval", dominant_signature="t:0",
                      loop_start=50)
    found = judge_slowing(_recording(growth_sites=late), after_loop)[0]
    assert (found.path, found.line) == (None, None)  # its window starts at run 60: a.py:4 stopped before
