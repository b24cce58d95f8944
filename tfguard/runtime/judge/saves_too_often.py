"""TFG905 saves-too-often: `Saver.save` takes the `save_threshold` option's share of the wall time (10%) or more,
over `min_saves` saves at least (one final save is not "too often")."""

from __future__ import annotations

from typing import List

from tfguard.runtime.diagnostics import RuntimeDiagnostic
from tfguard.runtime.judge.shares import judged
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.verdict import Diagnostic


def judge(evidence: Evidence) -> List[Diagnostic]:
    """TFG905 when Saver.save's share of the wall time reaches the threshold."""
    recording = evidence.recording
    if recording is None:
        return []
    wall, options = recording.wall_s, recording.options
    if wall <= 0 or recording.saves < options["min_saves"] or recording.save_s / wall < options["save_threshold"]:
        return []
    share = recording.save_s / wall
    return judged([DIAGNOSTIC.finding("Saver.save took %d%% of wall time (%d saves)" % (
        round(100 * share), recording.saves), None, None, None, help="save less often", save_share=share,
        saves=recording.saves, save_s=recording.save_s)], recording)


DIAGNOSTIC = RuntimeDiagnostic(
    "TFG905", "saves-too-often", "warning", "`Saver.save` takes 10% of the wall time or more.", "saves", judge)
