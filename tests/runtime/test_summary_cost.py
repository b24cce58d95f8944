"""TFG904's measured cost and the share verdicts' minimum duration, on recorded report data (no TensorFlow)."""

from __future__ import annotations

from tfguard.runtime.judge.judgement import diagnose
from tfguard.runtime.judge.summary_cost import like_step, summary_cost
from tfguard.runtime.record.recorder import DEFAULT_OPTIONS


def _sig(label, count, median, summary_ops=()):
    return {"label": label, "count": count, "summary_ops": list(summary_ops),
            "run_time": {"median": median, "total": count * median}}


def _data(signatures, wall_s=10.0, saves=0, save_s=0.0, writer_s=0.0, writes=0, host=0.1):
    return {"signatures": signatures, "runs": sum(s["count"] for s in signatures), "wall_s": wall_s,
            "saves": saves, "save_s": save_s, "summary_write_s": writer_s, "summary_writes": writes,
            "host_fraction": host, "growth_sites": [], "frozen_violations": [], "slowdown_significant": False}


TRAIN = "train_op, loss:0 <- x:0, y:0"
TRAIN_SUMMARY = "train_op, loss:0, Merge/MergeSummary:0 <- x:0, y:0"
STATE_READ = "zeros:0"


def test_summary_runs_are_compared_with_the_same_step_without_them():
    signatures = [_sig(TRAIN_SUMMARY, 100, 0.030, ["MergeSummary"]), _sig(TRAIN, 900, 0.010)]
    assert like_step(signatures[0], signatures)["label"] == TRAIN
    cost = summary_cost(_data(signatures, writer_s=0.5, writes=100))
    assert cost["runs"] == 100 and abs(cost["extra_run_s"] - 2.0) < 1e-9
    assert abs(cost["seconds"] - 2.5) < 1e-9


def test_a_cheap_read_with_other_feeds_is_not_the_base():
    # char-rnn: a training+summary step next to a 1.5 ms state read gave "hooks 66%".
    signatures = [_sig(TRAIN_SUMMARY, 100, 0.030, ["MergeSummary"]), _sig(STATE_READ, 100, 0.0015)]
    assert like_step(signatures[0], signatures) is None
    assert summary_cost(_data(signatures))["extra_run_s"] is None


def test_tfg904_says_what_summaries_cost_like_tfg905():
    signatures = [_sig(TRAIN_SUMMARY, 800, 0.030, ["MergeSummary"]), _sig(TRAIN, 20, 0.010)]
    found = {d.code: d for d in diagnose(_data(signatures, wall_s=40.0, writer_s=2.0, writes=800),
                                            DEFAULT_OPTIONS)}
    message = found["TFG904"].headline
    # (800 x 20 ms + 2 s) / 40 s = 45%
    assert "fetched on 800 of 820 runs took 45% of wall time" in message, message
    assert "30.0 ms median against 10.0 ms for the same step without them" in message
    assert "FileWriter.add_summary/flush 2.00 s in 800 calls" in message


def test_tfg904_every_step_gives_the_writer_time_and_says_the_rest_is_not_measured():
    signatures = [_sig(TRAIN_SUMMARY, 800, 0.030, ["MergeSummary"])]
    message = {d.code: d for d in diagnose(_data(signatures, wall_s=40.0, writer_s=4.0, writes=800),
                                              DEFAULT_OPTIONS)}["TFG904"].headline
    assert "cost 10% of wall time in FileWriter.add_summary/flush" in message
    assert "their run time is not measured" in message and " 0% " not in message


def test_a_smoke_run_is_too_short_for_a_share_verdict():
    # A correct script run for 0.6 s: Saver.save took 26% of it, but that judges no training run.
    data = _data([_sig(TRAIN, 60, 0.005)], wall_s=0.6, saves=6, save_s=0.156)
    found = diagnose(data, DEFAULT_OPTIONS)
    assert [(d.code, d.severity) for d in found] == [("TFG905", "info")]
    assert found[0].headline.startswith("not judged: the run took 600 ms, under the 1.50 s")
    assert "Saver.save took 26% of wall time (6 saves)" in found[0].headline
    longer = diagnose(dict(data, wall_s=6.0, save_s=1.56), DEFAULT_OPTIONS)
    assert [(d.code, d.severity) for d in longer] == [("TFG905", "warning")]


def test_an_evaluation_step_without_a_like_step_makes_the_measured_share_a_lower_bound():
    # cnn-text-classification: training summaries every 10 steps, a dev step with its own summaries and feeds.
    signatures = [_sig(TRAIN_SUMMARY, 30, 0.030, ["MergeSummary"]), _sig(TRAIN, 270, 0.010),
                  _sig("global_step:0, Merge_2/MergeSummary:0 <- x_dev:0", 3, 0.2, ["MergeSummary"])]
    cost = summary_cost(_data(signatures))
    assert cost["extra_run_s"] is None and cost["unmatched_runs"] == 3 and abs(cost["seconds"] - 0.6) < 1e-9
    message = {d.code: d for d in diagnose(_data(signatures, wall_s=4.0), dict(DEFAULT_OPTIONS,
                                                                                  summary_share=0.1))}["TFG904"]
    assert "fetched on 33 of 303 runs took at least 15% of wall time (600 ms:" in message.headline


def test_tfg904_under_one_percent_is_information_that_says_so():
    """Issue 45: a TFG904 warning whose own figure said "<1%" read as a contradiction; it is information now."""
    signatures = [_sig(TRAIN_SUMMARY, 800, 0.0101, ["MergeSummary"]), _sig(TRAIN, 20, 0.010)]
    found = {d.code: d for d in diagnose(_data(signatures, wall_s=40.0), DEFAULT_OPTIONS)}["TFG904"]
    assert found.severity == "info", found
    assert "took <1% of wall time" in found.headline and "cheap in this run" in found.help
    costly = [_sig(TRAIN_SUMMARY, 800, 0.030, ["MergeSummary"]), _sig(TRAIN, 20, 0.010)]
    assert {d.code: d for d in diagnose(_data(costly, wall_s=40.0), DEFAULT_OPTIONS)}["TFG904"].severity == \
        "warning"
