"""False alarms seen on real TF1 code, each with its bad twin: complete files through ``tfguard.check_source``."""

from __future__ import annotations

import textwrap

import tfguard
from tfguard.static.config import Settings


def found(source: str, select: str = "ALL") -> list:
    """Return the (line, code) findings of ``source`` with ``select`` rules."""
    findings = tfguard.check_source(textwrap.dedent(source), "snippet.py", Settings(select=(select,)))
    return [(f.line, f.code) for f in findings]


# -- fresh graphs: a session made under a fresh graph, a helper that returns one ---------------------

def test_session_in_the_same_with_as_a_fresh_graph_belongs_to_it():
    assert found("""\
        import tensorflow as tf
        for trial in range(10):
            with tf.Graph().as_default(), tf.Session() as s:
                x = tf.constant(1.0)
                s.run(x)
        """) == []


def test_session_before_the_fresh_graph_in_the_same_with_is_on_the_old_graph():
    assert found("""\
        import tensorflow as tf
        x = tf.constant(1.0)
        for trial in range(10):
            with tf.Session() as s, tf.Graph().as_default():
                s.run(x)
        """) == [(4, "TFG105")]


def test_a_helper_that_returns_a_fresh_graph_makes_a_fresh_graph():
    assert found("""\
        import tensorflow as tf

        def make_graph():
            g = tf.Graph()
            with g.as_default():
                tf.constant(1.0)
            return g

        for trial in range(10):
            g = make_graph()
            with g.as_default():
                sess = tf.Session()
                sess.run(tf.constant(2.0))
        """) == []


def test_a_helper_that_returns_the_default_graph_is_no_fresh_graph():
    assert found("""\
        import tensorflow as tf

        def current_graph():
            return tf.get_default_graph()

        for trial in range(10):
            g = current_graph()
            with g.as_default():
                sess = tf.Session()
                sess.run(tf.constant(2.0))
        """) == [(9, "TFG105"), (10, "TFG102")]


# -- indexing a Python list a TF API returns builds no op ----------------------------------------------

LISTS = """\
    import tensorflow as tf
    x = tf.placeholder(tf.float32, [None, 5, 3])
    inputs = tf.unstack(x, axis=1)
    cell = tf.nn.rnn_cell.BasicLSTMCell(4)
    outputs, state = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
    parts = tf.split(x, 5, axis=1)
    grads = tf.gradients(tf.reduce_sum(x), [x])
    opt = tf.train.AdamOptimizer()
    gv = opt.compute_gradients(tf.reduce_sum(outputs[-1]))
    tvars = tf.trainable_variables()
    with tf.Session() as sess:
        for step in range(100):
            sess.run(state)
"""


def test_indexing_lists_returned_by_tf_builds_no_op():
    body = """\
            last = outputs[-1]
            first = outputs[0:2]
            p0 = parts[0]
            g0 = grads[0]
            grad, var = gv[0]
            g = gv[0][0]
            v0 = tvars[0]
            u = inputs[1]
    """
    assert found(LISTS + body) == []


def test_indexing_a_tensor_or_computing_on_a_list_item_builds_ops():
    body = """\
            bad = x[0]
            worse = outputs[-1] + 1.0
            grad = gv[0][0] * 2.0
    """
    assert found(LISTS + body) == [(14, "TFG102"), (15, "TFG102"), (16, "TFG102")]


def test_legacy_seq2seq_outputs_are_a_list():
    assert found("""\
        import tensorflow as tf
        enc = [tf.placeholder(tf.int32, [None]) for _ in range(3)]
        outputs, states = tf.contrib.legacy_seq2seq.embedding_rnn_seq2seq(enc, enc, None, 10, 10, 8)
        with tf.Session() as sess:
            for step in range(10):
                sess.run(states)
                logits = outputs[-1]
        """) == []


# -- `if param is None:` on a None-default parameter is no cache ---------------------------------------

NONE_DEFAULT = """\
    import tensorflow as tf
    loss = tf.constant(1.0)
    shared = tf.train.AdamOptimizer().minimize(loss)

    def step(sess, train_op=None):
        if train_op is None:
            train_op = tf.train.AdamOptimizer().minimize(loss)
        return sess.run(train_op)

    class Model(object):
        def __init__(self):
            self._op = None

        def op(self):
            if self._op is None:
                self._op = tf.reduce_sum(loss)
            return self._op

    m = Model()
    with tf.Session() as sess:
        for i in range(100):
"""


def test_a_none_default_parameter_left_none_builds_on_every_call():
    assert found(NONE_DEFAULT + """\
            step(sess)
            step(sess, None)
            sess.run(m.op())
    """) == [(22, "TFG102"), (23, "TFG102")]


def test_a_none_default_parameter_passed_builds_nothing_and_a_real_cache_builds_once():
    assert found(NONE_DEFAULT + """\
            step(sess, shared)
            step(sess, train_op=shared)
            sess.run(m.op())
    """) == []
