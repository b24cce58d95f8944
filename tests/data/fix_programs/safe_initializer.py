"""TFG103 (safe): the variables are reset by an initializer built anew every epoch."""
import numpy as np
import tensorflow.compat.v1 as tf

EPOCHS = 5

data = np.random.RandomState(1).rand(16, 2).astype(np.float32)
x = tf.placeholder(tf.float32, [None, 2])
w = tf.get_variable("w", [2, 1], initializer=tf.ones_initializer())
loss = tf.reduce_mean(tf.matmul(x, w))
train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)

with tf.Session() as sess:
    for epoch in range(EPOCHS):
        sess.run(tf.global_variables_initializer())
        for _ in range(epoch + 1):
            sess.run(train, feed_dict={x: data})
        print(epoch, sess.run(w).round(6).ravel().tolist())
