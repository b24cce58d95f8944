"""Class 5 (safe again): eight Savers, one per epoch, keep every checkpoint; the fix builds one with max_to_keep=None.

Each Saver built in the loop saves once, so none deletes a file; one Saver with ``max_to_keep=None`` deletes none
either: the same eight checkpoints (and the same ``checkpoint`` state file) stay on disk.
"""
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
print(sorted(name for name in os.listdir(folder) if name.endswith(".index")))
shutil.rmtree(folder)
