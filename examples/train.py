"""A training loop that builds a new op on every step: the graph grows (tfguard check: TFG102; tfguard run: TFG901)."""

import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
x = tf.placeholder(tf.float32, shape=[])
y = x * 2.0
with tf.Session() as sess:
    for step in range(30):
        sess.run(y + 1.0, {x: float(step)})
