"""Graph growth across the sessions that run one graph (across_sessions.py): pure functions, no TensorFlow."""

from __future__ import annotations

from tfguard.runtime.judge import judge_evidence
from tfguard.runtime.judge.across_sessions import folded_sessions
from tfguard.runtime.record.evidence import Evidence, SessionRecord
from tfguard.runtime.verdict import ACROSS_SESSIONS


def growth_across_sessions(sessions):
    """Every judge's findings on the sessions of a run (only TFG901 reads them)."""
    return judge_evidence(Evidence(ACROSS_SESSIONS, sessions=sessions))


def _site(line, ops, kind="setup"):
    return {"path": "app.py", "line": line, "code": "tf.train.import_meta_graph(path)", "api":
            "tf.train.import_meta_graph", "op_types": ["Const"], "rule": "TFG104", "fix": "", "ops_added": ops,
            "kind": kind}


def _session(number, graph=1, ran_before=True, runs=1, sites=(), start=0, end=10):
    return SessionRecord(number, "app.py:20", graph, ran_before, runs, start, end, list(sites))


def test_a_model_imported_again_for_each_session_on_one_graph_is_tfg901_error_with_its_line():
    sessions = [_session(1, ran_before=False, sites=[_site(24, 358)], end=358)]
    sessions += [_session(n, sites=[_site(24, 358)], start=358 * (n - 1), end=358 * n) for n in range(2, 12)]
    found = growth_across_sessions(sessions)
    assert [(d.code, d.severity) for d in found] == [("TFG901", "error")]
    assert "app.py:24" in found[0].headline and "10 sessions" in found[0].headline
    assert "0 -> 3938 ops" in found[0].headline and found[0].scope == ACROSS_SESSIONS
    assert (found[0].path, found[0].line) == ("app.py", 24) and found[0].evidence["sessions"] == list(range(1, 12))


def test_one_later_session_that_builds_once_is_information_only():
    found = growth_across_sessions([_session(1, ran_before=False), _session(2, sites=[_site(40, 12)])])
    assert [(d.code, d.severity) for d in found] == [("TFG901", "info")]


def test_sessions_made_before_any_ran_or_on_their_own_graphs_are_not_growth():
    made_first = [_session(1, ran_before=False, sites=[_site(24, 5)]),
                  _session(2, ran_before=False, sites=[_site(24, 5)])]
    own_graphs = [_session(n, graph=n, ran_before=False, sites=[_site(24, 5)]) for n in range(1, 5)]
    assert growth_across_sessions(made_first) == []
    assert growth_across_sessions(own_graphs) == []


def test_ops_a_session_adds_after_its_own_loop_started_are_judged_by_its_own_report():
    sessions = [_session(1, ran_before=False)] + [_session(n, sites=[_site(30, 2, "one-time")]) for n in range(2, 6)]
    assert growth_across_sessions(sessions) == []


def test_many_sessions_on_one_graph_fold_into_the_busiest():
    sessions = [_session(1, graph=1, runs=50)] + [_session(n, graph=2, runs=1 + (n == 4)) for n in range(2, 7)]
    folded = folded_sessions(sessions, 2)
    assert list(folded) == [4]
    assert [r.number for r in folded[4]] == [2, 3, 5, 6]
