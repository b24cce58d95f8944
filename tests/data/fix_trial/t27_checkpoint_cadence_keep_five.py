"""TFG202: a checkpoint every step kept five at a time: fewer saves keep other files."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

import os

STEPS = 40

w = tf.Variable(0.0)
grow = tf.assign_add(w, 1.0)
saver = tf.train.Saver(max_to_keep=5)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(STEPS):
        sess.run(grow)
        saver.save(sess, os.path.join("ckpt", "model"), global_step=step, write_meta_graph=False)
print(sorted(os.listdir("ckpt")))
