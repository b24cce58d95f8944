"""TFG108: an assign of a Python value the loop computes, result unused."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

STEPS = 6
BASE_LR, GAMMA = 0.01, 0.5

lr = tf.Variable(BASE_LR, trainable=False)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(STEPS):
        decayed = BASE_LR * GAMMA ** (step // 2)
        sess.run(tf.assign(lr, decayed))
        print(step, round(float(sess.run(lr)), 8))
