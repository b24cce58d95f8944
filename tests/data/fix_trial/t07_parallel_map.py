"""TFG204: a deterministic map function, run serially."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

STEPS = 4


def scale(value):
    return tf.cast(value, tf.float32) * 0.5 + 1.0


dataset = tf.data.Dataset.from_tensor_slices(np.arange(12)).map(scale).batch(3).prefetch(1)
batch = tf.data.make_one_shot_iterator(dataset).get_next()
with tf.Session() as sess:
    for step in range(STEPS):
        print(step, sess.run(batch).tolist())
