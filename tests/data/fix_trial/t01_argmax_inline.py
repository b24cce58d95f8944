"""TFG102: an argmax built inline in the step loop."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

STEPS = 6

x = tf.placeholder(tf.float32, [None, 4])
w = tf.Variable(tf.random_normal([4, 3], seed=1))
logits = tf.matmul(x, w)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(STEPS):
        batch = np.random.RandomState(step).rand(5, 4).astype(np.float32)
        print(step, sess.run(tf.argmax(logits, 1), feed_dict={x: batch}).tolist())
