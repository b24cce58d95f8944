"""Seed 002, fixed: input preparation in a tf.data pipeline with parallel map and prefetch.

Same data and augmentation as seed002_input_bound.py, written as TensorFlow ops, so it
runs in TensorFlow's threads and overlaps with training.
"""

import argparse

import numpy as np
import tensorflow.compat.v1 as tf

IMAGE = 32


def augment(image):
    """The same random crop and flip, as TensorFlow ops."""
    padded = tf.pad(image, [[4, 4], [4, 4], [0, 0]])
    crop = tf.image.random_crop(padded, [IMAGE, IMAGE, 3], seed=0)
    return tf.image.random_flip_left_right(crop, seed=0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    tf.disable_eager_execution()
    images = np.random.RandomState(0).rand(512, IMAGE, IMAGE, 3).astype(np.float32)
    dataset = (tf.data.Dataset.from_tensor_slices(images).shuffle(512, seed=0).repeat()
               .map(augment, num_parallel_calls=tf.data.experimental.AUTOTUNE)
               .batch(64).prefetch(tf.data.experimental.AUTOTUNE))
    x = tf.data.make_one_shot_iterator(dataset).get_next()
    loss = tf.reduce_mean(tf.square(tf.reshape(x, [-1, IMAGE * IMAGE * 3])))
    init = tf.global_variables_initializer()
    with tf.Session() as sess:
        sess.run(init)
        for _ in range(args.steps):
            loss_value = sess.run(loss)
        print("seed002 fixed (tf.data pipeline): loss %.4f" % loss_value)


if __name__ == "__main__":
    main()
