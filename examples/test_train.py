"""Two tests for `pytest --tfguard`: one whose graph grows on every step, one that builds it once."""

import tensorflow.compat.v1 as tf

tf.disable_eager_execution()


def test_grows():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape=[])
        y = x * 2.0
        with tf.Session() as sess:
            for step in range(10):
                sess.run(y + 1.0, {x: float(step)})


def test_steady():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape=[])
        z = x * 2.0 + 1.0
        with tf.Session() as sess:
            for step in range(10):
                sess.run(z, {x: float(step)})
