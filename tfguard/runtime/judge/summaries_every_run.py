"""TFG904 summaries-every-run: summary ops are fetched on most runs instead of every N steps, with what they cost
(judge/summary_cost.py: the runs that fetch them against the same step without them, and the FileWriter's time)."""

from __future__ import annotations

from typing import List

from tfguard.runtime.diagnostics import RuntimeDiagnostic
from tfguard.runtime.document import format_seconds
from tfguard.runtime.judge.shares import judged
from tfguard.runtime.judge.summary_cost import summary_cost
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.verdict import Diagnostic


def percent(share: float) -> str:
    """A share as a whole percent; under half a percent is "<1%" (measured, not nothing)."""
    return "<1%" if 0 < share < 0.005 else "%d%%" % round(100 * share)


#: A measured cost under this share of wall time makes TFG904 information: the fetch is a habit that costs little
#: in this run (a small model, or a writer that keeps few of the summaries), not what slows it.
CHEAP_SHARE = 0.01


def judge(evidence: Evidence) -> List[Diagnostic]:
    """TFG904 when summary-fetching runs make up the `summary_share` option of the runs or more (a TF2 run's steps:
    judge/steps_writes.py)."""
    if evidence.steps is not None:
        from tfguard.runtime.judge import steps_writes

        return steps_writes.judge_summaries(evidence.steps, DIAGNOSTIC)
    recording = evidence.recording
    if recording is None:
        return []
    runs, options = recording.runs, recording.options
    fetching = [s for s in recording.signatures if s.summary_ops]
    count = sum(s.count for s in fetching)
    if not runs or count < options["min_runs"] or count / runs < options["summary_share"]:
        return []
    ops = sorted({op for s in fetching for op in s.summary_ops})
    cost = summary_cost(recording)
    wall = recording.wall_s
    writer = ""
    if cost["writer_calls"]:
        writer = "FileWriter.add_summary/flush %s in %d calls" % (format_seconds(cost["writer_s"]),
                                                                  cost["writer_calls"])
    if cost["pairs"] and wall > 0:
        # Some summary runs may have no like step (an evaluation step): what is measured is a lower bound.
        label, _base, with_, without = max(cost["pairs"], key=lambda p: p[2])
        measured = "took %s%s of wall time (%s: runs that fetch them took %s median against %s for the same " \
                   "step without them%s)" % (
                       "at least " if cost["unmatched_runs"] else "", percent(cost["seconds"] / wall),
                       format_seconds(cost["seconds"]), format_seconds(with_), format_seconds(without),
                       ", " + writer if writer else "")
    elif writer and wall > 0:
        measured = "cost %s of wall time in %s; their run time is not measured (no run of the same step " \
                   "without them to compare with)" % (percent(cost["writer_s"] / wall), writer)
    else:
        measured = "cost not measured (no run of the same step without them to compare with)"
    cheap = bool(cost["pairs"]) and not cost["unmatched_runs"] and wall > 0 and \
        cost["seconds"] / wall < CHEAP_SHARE
    advice = "fetch them every N steps instead"
    if cheap:  # the habit, named as such: a warning whose own figure says <1% reads as a contradiction
        advice = "cheap in this run; each fetch still evaluates every summary op, which costs on a larger model " \
                 "or with more summaries: %s" % advice
    return judged([DIAGNOSTIC.finding(
        "summary ops (%s) fetched on %d of %d runs %s" % (", ".join(ops), count, runs, measured),
        "info" if cheap else None, None, None, help=advice,
        summary_ops=ops, runs_fetching=count, runs=runs, seconds=cost["seconds"],
        seconds_lower_bound=bool(cost["unmatched_runs"]))], recording)


DIAGNOSTIC = RuntimeDiagnostic(
    "TFG904", "summaries-every-run", "warning", "Summary ops are fetched on most runs instead of every N steps.",
    "summaries", judge)
