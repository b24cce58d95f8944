"""TFG102 in a Python 2 file: read through its Python 3 conversion, so no fix."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
STEPS = 3

x = tf.placeholder(tf.float32, [None, 2])
with tf.Session() as sess:
    for step in range(STEPS):
        print step, sess.run(tf.reduce_sum(x), {x: np.ones((2, 2))})
