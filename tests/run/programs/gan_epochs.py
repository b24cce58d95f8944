"""A healthy GAN-style program: a re-initialisable tf.data iterator per epoch, discriminator and
generator steps alternating, summaries written every 10 steps, a checkpoint per epoch.

`gan_epochs.py EPOCHS STEPS_PER_EPOCH CHECKPOINT_DIR`
"""

import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
epochs, steps, model_dir = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
data = tf.data.Dataset.from_tensor_slices(np.random.RandomState(0).rand(steps * 32, 8).astype("float32"))
iterator = tf.data.make_initializable_iterator(data.batch(16).prefetch(2))
real = iterator.get_next()
noise = tf.random.normal([16, 4])
with tf.variable_scope("generator"):
    fake = tf.matmul(noise, tf.get_variable("g", [4, 8]))
with tf.variable_scope("discriminator"):
    d_w = tf.get_variable("d", [8, 1])
d_loss = tf.reduce_mean(tf.matmul(fake, d_w)) - tf.reduce_mean(tf.matmul(real, d_w))
g_loss = -tf.reduce_mean(tf.matmul(fake, d_w))
d_step = tf.train.AdamOptimizer(1e-3).minimize(d_loss, var_list=[d_w])
g_step = tf.train.AdamOptimizer(1e-3).minimize(g_loss, var_list=tf.trainable_variables("generator"))
summary = tf.summary.merge([tf.summary.scalar("d_loss", d_loss), tf.summary.scalar("g_loss", g_loss)])
saver = tf.train.Saver()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    writer = tf.summary.FileWriter(model_dir, sess.graph)
    for epoch in range(epochs):
        sess.run(iterator.initializer)
        for step in range(steps - 1):
            sess.run(d_step)
            sess.run(g_step)
            if step % 10 == 0:
                writer.add_summary(sess.run(summary), epoch * steps + step)
        saver.save(sess, os.path.join(model_dir, "gan"), global_step=epoch)
    writer.close()
print("done")
