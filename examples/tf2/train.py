"""A TF 2 training loop whose tf.function retraces: the learning rate goes in as a Python number, so every epoch
traces a new graph (tfguard check: TFG403; tfguard run: TFG908)."""

import tensorflow as tf

w = tf.Variable(1.0)


@tf.function
def train_step(x, learning_rate):
    with tf.GradientTape() as tape:
        loss = tf.square(w * x - 2.0)
    w.assign_sub(learning_rate * tape.gradient(loss, w))
    return loss


for epoch in range(12):
    learning_rate = 0.1 * 0.9**epoch
    loss = train_step(tf.constant(1.0), learning_rate)
print("loss %.4f" % float(loss))
