"""TFG107: a scalar summary built every step gets a new tag each time."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

STEPS = 4

x = tf.placeholder(tf.float32, [])
with tf.Session() as sess:
    for step in range(STEPS):
        summary = tf.summary.scalar("loss", x)
        event = tf.Summary.FromString(sess.run(summary, {x: step * 1.5}))
        print(step, [(v.tag, v.simple_value) for v in event.value])
