"""tfguard.frozen: the graph is read-only inside the block and every exit restores it."""

from __future__ import annotations

import os

import pytest

import tfguard
from tfguard.runtime.capture.session_tap import SessionTap


def _session_state(sess):
    return (dict(vars(sess)), sess.graph.finalized)


def test_saver_in_loop_raises_with_line_api_and_step(tf, graph, sess):
    g, parts = graph
    with pytest.raises(tfguard.GraphFrozenError) as info:
        with g.as_default(), tfguard.frozen(sess):
            for _ in range(3):
                sess.run(parts["step"], feed_dict={parts["x"]: 1.0})
                saver = tf.train.Saver()  # noqa: F841  # the line under test
    err = info.value
    assert isinstance(err, RuntimeError)
    assert err.path == __file__
    assert "saver = tf.train.Saver()" in err.code
    assert err.api == "tf.train.Saver"
    assert err.step == 1
    assert err.rule == "TFG101"
    # the message names the file as the report and the live alert do (relative to the working folder, issue 45);
    # err.path stays absolute, for programs that read it
    assert "%s:%d" % (os.path.relpath(__file__), err.line) in str(err)
    assert "Saver" in str(err) and "before the loop" in str(err)
    assert not g.finalized


def test_frozen_records_runs_and_restores_session(tf, graph, sess):
    g, parts = graph
    before = _session_state(sess)
    with tfguard.frozen(sess) as guard:
        assert g.finalized
        assert "run" in vars(sess)
        for _ in range(12):
            sess.run(parts["step"], feed_dict={parts["x"]: 1.0})
        sess.run(parts["w"])
    assert _session_state(sess) == before
    report = guard.report
    assert report.runs == 13
    assert report.nodes_added == 0
    sig = report.signature("step")
    assert sig["count"] == 12 and sig["interval"]["count"] == 11
    assert report.signature("w:0")["count"] == 1
    assert 0.0 <= report.host_fraction <= 1.0
    assert report.run_s <= report.wall_s


def test_already_finalized_graph_stays_finalized(tf, graph, sess):
    g, parts = graph
    g.finalize()
    with tfguard.frozen(sess) as guard:
        sess.run(parts["w"])
    assert g.finalized
    assert guard.report.runs == 1
    g._unsafe_unfinalize()


@pytest.mark.parametrize("exc_type", [ValueError, KeyboardInterrupt])
def test_every_exit_restores_and_propagates(tf, graph, sess, exc_type):
    g, parts = graph
    before = _session_state(sess)
    with pytest.raises(exc_type):
        with tfguard.frozen(sess):
            sess.run(parts["w"])
            raise exc_type("boom")
    assert _session_state(sess) == before
    assert not SessionTap._taps
    with g.as_default():
        tf.constant(1.0)  # the graph is writable again


def test_nested_guards_restore_in_order(tf, graph, sess):
    g, parts = graph
    before = _session_state(sess)
    with tfguard.watch(sess) as outer:
        sess.run(parts["w"])
        with tfguard.frozen(sess) as inner:
            sess.run(parts["w"])
            assert g.finalized
        assert not g.finalized
        sess.run(parts["w"])
    assert _session_state(sess) == before
    assert outer.report.runs == 3 and inner.report.runs == 1


def test_two_sessions_at_once(tf, graph, sess):
    g, parts = graph
    other_graph = tf.Graph()
    with other_graph.as_default():
        c = tf.constant(2.0)
    other = tf.Session(graph=other_graph)
    with tfguard.frozen(sess) as a, tfguard.watch(other) as b:
        sess.run(parts["w"])
        other.run(c)
        other.run(c)
    assert (a.report.runs, b.report.runs) == (1, 2)
    assert "run" not in vars(other) and "run" not in vars(sess)
    other.close()


def test_make_callable_and_partial_run_are_recorded(tf, graph, sess):
    g, parts = graph
    with tfguard.frozen(sess) as guard:
        call = sess.make_callable(parts["step"], [parts["x"]])
        for _ in range(5):
            call(1.0)
    assert guard.report.runs == 5
    assert guard.report.signature("step")["count"] == 5
    with g.as_default():
        a = tf.placeholder(tf.float32, [])
        b = a * 2.0
    with tfguard.watch(sess) as guard:
        handle = sess.partial_run_setup([b], [a])
        assert sess.partial_run(handle, b, feed_dict={a: 3.0}) == 6.0
    assert guard.report.runs == 1


def test_queue_runner_threads_are_counted_apart(tf):
    g = tf.Graph()
    with g.as_default():
        queue = tf.FIFOQueue(8, tf.float32)
        enqueue = queue.enqueue(tf.constant(1.0))
        dequeue = queue.dequeue()
        runner = tf.train.QueueRunner(queue, [enqueue])
    sess = tf.Session(graph=g)
    coord = tf.train.Coordinator()
    with tfguard.frozen(sess) as guard:
        threads = runner.create_threads(sess, coord=coord, start=True)
        for _ in range(20):
            sess.run(dequeue)
        coord.request_stop()
    coord.join(threads, stop_grace_period_secs=5, ignore_live_threads=True)
    report = guard.report
    assert report.runs == 20
    # 20 dequeues need 20 finished enqueues; the runner's one thread may still be returning
    # from the last of them when the block ends, so at least 19 were recorded.
    assert report.other_thread_runs >= 19
    assert [s["label"] for s in report.signatures] == [dequeue.name]
    sess.close()


def test_session_on_server_target(tf):
    import socket

    ports = []
    for _ in range(2):
        s = socket.socket()
        s.bind(("localhost", 0))
        ports.append(s.getsockname()[1])
        s.close()
    cluster = tf.train.ClusterSpec({"ps": ["localhost:%d" % ports[0]], "worker": ["localhost:%d" % ports[1]]})
    tf.train.Server(cluster, job_name="ps", task_index=0)
    worker = tf.train.Server(cluster, job_name="worker", task_index=0)
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            w = tf.Variable(0.0)
        with tf.device("/job:worker/task:0"):
            inc = tf.assign_add(w, 1.0)
        init = tf.global_variables_initializer()
    sess = tf.Session(worker.target, graph=g)
    sess.run(init)
    with pytest.raises(tfguard.GraphFrozenError) as info:
        with tfguard.frozen(sess) as guard:
            for _ in range(4):
                sess.run(inc)
            with g.as_default():
                tf.constant(3.0)
    assert info.value.api == "tf.constant"
    assert guard.report.runs == 4 and sess.run(w) == 4.0
    sess.close()


def test_interactive_session(tf):
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0)
        sess = tf.InteractiveSession(graph=g)
    with tfguard.frozen(sess) as guard:
        c.eval()  # Tensor.eval goes through the default session's run
        sess.run(c)
    assert guard.report.runs >= 1
    sess.close()


def test_keras_backend_session(tf):
    keras_backend = getattr(getattr(tf, "keras", None), "backend", None)
    get_session = getattr(keras_backend, "get_session", None)
    if get_session is None:
        pytest.skip("tf.compat.v1.keras.backend.get_session is not available (Keras 3)")
    sess = get_session()
    with sess.graph.as_default():
        c = tf.constant(1.0)
    with tfguard.frozen(sess) as guard:
        sess.run(c)
    assert guard.report.runs == 1


def test_unknown_option_is_a_clear_error(sess):
    with pytest.raises(TypeError, match="unknown tfguard option"):
        tfguard.frozen(sess, colour="red")
    with pytest.raises(TypeError, match="needs a TensorFlow session"):
        tfguard.watch(object())


def test_signatures_are_kept_apart_within_one_batch_of_runs(tf):
    """Runs are queued and folded in batches: a batch mixing fetches and feed keys still splits."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        keep = tf.placeholder_with_default(1.0, [], name="keep")
        y = tf.identity(x * keep, name="y")
        z = tf.identity(x + 1.0, name="z")
    session = tf.Session(graph=g)
    fetch_list = [y, z]
    with tfguard.frozen(session) as guard:
        for step in range(60):
            session.run(y, feed_dict={x: 1.0})
            session.run(y, feed_dict={x: 1.0, keep: 0.5})  # same fetch, other feed keys
            session.run([y, z], feed_dict={x: 2.0})  # a new list every step
            if step % 3 == 0:
                session.run(fetch_list, feed_dict={x: 2.0})
                fetch_list.append(z)  # the same list object, mutated between runs
        assert guard.report.runs == 200  # queued runs count before they are folded
    session.close()
    counts = sorted((s["label"], s["count"]) for s in guard.report.to_dict()["signatures"])
    mutated = [("y:0, %s <- x:0" % ", ".join(["z:0"] * n), 1) for n in range(2, 21)]
    assert counts == sorted([("y:0 <- x:0", 60), ("y:0 <- x:0, keep:0", 60), ("y:0, z:0 <- x:0", 61)] + mutated)
    for sig in guard.report.to_dict()["signatures"]:
        assert sig["interval"]["count"] == sig["count"] - 1


def test_session_with_another_run_signature_is_recorded_through_the_generic_wrapper(tf, graph):
    g, parts = graph

    class TracingSession(tf.Session):
        def run(self, fetches, feed_dict=None, options=None, run_metadata=None, trace=False):
            self.traced = trace
            return super().run(fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata)

    session = TracingSession(graph=g)
    session.run(parts["init"])
    with tfguard.frozen(session) as guard:
        for _ in range(3):
            session.run(parts["step"], {parts["x"]: 1.0}, trace=True)
        assert session.traced is True  # the extra argument reaches the session's own run
        session.run(parts["w"])
    assert "run" not in vars(session)
    assert guard.report.runs == 4
    assert guard.report.signature("step <- x:0")["count"] == 3
    session.close()


def test_callables_from_options_are_recorded_as_keras_makes_them(tf, graph, sess):
    """`model.fit` of tf.compat.v1.keras / tf_keras runs its steps through these callables."""
    import numpy
    from tensorflow.core.protobuf import config_pb2

    g, parts = graph
    with g.as_default():
        tf.identity(parts["x"] * 2.0, name="y")
    options = config_pb2.CallableOptions()
    options.feed.append(parts["x"].name)
    options.fetch.append("y:0")
    options.target.append(parts["step"].name)
    with tfguard.frozen(sess) as guard:
        handle = sess._make_callable_from_options(options)
        for _ in range(25):
            handle(numpy.float32(1.0))
    assert "_make_callable_from_options" not in vars(sess)
    report = guard.report
    assert report.runs == 25 and report.signatures[0]["count"] == 25
    assert "step" in report.signatures[0]["label"] and "x:0" in report.signatures[0]["label"]
