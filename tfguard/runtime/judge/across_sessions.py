"""Graph growth across the sessions that run one graph (TFG901), and which sessions to show as one.

Each session's guard judges growth from its own creation: the ops added before its first run are its set-up.
A program that makes a new Session and imports its model again (`import_meta_graph`) per request, on the one
default graph, then shows N sessions with "setup" ops each while the graph grows without end. Judged per graph:
ops that a session's set-up adds to a graph an earlier session had already run are growth, named by the line
that added them. The same line adding ops in `REPEATED_EVENTS` or more such sessions is the bug (TFG901 error);
fewer is information (a second session built for evaluation once). Pure functions over session records
(record/evidence.SessionRecord), so that the verdict is tested without TensorFlow; graph_growth.py declares the
diagnostic and makes its findings.
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Tuple

from tfguard.runtime.record.evidence import SessionRecord
from tfguard.runtime.record.growth import REPEATED_EVENTS, SETUP, UNATTRIBUTED, site_text, what_grew
from tfguard.runtime.verdict import SessionVerdict

#: Sites named in the message.
_TOP_SITES = 3


class GraphGrowth(NamedTuple):
    """Growth of one graph across its sessions: what TFG901 says about it (graph_growth.py makes the finding)."""

    headline: str
    severity: str
    graph: int
    sessions: List[int]
    #: The top sites, merged across the sessions (a site's ``sessions`` counts them).
    sites: List[Dict[str, Any]]

    @property
    def top(self) -> Dict[str, Any]:
        """The site blamed: the one added in most sessions."""
        return self.sites[0] if self.sites else {}


def graph_groups(records: List[SessionRecord]) -> List[List[SessionRecord]]:
    """The records by graph, in the order each graph was first run; sessions in creation order."""
    groups: Dict[Any, List[SessionRecord]] = {}
    for record in sorted(records, key=lambda r: r.number):
        groups.setdefault(record.graph, []).append(record)
    return list(groups.values())


def growth_across_sessions(records: List[SessionRecord]) -> List[GraphGrowth]:
    """Graphs whose later sessions' set-up added ops after an earlier session had run the graph (see the module
    docstring)."""
    found = []
    for group in graph_groups(records):
        later = [r for r in group if r.ran_before]
        sites: Dict[Tuple[str, int], Dict[str, Any]] = {}
        for record in later:
            for site in record.growth_sites:
                if site["kind"] != SETUP or (site["path"], site["line"]) == UNATTRIBUTED:
                    continue
                merged = sites.get((site["path"], site["line"]))
                if merged is None:
                    merged = sites[(site["path"], site["line"])] = dict(site, ops_added=0, sessions=0)
                merged["ops_added"] += site["ops_added"]
                merged["sessions"] += 1
        if not sites:
            continue
        ranked = sorted(sites.values(), key=lambda s: (-s["sessions"], -s["ops_added"], s["path"], s["line"]))
        repeated = [s for s in ranked if s["sessions"] >= REPEATED_EVENTS]
        first, last = group[0], group[-1]
        parts = ["%s: %s added in %d session%s (%d ops; static rule %s)" % (
            site_text(s), what_grew(s), s["sessions"], "" if s["sessions"] == 1 else "s", s["ops_added"], s["rule"])
            for s in (repeated or ranked)[:_TOP_SITES]]
        size = "%d -> %d ops" % (first.nodes_start, last.nodes_end)
        if repeated:
            message = ("the graph keeps growing across sessions: %d sessions ran one graph (first created at %s), "
                       "and %d of them added ops to it before their first run after an earlier session had run it "
                       "(%s): %s" % (len(group), first.created_at, len(later), size, "; ".join(parts)))
            severity = "error"
        else:
            message = ("the graph grew across sessions: a later session added ops to a graph an earlier session "
                       "had run (%s): %s. Fine when it is meant to happen once; one graph per session, or building "
                       "it once, makes that explicit" % (size, "; ".join(parts)))
            severity = "info"
        found.append(GraphGrowth(message, severity, first.graph, [r.number for r in group], ranked[:_TOP_SITES]))
    return found


def folded_sessions(records: List[SessionRecord], shown: int) -> Dict[int, List[SessionRecord]]:
    """Sessions reported once: for each graph run by more than `shown` sessions, the number of its busiest
    session -> the other sessions of that graph, whose tables are left out (one line says how many)."""
    folded = {}
    for group in graph_groups(records):
        if len(group) > shown:
            busiest = max(group, key=lambda r: (r.runs, -r.number))
            folded[busiest.number] = [r for r in group if r is not busiest]
    return folded


def session_record(session: SessionVerdict) -> SessionRecord:
    """A session of a run verdict as this module reads it."""
    figures = session.figures
    return SessionRecord(session.number, session.created_at, session.graph_number, session.graph_ran_before,
                         figures["runs"], figures["nodes_start"], figures["nodes_end"], figures["growth_sites"])
