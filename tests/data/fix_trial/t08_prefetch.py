"""TFG205: a pipeline without prefetch."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

STEPS = 3

dataset = tf.data.Dataset.from_tensor_slices(np.arange(9)).batch(3)
batch = tf.data.make_one_shot_iterator(dataset).get_next()
with tf.Session() as sess:
    for step in range(STEPS):
        print(step, sess.run(batch).tolist())
