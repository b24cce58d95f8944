"""TFG106 (safe): `get_next()` built per step on an iterator made once: every op reads the same iterator."""
import numpy as np
import tensorflow.compat.v1 as tf

STEPS = 5

values = np.arange(20, dtype=np.float32)
dataset = tf.data.Dataset.from_tensor_slices(values).batch(4)
iterator = tf.data.make_one_shot_iterator(dataset.prefetch(1))

with tf.Session() as sess:
    for step in range(STEPS):
        batch = iterator.get_next()
        print(step, sess.run(batch).tolist())
