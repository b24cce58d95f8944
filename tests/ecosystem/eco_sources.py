"""Example sources shared by the ecosystem tests."""

#: A training loop with two findings: TFG102 at line 12 and TFG101 at line 13 (through save(), line 7).
TRAIN = """\
import tensorflow as tf

x = tf.placeholder(tf.float32)


def save(sess):
    return tf.train.Saver(name="m")


with tf.Session() as sess:
    for step in range(100):
        y = tf.reduce_sum(x)
        save(sess)
        sess.run(x)
"""

#: The same loop, fixed: nothing is built inside it.
CLEAN = """\
import tensorflow as tf

x = tf.placeholder(tf.float32)
total = tf.reduce_sum(x)
saver = tf.train.Saver()

with tf.Session() as sess:
    for step in range(100):
        sess.run(total)
    saver.save(sess, "m")
"""
