"""TFG102: tf.norm built in the loop (its While/TensorArray ops keep no state between runs)."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

STEPS = 4

x = tf.placeholder(tf.float32, [None, 3])
with tf.Session() as sess:
    for step in range(STEPS):
        batch = np.random.RandomState(step).rand(2, 3)
        print(step, round(float(sess.run(tf.norm(x), {x: batch})), 6))
