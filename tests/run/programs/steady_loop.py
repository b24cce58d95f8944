"""A steady training loop; with `busy`, two busy processes start halfway (another job on the machine).

With `grow`, every step also extends the fetched tensor by new ops (the graph grows, and
each run runs all of it), so the program's own steps get slower.
"""

import subprocess
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
steps = int(sys.argv[1])
grow = "grow" in sys.argv[2:]
busy_halfway = "busy" in sys.argv[2:]
size = 100 if grow else 400  # growth: a cheap step, so that the growing work shows quickly
x = tf.placeholder(tf.float32, [size, size], name="x")
w = tf.Variable(tf.ones([size, size]) * 0.001)
y = tf.reduce_sum(tf.matmul(tf.matmul(x, w), w))
feed = {x: np.ones([size, size], np.float32)}
busy = []
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    try:
        for step in range(steps):
            if busy_halfway and step == steps // 2:
                busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
            sess.run(y, feed_dict=feed)
            if grow:
                for _ in range(20):
                    y = tf.add(y, 1.0)  # the graph grows on every step, and each run runs all of it
    finally:
        for process in busy:
            process.kill()
            process.wait()
print("done")
