"""TFG108: an assign_add with a constant, built every step."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

STEPS = 6

global_step = tf.Variable(0, trainable=False)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(STEPS):
        sess.run(global_step.assign_add(1))
        print(step, sess.run(global_step))
