"""TFG102: an op built under a name scope inside the loop."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

STEPS = 4

x = tf.placeholder(tf.float32, [None, 2])
with tf.Session() as sess:
    for step in range(STEPS):
        with tf.name_scope("metrics"):
            mean = tf.reduce_mean(x)
        print(step, sess.run(mean, {x: np.full((2, 2), step, dtype=np.float32)}))
