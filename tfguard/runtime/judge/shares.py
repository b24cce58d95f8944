"""What the share diagnostics (TFG903-TFG905) have in common: a share judges a training run, and a run shorter
than the slowdown verdict's minimum (a smoke test) is too short to judge: it says so in an info line instead."""

from __future__ import annotations

from dataclasses import replace
from typing import List

from tfguard.runtime.document import format_seconds
from tfguard.runtime.record.clocks import MIN_VERDICT_S
from tfguard.runtime.record.recording import Recording
from tfguard.runtime.verdict import Diagnostic


def judged(findings: List[Diagnostic], recording: Recording) -> List[Diagnostic]:
    """`findings` as they are, or each as an info "not judged" line when the run was too short for a share."""
    least = recording.options.get("min_share_s", MIN_VERDICT_S)
    if recording.wall_s >= least:
        return findings
    return [replace(finding, severity="info", help="", headline="not judged: the run took %s, under the %s a "
                    "share verdict needs (a smoke run is no training run); measured: %s" % (
                        format_seconds(recording.wall_s), format_seconds(least), finding.headline))
            for finding in findings]
