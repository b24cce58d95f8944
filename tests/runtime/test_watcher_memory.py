"""`tfguard run`'s watcher keeps a finished session's report, never the session or its graph."""

from __future__ import annotations

import gc
import weakref

from tfguard.runtime.run.autowatch import SessionWatcher


def _trial(tf, close):
    """One trial of a hyper-parameter sweep: its own graph and session, trained a few steps."""
    graph = tf.Graph()
    with graph.as_default():
        w = tf.Variable(tf.zeros([64, 64]))
        step = tf.assign_add(w, tf.ones([64, 64]))
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            sess.run(step)
    if close:
        sess.close()
    return weakref.ref(sess), weakref.ref(graph)


def test_sweep_sessions_and_graphs_are_freed_reports_kept(tf):
    watcher = SessionWatcher()
    watcher.install()  # TensorFlow is loaded: the classes are patched at once
    try:
        refs = []
        freed_at_once = []
        for trial in range(6):
            refs.append(_trial(tf, close=trial % 2 == 0))
            freed_at_once.append(refs[-1][0]() is None)  # before any garbage collection
        gc.collect()
        sessions = watcher.finish()
    finally:
        watcher.uninstall()
    # Closed or dropped, a session is freed with the program's last reference to it, as it is
    # without tfguard (the guard's wrappers hold it weakly).
    assert freed_at_once == [True] * 6
    assert len(sessions) == 6
    assert all(s.guard is None and s.report.runs == 6 for s in sessions)
    gc.collect()
    assert [graph() for _, graph in refs] == [None] * 6  # only the reports are kept
