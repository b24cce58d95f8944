"""A schedule value passed to a tf.function as a Python float: a new trace every epoch (TFG908)."""

import tensorflow as tf

w = tf.Variable(tf.ones([10, 1]))


@tf.function
def train_step(x, lr):
    w.assign_sub(lr * tf.reduce_mean(x, axis=0, keepdims=True)[:, :1] * tf.ones([10, 1]))
    return tf.reduce_sum(w)


for epoch in range(20):
    lr = 0.1 / (epoch + 1)  # a schedule value: a new Python float each epoch
    for _batch in range(5):
        loss = train_step(tf.ones([32, 10]), lr)
print("loss %.3f" % float(loss))
