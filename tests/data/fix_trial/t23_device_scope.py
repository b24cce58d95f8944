"""TFG102: an op built under a device scope inside the loop."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

STEPS = 4

x = tf.placeholder(tf.float32, [None, 2])
with tf.Session() as sess:
    for step in range(STEPS):
        with tf.device("/cpu:0"):
            total = tf.reduce_sum(x * 3.0)
        print(step, sess.run(total, {x: np.full((2, 2), step, dtype=np.float32)}))
