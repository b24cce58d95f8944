"""TFG106: get_next() built every step."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

STEPS = 5

dataset = tf.data.Dataset.from_tensor_slices(np.arange(20, dtype=np.float32)).batch(4)
iterator = tf.data.make_initializable_iterator(dataset)
with tf.Session() as sess:
    sess.run(iterator.initializer)
    for step in range(STEPS):
        print(step, sess.run(iterator.get_next()).tolist())
