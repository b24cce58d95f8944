"""Unit tests for the throughput rules TFG201–TFG205 (snippets through ``tfguard.check_source``)."""

from __future__ import annotations

import textwrap

import pytest

import tfguard
from tfguard.static.config import Settings

HEADER = """\
import time
import tensorflow as tf
FLAGS = tf.app.flags.FLAGS
x = tf.placeholder(tf.float32, [None, 10])
loss = tf.reduce_mean(tf.layers.dense(x, 1))
train_op = tf.train.AdamOptimizer().minimize(loss)
tf.summary.histogram('loss', loss)
merged = tf.summary.merge_all()
saver = tf.train.Saver()
writer = tf.summary.FileWriter('/tmp/logs')
sess = tf.Session()
"""
HEADER_LINES = HEADER.count("\n")


def lines_of(code: str, body: str) -> list:
    """Return the lines (relative to ``body``) where ``code`` fires on HEADER + body."""
    source = HEADER + textwrap.dedent(body)
    findings = tfguard.check_source(source, "snippet.py", Settings(select=(code,)))
    return [f.line - HEADER_LINES for f in findings]


def messages_of(code: str, body: str) -> list:
    """Return the messages of ``code`` on HEADER + body."""
    source = HEADER + textwrap.dedent(body)
    return [f.message for f in tfguard.check_source(source, "snippet.py", Settings(select=(code,)))]


# -- TFG201 summary-every-step -----------------------------------------------------------

@pytest.mark.parametrize("body, expected", [
    pytest.param("""\
        for step in range(1000):
            s, _ = sess.run([merged, train_op])
            writer.add_summary(s, step)
        """, [3], id="unguarded-write"),
    pytest.param("""\
        for step in range(1000):
            _ = sess.run(train_op)
            if config.dataset == 'mnist':
                writer.add_summary(sess.run(merged), step)
        """, [4], id="invariant-condition-is-no-guard"),
    pytest.param("""\
        for step in range(1000):
            sess.run(train_op)
            if FLAGS.verbose:
                writer.add_summary(sess.run(merged), step)
            elif True:
                writer.add_summary(sess.run(merged), step)
        """, [4, 6], id="flag-and-true-are-no-guards"),
    pytest.param("""\
        for step in range(1000):
            try:
                with tf.name_scope('x'):
                    s, _ = sess.run([merged, train_op])
                    writer.add_summary(s, step)
            except tf.errors.OutOfRangeError:
                break
        """, [5], id="try-and-with-are-no-guards"),
    pytest.param("""\
        step = 0
        while True:
            s, _ = sess.run([merged, train_op])
            if step % 100 == 0:
                writer.add_summary(s, step)
            step += 1
        """, [3], id="guarded-write-but-summary-fetched-every-step"),
    pytest.param("""\
        class Trainer(object):
            def __init__(self):
                self.writer = tf.summary.FileWriter('/tmp/x')
            def train(self, sess):
                for i in range(100):
                    s, _ = sess.run([merged, train_op])
                    self.writer.add_summary(s, i)
        """, [7], id="writer-on-self"),
    pytest.param("""\
        other = make_writer()
        for step in range(100):
            s, _ = sess.run([merged, train_op])
            other.add_summary(s, step)
        """, [4], id="a-writer-from-code-tfguard-cannot-read"),
])
def test_summary_every_step_fires(body, expected):
    assert lines_of("TFG201", body) == expected


@pytest.mark.parametrize("body", [
    pytest.param("""\
        for step in range(1000):
            sess.run(train_op)
            if step % 100 == 0:
                writer.add_summary(sess.run(merged), step)
        """, id="step-modulo-guard"),
    pytest.param("""\
        last = time.time()
        for i in range(1000):
            sess.run(train_op)
            if time.time() - last > 600:
                writer.add_summary(sess.run(merged), i)
        """, id="time-guard"),
    pytest.param("""\
        for i in range(1000):
            sess.run(train_op)
            if FLAGS.is_chief and (i + 1) % FLAGS.save_every == 0:
                writer.add_summary(sess.run(merged), i)
        """, id="chief-and-modulo-guard"),
    pytest.param("""\
        for step in range(1000):
            sess.run(train_op)
            if step % 100 != 0:
                continue
            writer.add_summary(sess.run(merged), step)
        """, id="continue-above-is-a-guard"),
    pytest.param("""\
        for step in range(1000):
            loss_value, _ = sess.run([loss, train_op])
            if loss_value > 10.0:
                writer.add_summary(sess.run(merged), step)
        """, id="value-from-sess-run-is-a-guard"),
    pytest.param("""\
        for epoch in range(100):
            for step in range(100):
                sess.run(train_op)
            writer.add_summary(sess.run(merged), epoch)
        """, id="once-per-epoch"),
    pytest.param("""\
        writer.add_summary(sess.run(merged), 0)
        """, id="outside-any-loop"),
    pytest.param("""\
        class Log(object):
            def add_summary(self, s, step):
                print(step)
        other = Log()
        for step in range(100):
            s, _ = sess.run([merged, train_op])
            other.add_summary(s, step)
        """, id="a-local-class-that-writes-no-summary"),
])
def test_summary_every_step_silent(body):
    assert lines_of("TFG201", body) == []


def test_summary_message_names_loop_and_defaults():
    (message,) = messages_of("TFG201", """\
        for step in range(1000):
            s, _ = sess.run([merged, train_op])
            writer.add_summary(s, step)
        """)
    assert "`writer.add_summary()`" in message
    assert f"at line {HEADER_LINES + 1}" in message
    assert "every 100 steps" in message


# -- TFG202 checkpoint-every-step --------------------------------------------------------

@pytest.mark.parametrize("body, expected", [
    pytest.param("""\
        for step in range(1000):
            sess.run(train_op)
            saver.save(sess, '/tmp/model.ckpt', global_step=step)
        """, [3], id="unguarded"),
    pytest.param("""\
        while True:
            sess.run(train_op)
            if FLAGS.save:
                saver.save(sess, '/tmp/model.ckpt')
        """, [4], id="invariant-flag"),
])
def test_checkpoint_every_step_fires(body, expected):
    assert lines_of("TFG202", body) == expected


@pytest.mark.parametrize("body", [
    pytest.param("""\
        for step in range(1000):
            sess.run(train_op)
            if step % 1000 == 0:
                saver.save(sess, '/tmp/model.ckpt', global_step=step)
        """, id="modulo-guard"),
    pytest.param("""\
        for epoch in range(100):
            for batch in range(100):
                sess.run(train_op)
            saver.save(sess, '/tmp/model.ckpt', global_step=epoch)
        """, id="once-per-epoch"),
    pytest.param("""\
        for step in range(1000):
            sess.run(train_op)
        saver.save(sess, '/tmp/model.ckpt')
        """, id="after-the-loop"),
])
def test_checkpoint_every_step_silent(body):
    assert lines_of("TFG202", body) == []


def test_checkpoint_message_names_tf_default():
    (message,) = messages_of("TFG202", """\
        for step in range(1000):
            sess.run(train_op)
            saver.save(sess, '/tmp/model.ckpt')
        """)
    assert "600 seconds" in message and f"line {HEADER_LINES + 1}" in message


# -- TFG203 split-session-run ------------------------------------------------------------

@pytest.mark.parametrize("body, expected", [
    pytest.param("""\
        for step in range(1000):
            sess.run(train_op, feed_dict={x: batch})
            l = sess.run(loss, feed_dict={x: batch})
            acc = loss.eval(feed_dict={x: batch}, session=sess)
        """, [3, 4], id="three-runs-two-reported"),
    pytest.param("""\
        for step in range(1000):
            _, l = sess.run([train_op, loss], feed_dict={x: batch})
            if FLAGS.debug:
                print(sess.run(loss, {x: batch}))
        """, [4], id="invariant-branch-still-every-step"),
])
def test_split_session_run_fires(body, expected):
    assert lines_of("TFG203", body) == expected


@pytest.mark.parametrize("body", [
    pytest.param("""\
        for step in range(1000):
            features = sess.run(loss, feed_dict={x: batch})
            sess.run(train_op, feed_dict={x: features})
        """, id="feeds-on-earlier-result"),
    pytest.param("""\
        for step in range(1000):
            codes = sess.run(loss, feed_dict={x: batch})
            batch2 = codes * 2
            sess.run(train_op, feed_dict={x: batch2})
        """, id="feeds-on-derived-result"),
    pytest.param("""\
        for step in range(1000):
            sess.run(train_op, feed_dict={x: batch})
            if step % 100 == 0:
                print(sess.run(loss, feed_dict={x: batch}))
        """, id="second-run-guarded"),
    pytest.param("""\
        for step in range(1000):
            if FLAGS.phase == 'a':
                sess.run(train_op)
            else:
                sess.run(loss)
        """, id="exclusive-branches"),
    pytest.param("""\
        for epoch in range(100):
            sess.run(iterator.initializer)
            for step in range(100):
                sess.run(train_op)
        """, id="different-loops"),
])
def test_split_session_run_silent(body):
    assert lines_of("TFG203", body) == []


# -- TFG204 dataset-map-serial -----------------------------------------------------------

@pytest.mark.parametrize("body, expected", [
    pytest.param("""\
        ds = tf.data.TFRecordDataset(files)
        ds = ds.map(parse)
        """, [2], id="map-without-parallel"),
    pytest.param("""\
        ds = (tf.data.Dataset.list_files(pattern)
              .interleave(tf.data.TFRecordDataset, cycle_length=4)
              .map(parse, num_parallel_calls=4))
        """, [1], id="interleave-without-parallel"),
    pytest.param("""\
        import tensorflow.compat.v1 as tf1
        ds = tf1.data.Dataset.from_tensor_slices((a, b)).shuffle(100).map(parse).batch(32)
        """, [2], id="compat-v1-chain"),
])
def test_dataset_map_serial_fires(body, expected):
    assert lines_of("TFG204", body) == expected


@pytest.mark.parametrize("body", [
    pytest.param("""\
        ds = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=tf.data.experimental.AUTOTUNE)
        """, id="keyword"),
    pytest.param("""\
        ds = tf.data.TFRecordDataset(files).map(parse, 8)
        """, id="positional"),
    pytest.param("""\
        ds = tf.data.TFRecordDataset(files)
        ds = ds.apply(tf.data.experimental.map_and_batch(parse, 32))
        ds = ds.apply(tf.contrib.data.map_and_batch(parse, 32))
        """, id="map-and-batch"),
    pytest.param("""\
        import pandas as pd
        column = pd.Series([1, 2]).map(str)
        labels = list(map(str, [1, 2]))
        """, id="not-a-dataset"),
])
def test_dataset_map_serial_silent(body):
    assert lines_of("TFG204", body) == []


# -- TFG205 dataset-no-prefetch ----------------------------------------------------------

@pytest.mark.parametrize("body, expected", [
    pytest.param("""\
        ds = tf.data.TFRecordDataset(files)
        ds = ds.map(parse, num_parallel_calls=4)
        ds = ds.batch(32)
        it = ds.make_one_shot_iterator()
        """, [4], id="reassignments"),
    pytest.param("""\
        it = (tf.data.TFRecordDataset(files)
              .map(parse, num_parallel_calls=4)
              .batch(32)
              .make_initializable_iterator())
        """, [1], id="parenthesised-chain"),
    pytest.param("""\
        def make_dataset(files):
            return tf.data.TFRecordDataset(files).batch(32)
        ds = make_dataset(files)
        it = tf.data.make_one_shot_iterator(ds)
        """, [4], id="through-local-helper"),
    pytest.param("""\
        def load():
            return tf.data.TFRecordDataset(files).batch(32)
        estimator.train(input_fn=load)
        """, [3], id="passed-as-input-fn-reported-at-the-consumer"),
    pytest.param("""\
        ds = tf.data.TFRecordDataset(files).batch(32)
        if FLAGS.fast:
            ds = ds.prefetch(1)
        it = ds.make_one_shot_iterator()
        """, [4], id="prefetch-on-one-branch-only"),
    pytest.param("""\
        ds = tf.data.Dataset.from_tensor_slices((a, b)).batch(32)
        model.fit(ds, epochs=3)
        """, [2], id="keras-fit"),
    pytest.param("""\
        def train_input_fn():
            ds = tf.data.TFRecordDataset(files).batch(32)
            return ds.make_one_shot_iterator().get_next()
        """, [3], id="input-fn-returning-iterator-output-reported-once-at-the-iterator"),
])
def test_dataset_no_prefetch_fires(body, expected):
    assert lines_of("TFG205", body) == expected


@pytest.mark.parametrize("body", [
    pytest.param("""\
        ds = tf.data.TFRecordDataset(files)
        ds = ds.batch(32)
        ds = ds.prefetch(1)
        it = ds.make_one_shot_iterator()
        """, id="prefetch-by-reassignment"),
    pytest.param("""\
        it = (tf.data.TFRecordDataset(files)
              .batch(32)
              .prefetch(tf.data.experimental.AUTOTUNE)
              .make_one_shot_iterator())
        """, id="prefetch-in-chain"),
    pytest.param("""\
        def train_input_fn():
            ds = tf.data.TFRecordDataset(files).batch(32)
            return ds.prefetch(2)
        """, id="input-fn-prefetches"),
    pytest.param("""\
        ds = tf.data.TFRecordDataset(files).batch(32)
        ds = ds.apply(tf.data.experimental.prefetch_to_device('/gpu:0'))
        it = ds.make_one_shot_iterator()
        """, id="prefetch-to-device"),
    pytest.param("""\
        def make_iterator(dataset):
            return dataset.make_one_shot_iterator()
        """, id="unknown-parameter"),
    pytest.param("""\
        def train_input_fn():
            ds = tf.data.TFRecordDataset(files)
            ds = ds.shuffle(1000).batch(32)
            return ds
        """, id="a-helper-that-returns-the-dataset-consumes-nothing"),
    pytest.param("""\
        ds = tf.data.TFRecordDataset(files).batch(32)
        if FLAGS.fast:
            ds = ds.prefetch(1)
        else:
            ds = ds.prefetch(2)
        it = ds.make_one_shot_iterator()
        """, id="prefetch-on-both-branches"),
])
def test_dataset_no_prefetch_silent(body):
    assert lines_of("TFG205", body) == []


def test_dataset_no_prefetch_chain_leads_to_the_source():
    source = HEADER + textwrap.dedent("""\
        def load():
            ds = tf.data.TFRecordDataset(files)
            return ds.batch(32)
        estimator.train(input_fn=load, steps=10)
        """)
    (finding,) = tfguard.check_source(source, "snippet.py", Settings(select=("TFG205",)))
    assert finding.line == HEADER_LINES + 4
    assert [(link.line - HEADER_LINES, link.function) for link in finding.chain] == [(3, "load"), (2, "load")]


def test_dataset_no_prefetch_message_names_source():
    (message,) = messages_of("TFG205", """\
        ds = tf.data.TFRecordDataset(files)
        ds = ds.batch(32)
        it = ds.make_one_shot_iterator()
        """)
    assert f"line {HEADER_LINES + 1}" in message and "prefetch" in message


def test_split_session_run_leaves_sequential_optimizer_updates_alone():
    source = textwrap.dedent("""\
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [None])
        d_loss = tf.reduce_mean(x)
        g_loss = tf.reduce_mean(x * 2)
        d_optim = tf.train.AdamOptimizer(1e-4).minimize(d_loss)
        g_optim = tf.train.AdamOptimizer(1e-4).minimize(g_loss)
        with tf.Session() as sess:
            for step in range(100):
                _, dl = sess.run([d_optim, d_loss], feed_dict={x: [1.0]})
                _, gl = sess.run([g_optim, g_loss], feed_dict={x: [1.0]})
                print(sess.run(d_loss, feed_dict={x: [1.0]}))
        """)
    findings = tfguard.check_source(source, "gan.py", Settings(select=("TFG203",)))
    assert [f.line for f in findings] == [11]


def test_an_epoch_loop_around_a_helper_with_the_step_loop_is_not_a_step_loop():
    source = textwrap.dedent("""\
        import tensorflow as tf
        loss = tf.constant(1.0)
        merged = tf.summary.merge_all()
        def train_one_epoch(sess, steps):
            for step in range(steps):
                sess.run(loss)
        with tf.Session() as sess:
            saver = tf.train.Saver()
            writer = tf.summary.FileWriter("logs")
            for epoch in range(100):
                train_one_epoch(sess, 100)
                saver.save(sess, "ckpt", global_step=epoch)
                writer.add_summary(sess.run(merged), epoch)
        """)
    codes = [f.code for f in tfguard.check_source(source, "epochs.py", Settings(select=("TFG2",)))]
    assert codes == []
