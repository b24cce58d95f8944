"""Logging training curves to TensorBoard."""
import numpy as np
import tensorflow as tf

LOG_DIR = "/tmp/logs/regression"
x = tf.placeholder(tf.float32, [None, 8], name="x")
y = tf.placeholder(tf.float32, [None, 1], name="y")
prediction = tf.layers.dense(x, 1)
loss = tf.losses.mean_squared_error(y, prediction)
train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
init_op = tf.global_variables_initializer()
tf.summary.scalar("loss", loss)
tf.summary.histogram("prediction", prediction)
merged = tf.summary.merge_all()

with tf.Session() as sess:
    sess.run(init_op)
    writer = tf.summary.FileWriter(LOG_DIR, sess.graph)
    for step in range(10000):
        xs = np.random.rand(64, 8)
        ys = xs.sum(axis=1, keepdims=True)
        fetches = [train_op, merged] if step % 100 == 0 else [train_op]
        results = sess.run(fetches, feed_dict={x: xs, y: ys})
        if step % 100 == 0:
            writer.add_summary(results[1], step)
    writer.close()
