"""Seed 003, fixed: the Saver is built once, before the session loop (the seed's 方案一).

Same model and data as seed003_saver_in_loop.py; the graph stays the same size, so the
steps stay equally fast. Checkpoints are written every `--save-every` steps (default 1000, as
training jobs do) and once at the end, instead of every step (TFG202): in the demo's short run that
is one final save, so `Saver.save` does not dominate the run either (no TFG905).
"""

import argparse
import os
import tempfile

import numpy as np
import tensorflow.compat.v1 as tf

LAYERS = 12
WIDTH = 16


def build_model(x, y):
    """A small MLP: a few dozen variables, as in the seed's network_model."""
    h = x
    for i in range(LAYERS):
        with tf.variable_scope("layer%d" % i):
            w = tf.get_variable("w", [WIDTH, WIDTH], initializer=tf.glorot_uniform_initializer(seed=i))
            b = tf.get_variable("b", [WIDTH], initializer=tf.zeros_initializer())
            h = tf.nn.relu(tf.matmul(h, w) + b)
    w_out = tf.get_variable("out_w", [WIDTH, 1], initializer=tf.glorot_uniform_initializer(seed=LAYERS))
    out = tf.matmul(h, w_out)
    loss = tf.reduce_mean(tf.square(out - y))
    train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    return loss, train_op


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--model-dir", default=None)
    parser.add_argument("--save-every", type=int, default=1000)
    args = parser.parse_args()
    model_dir = args.model_dir or tempfile.mkdtemp(prefix="tfguard-seed003-")
    rng = np.random.RandomState(0)
    tf.disable_eager_execution()
    x = tf.placeholder(tf.float32, [None, WIDTH], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    loss, train_op = build_model(x, y)
    init = tf.global_variables_initializer()
    saver = tf.train.Saver(max_to_keep=1)  # once, before the loop
    with tf.Session() as sess:
        sess.run(init)
        for step in range(args.steps):
            feed = {x: rng.rand(32, WIDTH), y: rng.rand(32, 1)}
            _, loss_value = sess.run([train_op, loss], feed_dict=feed)
            if (step + 1) % args.save_every == 0 or step == args.steps - 1:
                saver.save(sess, os.path.join(model_dir, "model"), global_step=step)
        print("seed003 fixed (one Saver): %d steps, loss %.4f, %d ops in the graph" % (
            args.steps, loss_value, len(sess.graph.get_operations())))


if __name__ == "__main__":
    main()
