"""TFG905 saves-too-often: `Saver.save` takes the `save_threshold` option's share of the wall time (10%) or more,
over `min_saves` saves at least (one final save is not "too often")."""

from __future__ import annotations

from typing import Any, Dict, List

from tfguard.runtime.diagnostics import RuntimeDiagnostic
from tfguard.runtime.judge.shares import judged
from tfguard.runtime.record.recording import Recording


def judge(recording: Recording, slowdown: Dict[str, Any]) -> List[Dict[str, Any]]:
    """TFG905 when Saver.save's share of the wall time reaches the threshold."""
    wall, options = recording.wall_s, recording.options
    if wall <= 0 or recording.saves < options["min_saves"] or recording.save_s / wall < options["save_threshold"]:
        return []
    share = recording.save_s / wall
    return judged([DIAGNOSTIC.finding("Saver.save took %d%% of wall time (%d saves) — save less often" % (
        round(100 * share), recording.saves), None, None, None, save_share=share, saves=recording.saves,
        save_s=recording.save_s)], recording)


DIAGNOSTIC = RuntimeDiagnostic(
    "TFG905", "saves-too-often", "warning", "`Saver.save` takes 10% of the wall time or more.", "saves", judge)
