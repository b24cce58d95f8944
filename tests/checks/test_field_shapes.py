"""Shapes from field tests on fresh TF1 repositories, each with the case that must stay reported."""

from __future__ import annotations

import textwrap

import tfguard
from tfguard.static.config import Settings


def found(source: str, select: str = "ALL") -> list:
    findings = tfguard.check_source(textwrap.dedent(source), "snippet.py", Settings(select=(select,)))
    return [(f.line, f.code) for f in findings]


GAN_LOOP = """\
    import numpy as np
    import tensorflow as tf
    z = tf.placeholder(tf.float32, [None, 8])
    g_obj = tf.reduce_mean(tf.layers.dense(z, 1))
    g_opt = tf.train.AdamOptimizer(1e-3).minimize(g_obj)
    def generate_z(n=16):
        return np.random.uniform(-1, 1, (n, 8))
    with tf.Session() as sess:
        for i in range(200):
            sess.run(g_opt, feed_dict={z: {fed}})
            g_cost = sess.run(g_obj, feed_dict={z: {fed}})
    """


def test_two_runs_fed_by_a_fresh_call_each_feed_two_values():
    # ``{z: generate_z()}`` in two runs: two random draws, not one feed
    assert found(GAN_LOOP.replace("{fed}", "generate_z()"), "TFG203") == []
    assert found(GAN_LOOP.replace("{fed}", "np.random.uniform(-1, 1, (16, 8))"), "TFG203") == []


def test_two_runs_fed_the_same_name_are_still_one_feed():
    loop = "        for i in range(200):\n"
    source = GAN_LOOP.replace(loop, loop + "            b = generate_z()\n")
    assert found(source.replace("{fed}", "b"), "TFG203") == [(12, "TFG203")]


STYLES = """\
    import tensorflow as tf
    g = tf.Graph()
    with g.as_default(), tf.Session() as sess:
        image = tf.placeholder("float", [1, 4])
    for i in range(100):
        {rebind}
        with g.as_default(), g.device("/cpu:0"), tf.Session() as sess:
            image = tf.placeholder("float", [1, 4])
            print(sess.run(tf.reduce_sum(image), {image: [[1, 2, 3, 4]]}))
    """


def test_a_graph_rebound_at_the_top_of_the_loop_is_fresh():
    assert found(STYLES.replace("{rebind}", "g = tf.Graph()")) == []


def test_the_graph_made_before_the_loop_is_not_fresh():
    codes = {code for _, code in found(STYLES.replace("{rebind}", "pass"))}
    assert "TFG102" in codes and "TFG105" in codes


def test_a_scalar_protocol_buffer_written_every_step_is_a_scalar():
    source = """\
        import tensorflow as tf
        writer = tf.summary.FileWriter("logs")
        loss = tf.reduce_mean(tf.random_normal([4]))
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        with tf.Session() as sess:
            for t in range(100000):
                summary = tf.Summary()
                summary.value.add(simple_value=0.1 * t, tag="epsilon")
                writer.add_summary(summary, t)
                sess.run(train)
        """
    assert found(source, "TFG201") == []
    assert found(source.replace("simple_value=0.1 * t", "histo=None"), "TFG201") == [(9, "TFG201")]


ESTIMATOR = """\
    import numpy as np
    import tensorflow as tf
    class Estimator(object):
        def __init__(self, summaries_dir=None):
            self.summary_writer = None
            self.x = tf.placeholder(tf.float32, [None, 4])
            self.loss = tf.reduce_mean(tf.layers.dense(self.x, 1))
            self.train_op = tf.train.AdamOptimizer(1e-3).minimize(self.loss)
            self.summaries = tf.summary.merge([tf.summary.histogram("q", self.loss)])
            if summaries_dir:
                self.summary_writer = tf.summary.FileWriter(summaries_dir)
        def update(self, sess, s):
            summaries, _ = sess.run([self.summaries, self.train_op], {self.x: s})
            if self.summary_writer:
                self.summary_writer.add_summary(summaries)
        {other}
    q = Estimator("logs")
    with tf.Session() as sess:
        for t in range(100000):
            q.update(sess, np.random.rand(8, 4))
    """


def test_a_helper_guarded_by_an_attribute_set_only_in_init_writes_on_every_call():
    assert found(ESTIMATOR.replace("{other}", ""), "TFG201") == [(20, "TFG201")]


def test_an_attribute_another_method_changes_still_guards():
    other = "def mute(self):\n            self.summary_writer = None"
    assert found(ESTIMATOR.replace("{other}", other), "TFG201") == []


def test_a_variable_list_sorted_in_place_is_still_a_variable_list():
    source = """\
        import tensorflow as tf
        def copy_model_parameters(sess, scope1, scope2):
            e1 = [t for t in tf.trainable_variables() if t.name.startswith(scope1)]
            e1 = sorted(e1, key=lambda v: v.name)
            e2 = [t for t in tf.trainable_variables() if t.name.startswith(scope2)]
            e2 = sorted(e2, key=lambda v: v.name)
            sess.run([b.assign(a) for a, b in zip(e1, e2)])
        loss = tf.reduce_mean(tf.random_normal([4]))
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        with tf.Session() as sess:
            for t in range(100000):
                if t % 1000 == 0:
                    copy_model_parameters(sess, "q", "target_q")
                sess.run(train)
        """
    assert found(source, "TFG108") == [(13, "TFG108")]


def test_a_pipeline_bound_in_two_branches_names_both_starts():
    source = """\
        import tensorflow as tf
        files = tf.placeholder(tf.string, [None])
        if FORMAT == "tfrecords":
            ds = tf.data.TFRecordDataset(files).batch(64)
        else:
            ds = tf.data.TextLineDataset(files).batch(64)
        it = ds.make_initializable_iterator()
        """
    findings = [f for f in tfguard.check_source(textwrap.dedent(source), "s.py") if f.code == "TFG205"]
    assert len(findings) == 1 and "started at line 4 or line 6" in findings[0].message


def test_sess_run_in_a_class_that_defines_run_is_the_sessions_run():
    # a thread worker's ``run(self, sess, coord)``: ``sess.run(...)`` in it is no call of ``Worker.run``
    source = """\
        import tensorflow as tf
        class Worker(object):
            def __init__(self, writer=None):
                self.writer = writer
                self.loss = tf.reduce_mean(tf.random_normal([4]))
                self.summaries = tf.summary.merge([tf.summary.histogram("h", self.loss)])
            def run(self, sess, coord):
                while not coord.should_stop():
                    self.update(sess)
            def update(self, sess):
                s = sess.run(self.summaries)
                if self.writer is not None:
                    self.writer.add_summary(s)
        """
    assert found(source, "TFG201") == [(9, "TFG201")]
