"""TFG101: the last Saver of the loop is read after it: one Saver would remember other checkpoints."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

import os

EPOCHS = 8

w = tf.Variable(1.0)
grow = tf.assign_add(w, 1.0)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(EPOCHS):
        sess.run(grow)
        saver = tf.train.Saver(max_to_keep=5)
        saver.save(sess, os.path.join("ckpt", "model"), global_step=epoch, write_meta_graph=False)
print(len(saver.last_checkpoints))
