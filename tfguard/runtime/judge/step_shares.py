"""What the judges of a TF2 run's steps share (judge/steps.py calls them): the options, the short-run rule, lines."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Dict, List, Optional, Tuple

from tfguard.runtime.document import display_path, format_seconds
from tfguard.runtime.record.recorder import DEFAULT_OPTIONS
from tfguard.runtime.record.steps import StepRecord
from tfguard.runtime.verdict import Diagnostic

Site = Optional[Tuple[str, int]]


def options_of(options: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """The recorder's default options (the same thresholds as for sessions), updated by `options`."""
    merged = dict(DEFAULT_OPTIONS)
    merged.update(options or {})
    return merged


def where(site: Site) -> str:
    """`train.py:12`, or `an unknown line`."""
    return "%s:%d" % (display_path(site[0]), site[1]) if site else "an unknown line"


def share_judged(findings: List[Diagnostic], record: StepRecord, options: Dict[str, Any]) -> List[Diagnostic]:
    """`findings` as they are, or each as an info "not judged" line when the steps took under `min_share_s`."""
    least, wall = options["min_share_s"], record.wall()
    if wall >= least:
        return findings
    return [replace(finding, severity="info", help="", headline="not judged: the steps took %s, under the %s a share "
                    "verdict needs (a smoke run is no training run); measured: %s" % (
                        format_seconds(wall), format_seconds(least), finding.headline))
            for finding in findings]


def split(message: str) -> Tuple[str, str]:
    """(headline, help) of a message written as `what is wrong — what to do`."""
    headline, _, advice = message.partition(" — ")
    return headline, advice


def percent(share: float) -> str:
    """A share as a whole percent; under half a percent is "<1%" (measured, not nothing)."""
    return "<1%" if 0 < share < 0.005 else "%d%%" % round(100 * share)
