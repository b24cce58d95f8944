"""TFG201: a summary fetched and written every step: fewer values in the event file."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

STEPS = 30

x = tf.placeholder(tf.float32, [])
summary = tf.summary.scalar("x", x)
writer = tf.summary.FileWriter("logs")
with tf.Session() as sess:
    for step in range(STEPS):
        writer.add_summary(sess.run(summary, {x: step * 0.5}), step)
writer.close()
