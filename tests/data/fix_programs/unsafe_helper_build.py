"""TFG102 (safe): the op is built by a helper the loop calls, which only builds it; the call moves before the loop.

The helper's body is assignments and a ``return`` of stateless TF builds of its argument: called once, it does
all it did (unsafe_helper_prints.py is the helper that does more).
"""
import numpy as np
import tensorflow.compat.v1 as tf

STEPS = 5

x = tf.placeholder(tf.float32, [None, 3])


def accuracy_op(inputs):
    return tf.reduce_mean(tf.cast(tf.argmax(inputs, 1) > 0, tf.float32))


with tf.Session() as sess:
    for step in range(STEPS):
        batch = np.random.RandomState(step).rand(4, 3).astype(np.float32)
        print(step, sess.run(accuracy_op(x), feed_dict={x: batch}))
