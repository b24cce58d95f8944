"""TFG204 and TFG205 (safe): a serial map of a deterministic function, and a pipeline without prefetch."""
import numpy as np
import tensorflow.compat.v1 as tf

STEPS = 4


def scale(value):
    return tf.cast(value, tf.float32) * 0.5 + 1.0


dataset = tf.data.Dataset.from_tensor_slices(np.arange(12)).map(scale).batch(3)
iterator = dataset.make_one_shot_iterator()
batch = iterator.get_next()

with tf.Session() as sess:
    for step in range(STEPS):
        print(step, sess.run(batch).tolist())
