"""TFG902 slowing-steps: steps get slower and slower, a significant trend of the program's own work.

The verdict itself (is it a trend, which cause of the program's own explains it) is judge/slowdown.py's; this
module says it, and blames the line when the cause is graph growth.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from tfguard.runtime.diagnostics import RuntimeDiagnostic
from tfguard.runtime.judge.graph_growth import TOP_SITES
from tfguard.runtime.judge.slowdown import (
    GRAPH_GROWTH,
    GROWING_FEED,
    HOST_WAIT,
    PYTHON_WORK,
    growing_in_window,
)
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.record.growth import site_text, what_grew
from tfguard.runtime.record.recording import SiteRecord
from tfguard.runtime.verdict import Diagnostic, Site

#: The slowdown verdict's figures a TFG902 finding carries as its evidence.
EVIDENCE = ("slowdown", "slowdown_shape", "slowdown_cause", "slowdown_measure", "dominant_signature",
            "wall_per_run_growth", "cpu_per_run_growth", "thread_cpu_per_run_growth", "host_per_run_growth",
            "feed_bytes_growth", "verdict_window_s")


def _bytes(value: Optional[float]) -> str:
    if value is None:
        return "?"
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if value >= size:
            return "%.1f %s" % (value / size, unit)
    return "%d bytes" % value


def slowdown_message(verdict: Dict[str, Any], sites: Sequence[SiteRecord], runs: int) -> str:
    """TFG902's text: how much slower, measured how, and the cause of the program's own that explains it."""
    own_runs = verdict["slowdown_measure"] == "run time"
    message = "%s of `%s` got x%.2f slower by the end of the run than after warm-up, and kept rising " \
              "(a trend, not a level shift)" % (
                  "the run time" if own_runs else "steps", verdict["dominant_signature"], verdict["slowdown"] or 0.0)
    cause = verdict.get("slowdown_cause")
    if cause == GRAPH_GROWTH:
        growing = growing_in_window(sites, verdict.get("loop_start", 0), runs)
        return message + "; meanwhile the graph grew at " + ", ".join(
            "%s (%s)" % (site_text(s), what_grew(s)) for s in growing[:TOP_SITES])
    if cause == GROWING_FEED:
        return message + ("; the graph did not grow, but the feed did: %s fed per run at the start, %s at the end "
                          "(x%.2f), and TensorFlow works on all of it every step. Look for an array or list that is "
                          "appended to before it is fed (feed a fixed-size batch)" % (
                              _bytes(verdict["feed_bytes_first"]), _bytes(verdict["feed_bytes_last"]),
                              verdict["feed_bytes_growth"]))
    if cause == PYTHON_WORK:
        return message + ("; the graph did not grow meanwhile, but the guarding thread's own CPU time per run rose "
                          "x%.2f: look for Python-side work that grows each step (a list or history processed in "
                          "full every step)" % verdict["thread_cpu_per_run_growth"])
    if cause == HOST_WAIT:
        return message + ("; time outside sess.run grows (x%.2f per run) while the CPU time per run does not: the "
                          "process is waiting, not computing. Look for a wait that takes longer each step (a reader "
                          "over a growing file list, a queue that drains, a sleep or a lock)"
                          % verdict["host_per_run_growth"])
    return message + ("; the graph did not grow meanwhile, but the process's CPU time per run rose x%.2f: TensorFlow "
                      "does more work per run (a variable, queue or table that grows)" % (
                          verdict["cpu_per_run_growth"] or 0.0))


def judge(evidence: Evidence) -> List[Diagnostic]:
    """TFG902 when the slowdown verdict is significant; it blames the top growing line when growth is the cause."""
    recording, slowdown = evidence.recording, evidence.slowdown
    if recording is None:
        return []
    if not slowdown.get("slowdown_significant"):
        return []
    growing: List[SiteRecord] = []
    if slowdown.get("slowdown_cause") == GRAPH_GROWTH:
        growing = growing_in_window(recording.growth_sites, slowdown.get("loop_start", 0), recording.runs)
    blamed = growing[0] if growing else None
    return [DIAGNOSTIC.finding(slowdown_message(slowdown, recording.growth_sites, recording.runs), None,
                               blamed.path if blamed else None, blamed.line if blamed else None,
                               named=[Site(s.path, s.line) for s in growing[1:TOP_SITES]],
                               **{name: slowdown.get(name) for name in EVIDENCE})]


DIAGNOSTIC = RuntimeDiagnostic(
    "TFG902", "slowing-steps", "warning", "Steps get slower and slower: a significant, persisting trend of the "
    "program's own work.", "slowdown", judge)
