"""The guard's words on synthetic data, in milliseconds and without TensorFlow: the live growth alert, TFG902's text
for each cause, the sites in the slowdown's window, TFG901-TFG905 (judgement.diagnose) and the input advice.

The real-TensorFlow tests keep only what TensorFlow must show (tests/runtime/test_watch.py); the real-timing ones
(a real ramp caught, a steady loop silent) are marked ``timing`` and left out by default.
"""

from __future__ import annotations

from tfguard.runtime.judge import graph_growth, judgement, slowing_steps
from tfguard.runtime.judge import slowdown as slowdown_judge
from tfguard.runtime.record.clocks import compare
from tfguard.runtime.record.recording import SiteRecord

OPTIONS = {"min_runs": 5, "host_threshold": 0.5, "summary_share": 0.5, "min_saves": 3, "save_threshold": 0.2}


def _site(kind="repeated", line=12, first=1, last=40, api="tf.math.reduce_mean", ops=40):
    return {"path": "train.py", "line": line, "code": "loss = tf.reduce_mean(x)", "api": api, "op_types": ["Mean"],
            "rule": "TFG102", "fix": "build it once, before the loop", "ops_added": ops, "growth_events": 8,
            "events_in_loop": 8, "kind": kind, "first_step": first, "last_step": last}


def _data(**changes):
    data = {"growth_sites": [], "frozen_violations": [], "slowdown_significant": False, "host_fraction": None,
            "runs": 100, "signatures": [], "wall_s": 10.0, "saves": 0, "save_s": 0.0}
    data.update(changes)
    return data


def _said(diagnostic):
    """What a diagnostic says: its code, severity, headline and help (not where it points or its evidence)."""
    return {"code": diagnostic.code, "severity": diagnostic.severity, "headline": diagnostic.headline,
            "help": diagnostic.help}


def _verdict(cause, **changes):
    verdict = {"slowdown_measure": "step interval", "dominant_signature": "train:0", "slowdown": 2.5,
               "slowdown_cause": cause, "feed_bytes_first": 4000, "feed_bytes_last": 2.5e6,
               "feed_bytes_growth": 625.0, "thread_cpu_per_run_growth": 3.0, "host_per_run_growth": 4.0,
               "cpu_per_run_growth": 1.8, "loop_start": 0}
    verdict.update(changes)
    return verdict


def test_the_live_growth_alert_names_the_site_the_runs_and_the_fix():
    text = graph_growth.growth_alert(_site(), 41)
    assert text == ("tfguard: the graph keeps growing at train.py:12 `loss = tf.reduce_mean(x)`: tf.math.reduce_mean "
                    "(Mean) added after 8 different runs since the loop started, most recently after run 41 (static "
                    "rule TFG102): build it once, before the loop")


def test_each_cause_has_its_own_words():
    sites = [SiteRecord(**_site()), SiteRecord(**_site(line=30, first=1, last=3))]  # the second stopped before
    growth = slowing_steps.slowdown_message(_verdict(slowdown_judge.GRAPH_GROWTH), sites, 100)
    assert growth.startswith("steps of `train:0` got x2.50 slower by the end of the run than after warm-up")
    assert growth.endswith("; meanwhile the graph grew at train.py:12 `loss = tf.reduce_mean(x)` "
                           "(tf.math.reduce_mean (Mean))")
    feed = slowing_steps.slowdown_message(_verdict(slowdown_judge.GROWING_FEED), [], 100)
    assert "4.0 kB fed per run at the start, 2.5 MB at the end (x625.00)" in feed
    python = slowing_steps.slowdown_message(_verdict(slowdown_judge.PYTHON_WORK), [], 100)
    assert "own CPU time per run rose x3.00" in python
    wait = slowing_steps.slowdown_message(_verdict(slowdown_judge.HOST_WAIT, slowdown_measure="run time"), [], 100)
    assert wait.startswith("the run time of `train:0`") and "(x4.00 per run)" in wait
    work = slowing_steps.slowdown_message(
        _verdict(slowdown_judge.TENSORFLOW_WORK, slowdown=None, cpu_per_run_growth=None), [], 100)
    assert "got x0.00 slower" in work and "CPU time per run rose x0.00: TensorFlow does more work" in work


def test_byte_counts_read_in_their_unit():
    message = slowing_steps.slowdown_message(
        _verdict(slowdown_judge.GROWING_FEED, feed_bytes_first=None, feed_bytes_last=512), [], 10)
    assert "? fed per run at the start, 512 bytes at the end" in message
    message = slowing_steps.slowdown_message(
        _verdict(slowdown_judge.GROWING_FEED, feed_bytes_first=3e9, feed_bytes_last=1e3), [], 10)
    assert "3.0 GB fed per run at the start, 1.0 kB at the end" in message


def test_the_slowdown_window_starts_after_the_first_fifth_of_the_loop():
    sites = [SiteRecord(**_site(last=29)), SiteRecord(**_site(last=30)), SiteRecord(**_site(kind="one-time", last=99))]
    assert slowdown_judge.growing_in_window(sites, 0, 150) == [sites[1]]  # window from run 30
    assert slowdown_judge.growing_in_window(sites, 20, 70) == [sites[1]]  # loop from run 20: window from run 30


def test_nothing_to_say_about_a_healthy_run():
    assert judgement.diagnose(_data(), OPTIONS) == []
    # too few runs for TFG903 and TFG904, too few saves for TFG905
    assert judgement.diagnose(_data(runs=4, host_fraction=0.9, saves=2, save_s=9.0, signatures=[
        {"summary_ops": ["Merge"], "count": 4, "made_by": None}]), OPTIONS) == []


def test_tfg901_error_names_repeated_sites_and_frozen_violations():
    violation = {"path": "train.py", "line": 20, "code": "", "step": 0, "api": "tf.add", "rule": "TFG102"}
    found = judgement.diagnose(_data(growth_sites=[_site()], frozen_violations=[violation]), OPTIONS)
    assert [(d.code, d.severity) for d in found] == [("TFG901", "error")]
    assert found[0].headline.startswith("the graph keeps growing as steps go by: train.py:12")
    assert "(40 ops; static rule TFG102); train.py:20: blocked before run 1, tf.add (static rule TFG102)" in \
        found[0].headline
    frozen = judgement.diagnose(_data(frozen_violations=[dict(violation, step=None, api=None)]), OPTIONS)
    assert frozen[0].headline == "code tried to add ops to the frozen graph: train.py:20: blocked  (static rule " \
        "TFG102)"


def test_tfg901_info_for_one_time_growth_and_growth_stopped_by_freezing():
    one_time = _site(kind="one-time", first=2, last=2, ops=3)
    found = judgement.diagnose(_data(growth_sites=[one_time]), OPTIONS)
    assert [(d.code, d.severity) for d in found] == [("TFG901", "info")]
    assert "grew a few times after the loop started, then stopped: train.py:12" in found[0].headline
    assert "added after run 2 (3 ops)" in found[0].headline and "building it before the loop" in found[0].headline
    violation = {"path": "train.py", "line": 20, "code": "", "step": 5, "api": "tf.add", "rule": "TFG102"}
    frozen = judgement.diagnose(_data(growth_sites=[dict(one_time, first_step=1, last_step=4)],
                                     frozen_violations=[violation]), OPTIONS)
    assert [(d.code, d.severity) for d in frozen] == [("TFG901", "error"), ("TFG901", "info")]
    assert frozen[1].headline.startswith("the graph grew after the loop started, until it was frozen: ")
    assert "after runs 1-4" in frozen[1].headline


def test_tfg902_carries_the_slowdown_message():
    data = _data(slowdown_significant=True, **_verdict(slowdown_judge.HOST_WAIT))
    found = judgement.diagnose(data, OPTIONS)
    assert [(d.code, d.severity) for d in found] == [("TFG902", "warning")]
    assert found[0].headline == slowing_steps.slowdown_message(data, [], 100)


def test_tfg903_advice_fits_the_cause():
    fix_growth_first = judgement.diagnose(_data(host_fraction=0.8, growth_sites=[_site()]), OPTIONS)[1]
    assert fix_growth_first.code == "TFG903"
    assert fix_growth_first.headline == "input-bound: the device waits on Python for 80% of the time"
    assert fix_growth_first.help.startswith("much of it building new ops on every step")
    predict = [{"summary_ops": [], "count": 60, "made_by": "keras predict"}]
    batch = judgement.diagnose(_data(host_fraction=0.7, signatures=predict), OPTIONS)[0].help
    assert "most runs are Keras `model.predict` calls (60 of 100 runs)" in batch and "tf.data" not in batch
    few = [{"summary_ops": [], "count": 40, "made_by": "keras predict"}]
    for signatures in ([], few):
        plain = judgement.diagnose(_data(host_fraction=0.7, signatures=signatures), OPTIONS)[0].help
        assert plain == "move input to tf.data with prefetch"


def test_tfg904_once_for_summaries_fetched_on_most_runs_with_their_measured_cost():
    def signature(label, count, median, summary_ops=()):
        return {"label": label, "count": count, "summary_ops": list(summary_ops), "made_by": None,
                "run_time": {"median": median, "total": count * median}}

    signatures = [signature("train:0 <- x:0", 40, 0.010),
                  signature("train:0, Merge/MergeSummary:0 <- x:0", 60, 0.030, ["Merge/MergeSummary"])]
    found = [_said(d) for d in judgement.diagnose(_data(signatures=signatures), OPTIONS)]
    assert found == [{"code": "TFG904", "severity": "warning", "headline":
                      "summary ops (Merge/MergeSummary) fetched on 60 of 100 runs took 12% of wall time (1.20 s: "
                      "runs that fetch them took 30.0 ms median against 10.0 ms for the same step without them)",
                      "help": "fetch them every N steps instead"}]
    assert judgement.diagnose(_data(signatures=signatures[1:2], runs=200), OPTIONS) == []  # 30% of runs


def test_tfg905_when_saving_takes_a_large_share_of_the_run():
    found = [_said(d) for d in judgement.diagnose(_data(saves=4, save_s=2.5), OPTIONS)]
    assert found == [{"code": "TFG905", "severity": "warning",
                      "headline": "Saver.save took 25% of wall time (4 saves)", "help": "save less often"}]
    assert judgement.diagnose(_data(saves=4, save_s=1.5), OPTIONS) == []
    assert judgement.diagnose(_data(saves=4, save_s=2.5, wall_s=0.0), OPTIONS) == []


def test_a_platform_without_thread_clocks_gets_no_python_work_cause():
    """No thread CPU time (None in both fifths): the probe's rise still divides process CPU time, nothing else
    breaks, and growing Python work, which only the thread's CPU time shows, is not claimed."""
    from tests.runtime.test_verdicts import _marks, _ramp

    windows = compare(_marks(_ramp(1e-3, 2.5e-3), run=5e-4, process=_ramp(6e-4, 2e-3),
                                    thread=_ramp(4e-4, 1.8e-3), probe=_ramp(2e-5, 2.4e-5)))
    for fifth in ("first", "last"):
        windows[fifth]["thread_cpu"] = None
    verdict = slowdown_judge.judge_slowdown([1e-3 * (1 + i / 400.0) for i in range(400)], 1.2, windows, [])
    assert verdict["thread_cpu_per_run_growth"] is None and verdict["cpu_speed_change"] > 1.1
    assert verdict["slowdown_cause"] != slowdown_judge.PYTHON_WORK
