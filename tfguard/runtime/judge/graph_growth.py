"""TFG901 graph-growth: the graph keeps growing while the loop runs (error), grew a few times after the loop
started (info), or code tried to add ops to a frozen graph (error); and the live alert of a repeated site.

Graph growth is the one judgement made while the program runs, since it is certain once it happened: a line
that grew the graph after `growth.REPEATED_EVENTS` different runs of the loop, and still did in the second half
of the loop so far, gets one GraphGrowthWarning (`growth_alert`); the site stays *repeated* in the final report
(`GrowthSite.alerted`), so the final report never contradicts the alert.

Across the sessions of a run (ACROSS_SESSIONS evidence), growth is judged per graph: across_sessions.py.
"""

from __future__ import annotations

from typing import Any, Dict, List

from tfguard.runtime.diagnostics import RuntimeDiagnostic
from tfguard.runtime.document import after_run, after_runs
from tfguard.runtime.judge.across_sessions import growth_across_sessions
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.record.growth import site_text, what_grew
from tfguard.runtime.record.recording import Recording
from tfguard.runtime.verdict import Diagnostic, Site

#: Sites named in one message (the JSON document has them all under growth_sites).
TOP_SITES = 3


def growth_alert(record: Dict[str, Any], step: int) -> str:
    """The live GraphGrowthWarning's text for a repeated growth site (`GrowthSite.to_dict()`)."""
    return ("tfguard: the graph keeps growing at %s: %s added after %d different runs since the loop started, "
            "most recently after run %d (static rule %s): %s" % (
                site_text(record), what_grew(record), record["events_in_loop"], step, record["rule"],
                record["fix"]))


def judge(evidence: Evidence) -> List[Diagnostic]:
    """TFG901 of one session's recording, or across the sessions of a run."""
    if evidence.recording is not None:
        return _judge_session(evidence.recording)
    return [DIAGNOSTIC.finding(g.headline, g.severity, g.top.get("path"), g.top.get("line"),
                               named=[Site(s["path"], s["line"]) for s in g.sites[1:]],
                               graph=g.graph, sessions=g.sessions, sites=g.sites)
            for g in growth_across_sessions(evidence.sessions)]


def _judge_session(recording: Recording) -> List[Diagnostic]:
    """TFG901 error (repeated sites or blocked changes) and TFG901 info (one-time sites) of one recording; the
    error's help is the first repeated site's fix."""
    found = []
    repeated, one_time, violations = recording.repeated, recording.one_time, recording.frozen_violations
    if repeated or violations:
        parts = ["%s: %s added after %d different runs since the loop started, most recently after run %d "
                 "(%d ops; static rule %s)" % (
                     site_text(s), what_grew(s), s.events_in_loop, s.last_step, s.ops_added, s.rule)
                 for s in repeated[:TOP_SITES]]
        parts += ["%s: blocked %s%s (static rule %s)" % (
            site_text(v), after_run(v.step) if v.step is not None else "",
            ", " + v.api if v.api else "", v.rule)
            for v in violations[:TOP_SITES]]
        message = "the graph keeps growing as steps go by" if repeated \
            else "code tried to add ops to the frozen graph"
        blamed = repeated[0] if repeated else violations[0]
        found.append(DIAGNOSTIC.finding(
            message + ": " + "; ".join(parts), "error", blamed.path, blamed.line,
            help=repeated[0].fix if repeated else "",
            named=[Site(s.path, s.line) for s in (repeated[:TOP_SITES] + violations[:TOP_SITES]) if s is not blamed],
            sites=[{"path": s.path, "line": s.line, "ops_added": s.ops_added, "runs_that_grew_it": s.events_in_loop,
                    "last_run": s.last_step, "rule": s.rule} for s in repeated],
            blocked=[{"path": v.path, "line": v.line, "after_run": v.step, "api": v.api, "rule": v.rule}
                     for v in violations]))
    if one_time:
        parts = ["%s: %s added %s (%d ops)" % (
            site_text(s), what_grew(s), after_runs(s.first_step, s.last_step), s.ops_added)
            for s in one_time[:TOP_SITES]]
        if violations:  # it stopped because the graph was frozen, not by itself
            message = "the graph grew after the loop started, until it was frozen: %s" % "; ".join(parts)
        else:
            message = ("the graph grew a few times after the loop started, then stopped: %s. Fine when it is "
                       "meant to happen once (lazy set-up); building it before the loop makes that "
                       "explicit" % "; ".join(parts))
        found.append(DIAGNOSTIC.finding(
            message, "info", one_time[0].path, one_time[0].line,
            named=[Site(s.path, s.line) for s in one_time[1:TOP_SITES]],
            sites=[{"path": s.path, "line": s.line, "ops_added": s.ops_added, "first_run": s.first_step,
                    "last_run": s.last_step} for s in one_time]))
    return found


DIAGNOSTIC = RuntimeDiagnostic(
    "TFG901", "graph-growth", "error", "The graph keeps growing while the training loop runs (error), grew a few "
    "times after the loop started (info), or code tried to add ops to a frozen graph (error).", "growth", judge)
