"""Loops that really get slower, one session each: `slowdowns.py SECONDS KIND [KIND...]`.

- sleep: a wait before each run that grows (a reader over a growing file list, a queue that drains);
- cpu: Python work before each run that grows (a history processed in full every step);
- feed: a feed that grows (rows appended to the array before it is fed);
- steady: none of it.

Each loop runs for SECONDS and fetches a tensor named after its kind (`sleep:0`), and the rise
follows the share of SECONDS gone by, so that its shape does not depend on the machine's speed.
"""

import sys
import time

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()


def loop(kind, seconds):
    """Run one loop of `kind` in its own graph and session; return its step count."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 64], name="x")
        w = tf.Variable(tf.ones([64, 64]) * 0.01)
        y = tf.identity(tf.reduce_sum(tf.matmul(x, w)), name=kind)
        init = tf.global_variables_initializer()
    steps = 0
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        batch = np.ones([16, 64], np.float32)
        start = time.perf_counter()
        while True:
            gone = (time.perf_counter() - start) / seconds
            if gone >= 1.0:
                break
            if kind == "sleep":
                time.sleep(0.001 + 0.004 * gone)
            elif kind == "cpu":
                sum(range(20000 + int(200000 * gone)))
            elif kind == "feed":
                batch = np.ones([16 + int(12000 * gone), 64], np.float32)
            sess.run(y, feed_dict={x: batch})
            steps += 1
    return steps


seconds = float(sys.argv[1])
for name in sys.argv[2:]:
    print("%s: %d steps" % (name, loop(name, seconds)))
