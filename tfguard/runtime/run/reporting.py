"""What a guard says about its recorder: the live growth alert while the program runs, the report at the end.

The stages meet here: the recorder records (record/), the judges judge its typed recording (judge/), the devices
add what they saw (devices/), and the report is the output (output/report.py). The first final report gives a
significant slowdown its SlowdownWarning, in the report's own words: a slowdown is never warned about before the
end.
"""

from __future__ import annotations

from typing import Any, Dict

from tfguard.runtime.errors import GraphGrowthWarning, SlowdownWarning
from tfguard.runtime.judge.graph_growth import growth_alert
from tfguard.runtime.judge.judgement import judged_document
from tfguard.runtime.judge.slowing_steps import DIAGNOSTIC as SLOWING_STEPS
from tfguard.runtime.output.alerts import emit
from tfguard.runtime.output.report import Report
from tfguard.runtime.record.recorder import Recorder


def alert_on_growth(recorder: Recorder) -> None:
    """Have `recorder` alert live (GraphGrowthWarning) when a growth site turns repeated."""
    def on_repeated(site: Dict[str, Any], step: int) -> None:
        emit(growth_alert(site, step), GraphGrowthWarning, recorder.alerts_through_warnings)

    recorder.on_repeated = on_repeated


def report_of(recorder: Recorder) -> Report:
    """A snapshot Report of everything `recorder` recorded so far; once it finished, the final one (made once)."""
    if recorder.final_report is not None:
        return recorder.final_report
    data = judged_document(recorder.recording())
    devices: Any = recorder.devices
    if devices is not None:
        devices.contribute(data)
    report = Report(data)
    if recorder.t_end is not None:
        recorder.final_report = report
        if recorder.options["warn"] and report.slowdown_significant:
            message = next(m for code, _, m in report.diagnostics if code == SLOWING_STEPS.code)
            emit("tfguard: " + message, SlowdownWarning, recorder.alerts_through_warnings)
    return report
