"""TFG102: a buffer shuffled in place, read by an op built in the loop."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

EPOCHS = 3

rng = np.random.RandomState(0)
buffer = np.arange(6, dtype=np.float32)
with tf.Session() as sess:
    for epoch in range(EPOCHS):
        rng.shuffle(buffer)
        print(epoch, sess.run(tf.constant(buffer) * 2.0).tolist())
