"""TFG102 (safe): an inline op and an op statement built in the training loop, both reading nothing that changes."""
import numpy as np
import tensorflow.compat.v1 as tf

STEPS = 6

data = np.random.RandomState(0).rand(32, 4).astype(np.float32)
x = tf.placeholder(tf.float32, [None, 4])
w = tf.Variable(tf.random_normal([4, 3], seed=1))
logits = tf.matmul(x, w)
loss = tf.reduce_mean(tf.square(logits))
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(STEPS):
        sess.run(train, feed_dict={x: data})
        # mean prediction, for the log
        mean_logit = tf.reduce_mean(logits, axis=0)
        classes = sess.run(tf.argmax(logits, 1), feed_dict={x: data[:5]})
        print(step, classes.tolist(), sess.run(mean_logit, feed_dict={x: data}).round(6).tolist())
