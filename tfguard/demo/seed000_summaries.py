"""Seed 000: the GPU idles at ~8 % because summaries are written on every step.

Every weight gets summaries, the merged summary is fetched and written to the event file
on every step, and the loss is fetched again in a second run. The fixed twin is
seed000_fixed.py.
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
            summary, _ = sess.run([merged, train_op], feed_dict=feed)
            writer.add_summary(summary, step)  # every step: the seed's bottleneck
            loss_value = sess.run(loss, feed_dict=feed)  # a second run for the same step
        print("seed000 (summaries every step): loss %.4f" % loss_value)
    writer.close()


if __name__ == "__main__":
    main()
