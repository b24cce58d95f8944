"""TFG102: a seeded random op built every step repeats its draw; hoisted it advances."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

STEPS = 4

with tf.Session() as sess:
    for step in range(STEPS):
        noise = tf.random_normal([3], seed=5)
        print(step, sess.run(noise).round(6).tolist())
