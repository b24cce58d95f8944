"""What a guard says about its recorder: the live growth alert while the program runs, the report at the end.

The stages meet here: the recorder records (record/), the judges judge the session's evidence (judge/), the devices
add what they saw (devices/), and the report is the output (output/session_report.py). The guard keeps the final report
(made once, `final_report`), which gives a significant slowdown its SlowdownWarning, in the report's own words: a
slowdown is never warned about before the end.
"""

from __future__ import annotations

from typing import Optional, Sequence

from tfguard.runtime.devices.devicewatch import DeviceWatch
from tfguard.runtime.errors import GraphGrowthWarning, SlowdownWarning
from tfguard.runtime.judge.graph_growth import growth_alert
from tfguard.runtime.judge.judgement import judged_session
from tfguard.runtime.judge.slowing_steps import DIAGNOSTIC as SLOWING_STEPS
from tfguard.runtime.output.alerts import emit
from tfguard.runtime.output.session_report import SessionReport
from tfguard.runtime.record.growth import REPEATED, GrowthSite
from tfguard.runtime.record.recorder import Recorder
from tfguard.runtime.verdict import SessionVerdict


def alert_repeated(recorder: Recorder, grown: Sequence[GrowthSite], through_warnings: bool) -> None:
    """The live alert (GraphGrowthWarning) of each site of `grown` (what `recorder.on_growth` returned while the
    program runs) that this growth turned repeated, through the warnings machinery or to stderr. A site alerted
    stays repeated in the final report (`GrowthSite.alerted`): the report never contradicts the alert."""
    if not grown or not recorder.options["warn"]:
        return
    loop_start = recorder.loop_start()
    for site in grown:
        step = site.last_step  # the runs so far when it grew
        if not site.alerted and site.kind(loop_start, step) == REPEATED:
            site.alerted = True
            emit(growth_alert(site.to_dict(loop_start, step), step), GraphGrowthWarning, through_warnings)


def report_of(recorder: Recorder, devices: Optional[DeviceWatch] = None) -> SessionReport:
    """A SessionReport of everything `recorder` recorded so far, judged (with what `devices` saw, when given)."""
    figures, findings = judged_session(recorder.recording(), devices.placement if devices is not None else None)
    if devices is not None:
        findings = devices.contribute(figures, findings)
    return SessionReport(SessionVerdict(figures=figures), findings)


def final_report(recorder: Recorder, devices: Optional[DeviceWatch] = None,
                 through_warnings: bool = True) -> SessionReport:
    """The report of a finished recorder (its guard keeps it): `report_of`, and the SlowdownWarning of a
    significant slowdown (through the warnings machinery, or to stderr under `tfguard run`)."""
    report = report_of(recorder, devices)
    if recorder.options["warn"] and report.slowdown_significant:
        message = next(d.headline for d in report.findings if d.code == SLOWING_STEPS.code)
        emit("tfguard: " + message, SlowdownWarning, through_warnings)
    return report
