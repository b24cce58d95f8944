"""TFG102: an accuracy op bound to a name in the loop."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

STEPS = 5

x = tf.placeholder(tf.float32, [None, 3])
y = tf.placeholder(tf.int64, [None])
logits = tf.layers.dense(x, 3, kernel_initializer=tf.constant_initializer(0.3))
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(STEPS):
        rng = np.random.RandomState(step)
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
        print(step, sess.run(accuracy, {x: rng.rand(6, 3), y: rng.randint(0, 3, 6)}))
