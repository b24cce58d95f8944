"""TFG106: a one-shot iterator built per epoch restarts the data; hoisted it runs out."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

EPOCHS = 3

dataset = tf.data.Dataset.range(4).batch(2)
with tf.Session() as sess:
    for epoch in range(EPOCHS):
        batch = tf.data.make_one_shot_iterator(dataset).get_next()
        print(epoch, sess.run(batch).tolist(), sess.run(batch).tolist())
