"""Seed 000, fixed: summaries every 100 steps, one sess.run per step.

Same model and summaries as seed000_summaries.py; the merged summary is fetched only
when it is written, and the loss comes from the training run itself.
"""

import argparse
import tempfile

import numpy as np
import tensorflow.compat.v1 as tf


def dense(x, size_in, size_out, name):
    """A dense layer with the seed's per-weight summaries."""
    with tf.variable_scope(name):
        w = tf.get_variable("w", [size_in, size_out], initializer=tf.glorot_uniform_initializer(seed=1))
        b = tf.get_variable("b", [size_out], initializer=tf.zeros_initializer())
        tf.summary.histogram("w", w)
        tf.summary.scalar("w_mean", tf.reduce_mean(w))
        return tf.matmul(x, w) + b


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--log-dir", default=None)
    args = parser.parse_args()
    tf.disable_eager_execution()
    rng = np.random.RandomState(0)
    x = tf.placeholder(tf.float32, [None, 64], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    h = tf.nn.relu(dense(x, 64, 64, "fc1"))
    loss = tf.reduce_mean(tf.square(dense(h, 64, 1, "fc2") - y))
    tf.summary.scalar("loss", loss)
    train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
    merged = tf.summary.merge_all()
    init = tf.global_variables_initializer()
    writer = tf.summary.FileWriter(args.log_dir or tempfile.mkdtemp(prefix="tfguard-seed000-"))
    with tf.Session() as sess:
        sess.run(init)
        for step in range(args.steps):
            feed = {x: rng.rand(32, 64), y: rng.rand(32, 1)}
            if step % 100 == 0:
                summary, loss_value, _ = sess.run([merged, loss, train_op], feed_dict=feed)
                writer.add_summary(summary, step)
            else:
                loss_value, _ = sess.run([loss, train_op], feed_dict=feed)
        print("seed000 fixed (summaries every 100 steps): loss %.4f" % loss_value)
    writer.close()


if __name__ == "__main__":
    main()
