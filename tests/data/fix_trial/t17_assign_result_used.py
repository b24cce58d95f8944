"""TFG108: an assign of a changing value whose result the program prints."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

STEPS = 5

lr = tf.Variable(0.1, trainable=False)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(STEPS):
        print(step, round(float(sess.run(tf.assign(lr, 0.1 * 0.5 ** step))), 7))
