"""Seed 002, fixed: input preparation in a tf.data pipeline with parallel map and prefetch.

Same data and augmentation as seed002_input_bound.py, written as TensorFlow ops, so it
runs in TensorFlow's threads and overlaps with training. The same model, pinned to the GPU
with soft placement.
"""

import argparse

import numpy as np
import tensorflow.compat.v1 as tf

IMAGE = 32


def augment(image):
    """The same random crop, flip and standardisation, as TensorFlow ops."""
    padded = tf.pad(image, [[4, 4], [4, 4], [0, 0]])
    crop = tf.image.random_crop(padded, [IMAGE, IMAGE, 3], seed=0)
    return tf.image.per_image_standardization(tf.image.random_flip_left_right(crop, seed=0))


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
    with tf.device("/gpu:0"):  # the model on the GPU
        features = tf.reduce_mean(tf.abs(x), axis=[1, 2])  # pooled per channel
        w = tf.Variable(tf.zeros([3, 10]), name="w")
        logits = tf.matmul(features, w)
        loss = tf.reduce_mean(tf.square(logits - 1.0))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    init = tf.global_variables_initializer()
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        sess.run(init)
        for _ in range(args.steps):
            _, loss_value = sess.run([train, loss])
        print("seed002 fixed (tf.data pipeline): loss %.4f" % loss_value)


if __name__ == "__main__":
    main()
