"""TFG901 names the static rule TFG109 when the growth comes from a function that builds ops and runs them per call."""

from __future__ import annotations

import warnings

import tfguard


def _predictor(tf, parts, sess):
    def predict(value):
        doubled = parts["w"] * 2.0  # the growth site: one more op on every call
        return sess.run(doubled, feed_dict={parts["x"]: value})

    return predict


def _site_rules(report):
    return {(site["line"], site["rule"]) for site in report.to_dict()["growth_sites"]}


def _diagnostic(report, code):
    return dict((c, m) for c, _, m in report.diagnostics).get(code, "")


def test_function_called_again_and_again_is_tfg109(tf, graph, sess):
    g, parts = graph
    predict = _predictor(tf, parts, sess)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with g.as_default(), tfguard.watch(sess) as guard:
            list(map(predict, [1.0, 2.0, 3.0, 4.0]))  # called by code that is not a loop of this file
    report = guard.report
    ((line, rule),) = _site_rules(report)
    assert "the growth site" in open(__file__).read().splitlines()[line - 1]
    assert rule == "TFG109"
    assert "static rule TFG109" in _diagnostic(report, "TFG901")
    growth = [w for w in caught if issubclass(w.category, tfguard.GraphGrowthWarning)]
    assert len(growth) == 1 and "TFG109" in str(growth[0].message)


def test_function_called_from_a_loop_of_the_project_keeps_the_loop_rule(tf, graph, sess):
    g, parts = graph
    predict = _predictor(tf, parts, sess)
    with g.as_default(), tfguard.watch(sess, warn=False) as guard:
        for value in (1.0, 2.0, 3.0, 4.0):
            predict(value)  # the static rule reports this call: TFG102
    assert {rule for _, rule in _site_rules(guard.report)} == {"TFG102"}
    assert "TFG109" not in _diagnostic(guard.report, "TFG901")


def test_op_built_in_the_loop_that_runs_it_keeps_the_loop_rule(tf, graph, sess):
    g, parts = graph
    with g.as_default(), tfguard.watch(sess, warn=False) as guard:
        for value in (1.0, 2.0, 3.0):
            sess.run(parts["w"] * 2.0, feed_dict={parts["x"]: value})
    assert {rule for _, rule in _site_rules(guard.report)} == {"TFG102"}
