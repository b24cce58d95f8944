"""Seed 002: the device waits for Python-side input preparation.

Each batch is decoded and augmented in Python (a per-image crop loop in numpy) and fed
through feed_dict, so the session is idle while Python works. The fixed twin,
seed002_fixed.py, moves the work into a tf.data pipeline with parallel map and prefetch.
The model is pinned to the GPU with soft placement, so it also runs on a CPU-only machine
(where `tfguard run --placement` lists its ops as fallen back to the CPU, TFG906).
"""

import argparse
import time

import numpy as np
import tensorflow.compat.v1 as tf

IMAGE = 32


def augment(image, rng):
    """Python-side augmentation: a random crop and flip, then standardisation, one image at a time."""
    top, left = rng.randint(0, 8, size=2)
    crop = np.pad(image, ((4, 4), (4, 4), (0, 0)))[top:top + IMAGE, left:left + IMAGE]
    crop = crop[:, ::-1] if rng.rand() < 0.5 else crop
    return (crop - crop.mean()) / max(crop.std(), 1.0 / np.sqrt(crop.size))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--min-seconds", type=float, default=0.0,
                        help="go on past --steps until this many seconds have passed (the demo: long enough "
                             "for the guard to judge the run on a fast machine)")
    args = parser.parse_args()
    tf.disable_eager_execution()
    rng = np.random.RandomState(0)
    images = rng.rand(512, IMAGE, IMAGE, 3).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, IMAGE, IMAGE, 3], name="x")
    with tf.device("/gpu:0"):  # the model on the GPU
        features = tf.reduce_mean(tf.abs(x), axis=[1, 2])  # pooled per channel
        w = tf.Variable(tf.zeros([3, 10]), name="w")
        logits = tf.matmul(features, w)
        loss = tf.reduce_mean(tf.square(logits - 1.0))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    init = tf.global_variables_initializer()
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        sess.run(init)
        started, step = time.time(), 0
        while step < args.steps or time.time() - started < args.min_seconds:
            batch = np.stack([augment(images[i], rng) for i in rng.randint(0, 512, 64)])
            _, loss_value = sess.run([train, loss], feed_dict={x: batch})
            step += 1
        print("seed002 (Python-side input): %d steps, loss %.4f" % (step, loss_value))


if __name__ == "__main__":
    main()
