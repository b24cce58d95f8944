"""The recorder on synthetic runs: the queue is folded in batches and memory stays bounded."""

from __future__ import annotations

import threading
import tracemalloc

import pytest

from tfguard.runtime.judge.slowdown import slowdown_of
from tfguard.runtime.record.recorder import DEFAULT_OPTIONS, RUN_FIELDS, Recorder
from tfguard.runtime.run.reporting import report_of


class _Graph:
    version = 7


class _Tensor:
    name = "loss:0"


def _recorder() -> Recorder:
    return Recorder(_Graph(), "frozen", threading.get_ident(), dict(DEFAULT_OPTIONS, warn=False))


@pytest.mark.slow
def test_a_long_run_keeps_memory_bounded():
    recorder, loss, placeholder = _recorder(), _Tensor(), _Tensor()
    clock = 0.0
    for _ in range(20000):  # past the exact-sample and series caps before measuring
        recorder.record(loss, (placeholder,), clock, clock + 2e-4)
        clock += 3e-4
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for _ in range(300000):
            recorder.record(loss, (placeholder,), clock, clock + 2e-4)
            clock += 3e-4
        grown = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
    assert grown < 2_000_000, grown
    assert recorder.runs == 320000
    report = report_of(recorder).to_dict()
    (sig,) = report["signatures"]
    assert sig["count"] == 320000 and sig["interval"]["count"] == 319999
    assert abs(sig["interval"]["median"] - 3e-4) < 3e-6 and abs(sig["run_time"]["median"] - 2e-4) < 2e-6


def test_queued_runs_are_counted_before_they_are_folded():
    recorder, loss = _recorder(), _Tensor()
    recorder.record(loss, (), 0.0, 1e-4)
    recorder.record(loss, (), 1e-3, 1.1e-3)  # a batch of fast runs is now being queued
    for step in range(2, 50):
        recorder.record(loss, (), step * 1e-3, step * 1e-3 + 1e-4)
    assert recorder.pending and recorder.runs == 50
    recorder.drain()
    assert not recorder.pending and recorder.runs == 50
    assert recorder.signatures and next(iter(recorder.signatures.values())).count == 50


def test_slow_steps_are_folded_about_once_a_second():
    """Steps of 0.2 ms of sess.run and 0.5 s of Python: the queue never holds more than ~2 s of runs."""
    recorder, loss = _recorder(), _Tensor()
    most_queued = 0
    for step in range(40):
        start = step * 0.5
        recorder.record(loss, (), start, start + 2e-4)
        most_queued = max(most_queued, len(recorder.pending) // RUN_FIELDS)
    assert most_queued <= 2
    fast = _recorder()
    for step in range(2000):
        fast.record(loss, (), step * 1e-3, step * 1e-3 + 2e-4)
    assert 95 * RUN_FIELDS <= fast.drain_at <= 100 * RUN_FIELDS  # 1 ms steps: a tenth of a second of runs


def _rising_recorder() -> Recorder:
    """Runs (back to back) that take longer steadily, from 0.3 ms to 0.6 ms over 2,000 runs of one signature."""
    recorder, loss = _recorder(), _Tensor()
    clock = 0.0
    for step in range(2000):
        took = 3e-4 * (1.0 + step / 2000.0)
        recorder.record(loss, (), clock, clock + took)
        clock += took + 1e-5
    return recorder


def test_a_run_too_short_for_the_clock_marks_gives_no_slowdown():
    """2,000 runs that get x2 slower within 1 s: whatever the trend, under MIN_VERDICT_S there is no verdict."""
    recorder = _rising_recorder()
    verdict = slowdown_of(recorder.recording())
    assert verdict["slowdown"] > 1.5 and not verdict["slowdown_significant"]
    assert verdict["verdict_window_s"] is None
