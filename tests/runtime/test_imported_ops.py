"""Ops imported from a GraphDef have no Python traceback (`op.traceback is None`): the guard must run on, and
names the line that imported them (issue 30: an MNIST web app that restored its model per request)."""

from __future__ import annotations

import tfguard


def _graph_def(tf):
    exported = tf.Graph()
    with exported.as_default():
        a = tf.constant(2.0, name="a")
        tf.multiply(a, 3.0, name="b")
    return exported.as_graph_def()


def test_a_session_running_an_imported_graph_def_runs_to_the_end_under_watch(tf):
    graph_def = _graph_def(tf)
    graph = tf.Graph()
    values = []
    with graph.as_default():
        for _ in range(3):
            sess = tf.Session()
            with tfguard.watch(sess) as guard:
                tf.import_graph_def(graph_def, name="")  # the import line
                values.append(sess.run("b:0"))
            sess.close()
    assert values == [6.0, 6.0, 6.0]
    sites = guard.report.to_dict()["growth_sites"]
    assert [s["code"] for s in sites] == ['tf.import_graph_def(graph_def, name="")  # the import line']
    assert sites[0]["ops_added"] == 3 and sites[0]["api"].endswith("import_graph_def")
