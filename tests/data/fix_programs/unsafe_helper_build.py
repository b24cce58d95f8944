"""TFG102 (unsafe): the op is built by a helper the loop calls; the call moves before the loop.

Unsafe because the helper then runs once: here it only builds the op, so the results stay the same.
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
