"""TFG108 (safe): an assign op built every step: one op or many, each run adds to the same variable."""
import tensorflow.compat.v1 as tf

STEPS = 6

counter = tf.Variable(0.0)
scale = tf.Variable(2.0)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(STEPS):
        sess.run(counter.assign_add(1.5))
        print(step, sess.run(tf.assign(scale, scale * 1.5)), sess.run(counter))
