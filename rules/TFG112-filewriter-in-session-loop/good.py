import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 32])
loss = tf.reduce_mean(tf.square(tf.layers.dense(x, 1)))
train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
loss_summary = tf.summary.scalar("loss", loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    writer = tf.summary.FileWriter("/tmp/logs", sess.graph)
    for step in range(10000):
        summary, _ = sess.run([loss_summary, train_op], {x: np.random.rand(64, 32)})
        writer.add_summary(summary, step)
    writer.close()
