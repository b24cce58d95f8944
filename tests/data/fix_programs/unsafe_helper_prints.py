"""TFG102 (unsafe): the helper that builds the op also prints; called once before the loop, it prints once."""
import numpy as np
import tensorflow.compat.v1 as tf

STEPS = 5

x = tf.placeholder(tf.float32, [None, 3])


def accuracy_op(inputs):
    print("building the accuracy op")
    return tf.reduce_mean(tf.cast(tf.argmax(inputs, 1) > 0, tf.float32))


with tf.Session() as sess:
    for step in range(STEPS):
        batch = np.random.RandomState(step).rand(4, 3).astype(np.float32)
        print(step, sess.run(accuracy_op(x), feed_dict={x: batch}))
