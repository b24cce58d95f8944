"""Class 5b (unsafe): the last Saver of the loop is read after it; one Saver would remember five checkpoints."""
import os
import shutil
import tempfile

import tensorflow.compat.v1 as tf

EPOCHS = 8

w = tf.Variable(1.0)
grow = tf.assign_add(w, 1.0)
folder = tempfile.mkdtemp()

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(EPOCHS):
        sess.run(grow)
        saver = tf.train.Saver(max_to_keep=5)
        saver.save(sess, os.path.join(folder, "model"), global_step=epoch)
print(len(saver.last_checkpoints), sorted(name for name in os.listdir(folder) if name.endswith(".index")))
shutil.rmtree(folder)
