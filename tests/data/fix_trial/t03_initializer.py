"""TFG103: the initializer built and run in the epoch loop."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

EPOCHS = 3

v = tf.Variable(tf.zeros([2]))
bump = tf.assign_add(v, [1.0, 2.0])
with tf.Session() as sess:
    for epoch in range(EPOCHS):
        sess.run(tf.global_variables_initializer())
        sess.run(bump)
        print(epoch, sess.run(v).tolist())
