"""A learning rate decayed in Python per epoch reaches a tf.function that uses it only through tf.cast."""
import tensorflow as tf

weights = tf.Variable([1.0, -1.0])


@tf.function
def train_step(x, lr):
    weights.assign_sub(tf.cast(lr, tf.float32) * x)
    return tf.reduce_sum(weights * weights)


x = tf.constant([0.3, 0.7])
for epoch in range(int(x.shape[0]) * 4):
    lr = 0.1 * 0.9 ** epoch
    print(epoch, "%.7f" % float(train_step(x, lr)))
