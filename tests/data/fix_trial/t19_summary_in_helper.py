"""TFG201: summaries written every step in a helper the loop calls."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

import os

STEPS = 30

x = tf.placeholder(tf.float32, [])
summary = tf.summary.scalar("x", x)
writer = tf.summary.FileWriter("logs")


def log(sess, value, step):
    writer.add_summary(sess.run(summary, {x: value}), step)


with tf.Session() as sess:
    for step in range(STEPS):
        log(sess, step * 0.5, step)
writer.close()
print(len(os.listdir("logs")))
