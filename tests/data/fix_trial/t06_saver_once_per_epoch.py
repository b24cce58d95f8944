"""TFG101: a Saver built per epoch, saving once: one Saver keeping every file."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

import os

EPOCHS = 7

w = tf.Variable(1.0)
grow = tf.assign_add(w, 0.5)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(EPOCHS):
        sess.run(grow)
        saver = tf.train.Saver()
        saver.save(sess, os.path.join("ckpt", "model"), global_step=epoch, write_meta_graph=False)
print(sorted(os.listdir("ckpt")))
