"""What a guard says about its recorder: the live growth alert while the program runs, the report at the end.

The stages meet here: the recorder records (record/), the judges judge the session's evidence (judge/), the devices
add what they saw (devices/), and the report is the output (output/report.py). The guard keeps the final report
(made once, `final_report`), which gives a significant slowdown its SlowdownWarning, in the report's own words: a
slowdown is never warned about before the end.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

from tfguard.runtime.devices.devicewatch import DeviceWatch
from tfguard.runtime.errors import GraphGrowthWarning, SlowdownWarning
from tfguard.runtime.judge.graph_growth import growth_alert
from tfguard.runtime.judge.judgement import judged_session
from tfguard.runtime.judge.slowing_steps import DIAGNOSTIC as SLOWING_STEPS
from tfguard.runtime.output.alerts import emit
from tfguard.runtime.output.report import Report
from tfguard.runtime.record.recorder import Recorder
from tfguard.runtime.verdict import SessionVerdict


def growth_alerts(through_warnings: Callable[[], bool]) -> Callable[[Dict[str, Any], int], None]:
    """The live alert (GraphGrowthWarning) of a growth site that turns repeated, for a Recorder's `on_repeated`;
    `through_warnings()` says, when it fires, whether it goes through the warnings machinery (else to stderr)."""
    def on_repeated(site: Dict[str, Any], step: int) -> None:
        emit(growth_alert(site, step), GraphGrowthWarning, through_warnings())

    return on_repeated


def report_of(recorder: Recorder, devices: Optional[DeviceWatch] = None) -> Report:
    """A Report of everything `recorder` recorded so far, judged (with what `devices` saw, when given)."""
    figures, findings = judged_session(recorder.recording(), devices.placement if devices is not None else None)
    if devices is not None:
        findings = devices.contribute(figures, findings)
    return Report(SessionVerdict(figures=figures), findings)


def final_report(recorder: Recorder, devices: Optional[DeviceWatch] = None, through_warnings: bool = True) -> Report:
    """The report of a finished recorder (its guard keeps it): `report_of`, and the SlowdownWarning of a
    significant slowdown (through the warnings machinery, or to stderr under `tfguard run`)."""
    report = report_of(recorder, devices)
    if recorder.options["warn"] and report.slowdown_significant:
        message = next(d.headline for d in report.findings if d.code == SLOWING_STEPS.code)
        emit("tfguard: " + message, SlowdownWarning, through_warnings)
    return report
