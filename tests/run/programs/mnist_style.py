"""A healthy MNIST-style feed_dict training program, written the way TF1 tutorials are.

Set-up after the session (the initializer built and run right after `tf.Session()`, a Saver
and `merge_all()` built before the loop), lazy one-time growth inside the loop (an eval op
built at step 0, a second Saver built after the first epoch) and one final save. With
`leak`, it also builds a new op on every step (the bug).
"""

import os
import sys
import tempfile
import warnings

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
warnings.simplefilter("error")  # the program's own strictness: a guard alert must not kill it
# TF 1.15's own modules warn on Python 3.7 (collections ABCs): that is TensorFlow's, not the guard's
warnings.filterwarnings("ignore", category=DeprecationWarning, module="tensorflow")
steps = int(sys.argv[1])
leak = "leak" in sys.argv[2:]
rng = np.random.RandomState(0)
x = tf.placeholder(tf.float32, [None, 16], name="x")
y = tf.placeholder(tf.float32, [None, 1], name="y")
w1 = tf.get_variable("w1", [16, 16])
w2 = tf.get_variable("w2", [16, 1])
hidden = tf.nn.relu(tf.matmul(x, w1))
out = tf.matmul(hidden, w2)
loss = tf.reduce_mean(tf.square(out - y))
train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
sess = tf.Session()
sess.run(tf.global_variables_initializer())  # setup: built after the session
tf.summary.scalar("loss", loss)
merged = tf.summary.merge_all()  # setup
saver = tf.train.Saver()  # setup
model_dir = tempfile.mkdtemp(prefix="tfguard-test-")
eval_op = None
lazy_saver = None
for step in range(steps):
    batch = {x: rng.rand(32, 16), y: rng.rand(32, 1)}
    sess.run(train_op, feed_dict=batch)
    if step == 0:
        eval_op = tf.reduce_max(out)  # one-time: built lazily on the first step
    if step % 10 == 0:
        sess.run([eval_op, merged], feed_dict=batch)
    if step == steps // 2 and lazy_saver is None:
        lazy_saver = tf.train.Saver(max_to_keep=1)  # one-time: built after the first "epoch"
    if leak:
        sess.run(tf.reduce_mean(loss), feed_dict=batch)  # the leak: a new op every step
saver.save(sess, os.path.join(model_dir, "model"))  # one final save
sess.close()
print("trained %d steps" % steps)
