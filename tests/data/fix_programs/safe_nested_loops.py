"""TFG102 (safe): an op built in the inner of two loops moves above both when it depends on neither."""
import numpy as np
import tensorflow.compat.v1 as tf

EPOCHS = 3
STEPS = 3

data = np.random.RandomState(3).rand(6, 2).astype(np.float32)
x = tf.placeholder(tf.float32, [None, 2])

with tf.Session() as sess:
    for epoch in range(EPOCHS):
        for step in range(STEPS):
            total = sess.run(tf.reduce_sum(x * 2.0), feed_dict={x: data[step:step + 2] * (epoch + 1)})
            print(epoch, step, round(float(total), 5))
