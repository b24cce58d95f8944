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

with tf.Session() as sess:
    sess.run(init_op)
    writer = tf.summary.FileWriter(LOG_DIR, sess.graph)
    tf.summary.scalar("loss", loss)  # expect: TFG107
    tf.summary.histogram("prediction", prediction)  # expect: TFG107
    merged = tf.summary.merge_all()  # expect: TFG107
    for step in range(10000):
        xs = np.random.rand(64, 8)
        ys = xs.sum(axis=1, keepdims=True)
        _, summary = sess.run([train_op, merged], feed_dict={x: xs, y: ys})  # expect: TFG201
        if step % 100 == 0:
            writer.add_summary(summary, step)
    writer.close()
