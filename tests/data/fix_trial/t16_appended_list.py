"""TFG102: a list the loop appends to, read by an op built in the loop."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

EPOCHS = 3

history = [0.0]
with tf.Session() as sess:
    for epoch in range(EPOCHS):
        history.append(epoch * 1.5)
        print(epoch, sess.run(tf.reduce_sum(tf.constant(history))))
