"""A session per item on one graph built up front (an inference script): `session_per_item.py ITEMS`."""

import sys

import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
items = int(sys.argv[1])
x = tf.placeholder(tf.float32, [], name="x")
w = tf.Variable(2.0, name="w")
y = x * w
init = tf.global_variables_initializer()
total = 0.0
for item in range(items):
    with tf.Session() as sess:
        sess.run(init)
        for _ in range(5):
            total += sess.run(y, {x: float(item)})
print("total %.1f over %d items" % (total, items))
