"""TFG107 (unsafe): a scalar summary built every step gets a new tag each time (`loss`, `loss_1`...).

Hoisted, one op writes every value under one tag."""
import numpy as np
import tensorflow.compat.v1 as tf

STEPS = 6

data = np.random.RandomState(2).rand(8, 3).astype(np.float32)
x = tf.placeholder(tf.float32, [None, 3])
w = tf.Variable(tf.ones([3, 1]))
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(STEPS):
        loss_summary = tf.summary.scalar("loss", loss)
        _, serialized = sess.run([train, loss_summary], feed_dict={x: data})
        event = tf.Summary.FromString(serialized)
        print(step, [(v.tag, round(v.simple_value, 6)) for v in event.value])
