"""TFG202: a checkpoint every step to one path: each save overwrites the last."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

import os

STEPS = 40

w = tf.Variable(0.0)
grow = tf.assign_add(w, 2.0)
saver = tf.train.Saver()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(STEPS):
        sess.run(grow)
        saver.save(sess, os.path.join("ckpt", "model.ckpt"))
print(sorted(os.listdir("ckpt")))
