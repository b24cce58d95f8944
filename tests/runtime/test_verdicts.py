"""The slowdown verdict on synthetic clock marks: each cause of the program's own, and contention, told apart."""

from __future__ import annotations

import random

from tfguard.runtime.judge import slowdown as slowdown_judge
from tfguard.runtime.judge import slowing_steps
from tfguard.runtime.record.clocks import MIN_VERDICT_S, ClockMarks, compare, feed_bytes


def _marks(wall, run=None, process=None, thread=None, queue=None, others=0.0, feed=None, probe=2e-5, marks=20,
           runs=100):
    """Marks of `marks` windows of `runs` runs each; the per-run figures are functions of the run's position 0..1."""
    def value(f, x):
        return f(x) if callable(f) else f
    totals = [0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    out = [tuple(totals) + (value(probe, 0.0), None)]
    for i in range(marks):
        x = i / (marks - 1)
        w = value(wall, x) * runs
        totals[0] += runs
        totals[1] += w
        totals[2] += value(run if run is not None else (lambda x: 0.9 * value(wall, x)), x) * runs
        totals[4] += value(process if process is not None else (lambda x: 0.9 * value(wall, x)), x) * runs
        totals[5] += value(thread if thread is not None else 0.1 * value(wall, 0.0), x) * runs
        totals[6] += value(queue if queue is not None else 0.0, x) * runs
        # the CPUs were busy for this process's CPU time and other jobs' share of the wall time
        totals[7] += value(process if process is not None else (lambda x: 0.9 * value(wall, x)), x) * runs + \
            value(others, x) * w
        out.append(tuple(totals) + (value(probe, x), value(feed, x)))
    return out


def _rising(n=400, ratio=2.0, seed=0):
    rng = random.Random(seed)
    return [1e-3 * (1.0 + (ratio - 1.0) * i / n) * (1.0 + 0.05 * rng.random()) for i in range(n)]


def _judge(marks, sites=()):
    return slowdown_judge.judge_slowdown(_rising(), 1.2, compare(marks), list(sites))


def _ramp(start, end):
    return lambda x: start + (end - start) * x


def test_other_jobs_taking_the_cpus_are_contention_not_a_slowdown():
    # TensorFlow's pool spins: process CPU per run rises x1.5 while wall time doubles; other jobs took a CPU more.
    verdict = _judge(_marks(_ramp(1e-3, 2e-3), process=_ramp(1e-3, 1.5e-3), others=_ramp(0.2, 1.2)))
    assert verdict["contention"] and not verdict["slowdown_significant"] and verdict["slowdown_cause"] is None
    assert 0.7 < verdict["others_cpus_rise"] < 1.0  # the fifths average over their windows


def test_a_thread_waiting_longer_for_a_cpu_is_contention():
    verdict = _judge(_marks(_ramp(1e-3, 2e-3), run=9e-4, process=9e-4, queue=_ramp(0.0, 9e-4)))
    assert verdict["contention"] and not verdict["slowdown_significant"]


def test_a_growing_wait_outside_sess_run_is_the_programs_own_slowdown():
    verdict = _judge(_marks(_ramp(2e-3, 4.5e-3), run=5e-4, process=4e-4, thread=1e-4))
    assert verdict["slowdown_significant"] and verdict["slowdown_cause"] == slowdown_judge.HOST_WAIT
    assert verdict["host_per_run_growth"] > 2.0
    message = slowing_steps.slowdown_message(dict(verdict, slowdown_measure="step interval", dominant_signature="y:0"),
                                        [], 2000)
    assert "the process is waiting, not computing" in message


def test_growing_python_work_is_caught_even_while_other_jobs_take_the_cpus():
    verdict = _judge(_marks(_ramp(1e-3, 2.5e-3), run=5e-4, process=_ramp(6e-4, 2e-3), thread=_ramp(4e-4, 1.8e-3),
                            others=_ramp(0.5, 1.0)))
    assert verdict["slowdown_significant"] and verdict["slowdown_cause"] == slowdown_judge.PYTHON_WORK


def test_growing_host_work_on_a_saturated_machine_is_python_work_not_a_wait():
    """A third of a CPU for the program: its growing host work shows as thread CPU plus a wait for a CPU."""
    verdict = _judge(_marks(_ramp(3e-3, 9e-3), run=1.5e-3, process=_ramp(6e-4, 2.6e-3), thread=_ramp(5e-4, 2.5e-3),
                            queue=_ramp(1e-3, 5e-3)))
    assert verdict["slowdown_cause"] == slowdown_judge.PYTHON_WORK


def test_a_feed_that_grows_is_named_with_its_bytes():
    verdict = _judge(_marks(_ramp(1e-3, 3e-3), feed=lambda x: int(4000 * (1 + 3 * x))))
    assert verdict["slowdown_cause"] == slowdown_judge.GROWING_FEED and verdict["feed_bytes_growth"] > 2.5
    message = slowing_steps.slowdown_message(dict(verdict, slowdown_measure="step interval", dominant_signature="y:0"),
                                        [], 2000)
    assert "kB fed per run at the start" in message and "TensorFlow works on all of it" in message


def test_tensorflow_work_counts_only_when_it_rose_as_much_as_wall_time_under_contention():
    quiet = _judge(_marks(_ramp(1e-3, 2e-3)))
    assert quiet["slowdown_cause"] == slowdown_judge.TENSORFLOW_WORK and not quiet["contention"]
    busy = _judge(_marks(_ramp(1e-3, 2e-3), process=_ramp(9e-4, 1.5e-3), others=_ramp(0.0, 0.6)))
    assert busy["slowdown_cause"] is None and busy["contention"]


def test_growth_sites_in_the_window_explain_a_slowdown():
    verdict = _judge(_marks(_ramp(1e-3, 2e-3), process=_ramp(1e-3, 1.2e-3), others=_ramp(0.0, 1.0)),
                     sites=[{"kind": "repeated"}])
    assert verdict["slowdown_cause"] == slowdown_judge.GRAPH_GROWTH and verdict["slowdown_significant"]


def test_cpu_time_that_rose_as_much_as_the_cpus_got_slower_is_not_more_work():
    """Next to other jobs the same work takes more CPU time; the probe's CPU time rises alike and is divided out."""
    marks = _marks(_ramp(1e-3, 2e-3), run=5e-4, process=_ramp(9e-4, 1.8e-3), thread=_ramp(8e-4, 1.6e-3),
                   probe=_ramp(2e-5, 4e-5))
    verdict = _judge(marks)
    assert verdict["cpu_speed_change"] > 1.6 and verdict["slowdown_cause"] is None
    assert verdict["thread_cpu_per_run_growth"] < 1.1
    assert _judge(_marks(_ramp(1e-3, 2e-3), run=5e-4, process=_ramp(9e-4, 1.8e-3),
                         thread=_ramp(8e-4, 1.6e-3)))["slowdown_cause"] == slowdown_judge.PYTHON_WORK


def test_a_passing_bump_is_no_slowdown():
    verdict = _judge(_marks(lambda x: 1e-3 * (1.8 if 0.3 < x < 0.7 else 1.0)))
    assert not verdict["slowdown_significant"] and verdict["wall_per_run_growth"] < 1.1


def test_a_run_shorter_than_the_minimum_gets_no_verdict():
    short = _marks(_ramp(1e-5, 5e-5))  # 2,000 runs in well under MIN_VERDICT_S
    assert short[-1][1] < MIN_VERDICT_S and compare(short) is None
    verdict = slowdown_judge.judge_slowdown(_rising(), 1.2, None, [])
    assert not verdict["slowdown_significant"] and verdict["verdict_window_s"] is None


def test_clock_marks_are_taken_by_time_and_thinned():
    marks = ClockMarks(cap=16)
    taken = 0
    for i in range(2000):
        wall = i * 0.01
        if marks.due(wall):
            marks.add(1, i, wall, 0.5 * wall, 0.0)
            taken += 1
    assert 180 <= taken <= 201  # about one every 0.1 s, however many runs
    assert len(marks.marks) <= 17 and marks.marks[-1][0] == 1990
    marks.add(2, 2000, 20.0, 10.0, 0.0)  # another thread: its clocks start afresh
    assert len(marks.marks) == 1


def test_feed_bytes_of_arrays_and_lists():
    import numpy

    assert feed_bytes({"x": numpy.zeros([10, 4], numpy.float32), "y": [[1.0, 2.0]] * 3, "z": 1.0}) == 160 + 48 + 8
    assert feed_bytes(None) is None


def test_tensorflow_work_is_not_inferred_when_the_probe_got_much_faster():
    """A steady loop once used x1.45 more CPU per run while the probe took half its CPU time: not comparable."""
    faster = _judge(_marks(_ramp(1e-3, 2e-3), probe=_ramp(2e-5, 1e-5)))
    assert faster["slowdown_cause"] is None and not faster["slowdown_significant"]
    steady = _judge(_marks(_ramp(1e-3, 2e-3), probe=_ramp(2e-5, 1.9e-5)))
    assert steady["slowdown_cause"] == slowdown_judge.TENSORFLOW_WORK
