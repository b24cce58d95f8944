"""The recorder on synthetic runs: the queue is folded in batches and memory stays bounded."""

from __future__ import annotations

import threading
import tracemalloc

import pytest

from tfguard.runtime.judge.slowdown import slowdown_of
from tfguard.runtime.record.recorder import DEFAULT_OPTIONS, RUN_FIELDS, Recorder
from tfguard.runtime.run.reporting import alert_repeated, report_of


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


class _GrowingGraph:
    """A graph whose ops 8.. are added by the test (no traceback: counted as unattributed)."""

    def __init__(self) -> None:
        self.version = 7
        self._nodes_by_id = {}

    def add(self, count: int) -> int:
        for _ in range(count):
            self.version += 1
            self._nodes_by_id[self.version] = type("Op", (), {"type": "Const", "traceback": ()})()
        return self.version


def _growing_recorder():
    graph = _GrowingGraph()
    return graph, Recorder(graph, "watch", threading.get_ident(), dict(DEFAULT_OPTIONS, warn=False))


def test_an_older_version_noted_after_a_newer_one_changes_nothing():
    # A loaded machine: thread A reads version 10 after its run and is descheduled; thread B runs, reads 12 and
    # attributes ops 8..12; A resumes with its 10. Then growth goes on to 15: ops 13..15 only, none counted twice.
    graph, recorder = _growing_recorder()
    recorder.record(_Tensor(), (), 0.0, 1e-4)
    older = graph.add(3)
    newer = graph.add(2)
    recorder.on_growth(newer)
    recorder.on_growth(older)
    assert recorder.last_version == newer == 12
    recorder.on_growth(graph.add(3))
    assert recorder.unattributed_ops == 8 and recorder.last_version == 15
    report = report_of(recorder).to_dict()
    assert report["unattributed_ops"] == 8


def test_a_version_that_could_not_be_read_is_no_growth():
    graph, recorder = _growing_recorder()
    recorder.on_growth(None)
    assert recorder.last_version == 7 and recorder.unattributed_ops == 0
    recorder.on_growth(graph.add(2))
    assert recorder.unattributed_ops == 2


def test_growth_noticed_before_any_run_was_folded_has_loop_start_0():
    # Another thread notices growth while the guarding thread's runs are still queued (no signature yet), then
    # the report is taken at once: every step count and loop start is a number.
    graph, recorder = _growing_recorder()
    recorder.pending += ["k", None, (), 0.0, 1e-4][:RUN_FIELDS]  # one run, queued as the session wrapper does
    recorder.on_growth(graph.add(2))
    assert recorder.loop_start() == 0
    recorder.finish()
    report = report_of(recorder).to_dict()
    assert report["runs"] == 1 and report["loop_start"] == 0
    assert all(isinstance(site["events_in_loop"], int) for site in report["growth_sites"])


def test_the_recorder_returns_what_grew_and_the_guard_alerts_once_per_site_turned_repeated(capsys):
    # The recorder only records: on_growth hands back the sites a growth added ops at; the live alert is the
    # guard's (run/reporting.alert_repeated), once per site, and the site stays repeated in the final report.
    graph = _GrowingGraph()
    recorder = Recorder(graph, "watch", threading.get_ident(), dict(DEFAULT_OPTIONS))
    assert not hasattr(recorder, "on_repeated")
    clock, alerts = 0.0, []
    for step in range(40):
        recorder.record(_Tensor(), (), clock, clock + 1e-4)
        clock += 2e-4
        grown = recorder.on_growth(graph.add(1))
        assert len(grown) == 1 and grown[0].last_step == recorder.runs == step + 1
        alert_repeated(recorder, grown, through_warnings=False)
        alerts.append(capsys.readouterr().err.count("GraphGrowthWarning"))
    assert sum(alerts) == 1 and alerts.index(1) > 0
    assert recorder.on_growth(graph.version) == []  # no growth: nothing to alert about
    recorder.finish()
    assert report_of(recorder).to_dict()["growth_sites"][0]["kind"] == "repeated"
