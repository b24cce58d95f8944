"""A step counted in Python (`step += 1`) reaches a tf.function that uses it only through tf.cast: TFG403's safe fix."""
import tensorflow as tf

weights = tf.Variable([1.0, 2.0])


@tf.function
def train_step(x, step):
    decay = 1.0 / (1.0 + tf.cast(step, tf.float32))
    weights.assign_sub(decay * x)
    return tf.reduce_sum(weights)


x = tf.constant([0.1, 0.2])
step = 0
while step < 8:
    step += 1
    print(step, round(float(train_step(x, step)), 5))
