"""TFG204: a map function that draws random numbers, made parallel."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

STEPS = 4


def augment(image):
    image = tf.image.random_flip_left_right(image, seed=3)
    return image + tf.random_uniform([2, 2, 1], seed=7)


images = np.arange(64, dtype=np.float32).reshape(16, 2, 2, 1)
dataset = tf.data.Dataset.from_tensor_slices(images).map(augment).batch(4).prefetch(1)
batch = tf.data.make_one_shot_iterator(dataset).get_next()
with tf.Session() as sess:
    for step in range(STEPS):
        print(step, sess.run(batch).sum(axis=(1, 2, 3)).round(5).tolist())
