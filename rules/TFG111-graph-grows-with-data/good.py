import os

import tensorflow as tf


class ImageFolder:
    """Loads every image of a folder as a float array, through one decode op fed per file."""

    def __init__(self, folder):
        data = tf.placeholder(tf.string)
        image = tf.image.convert_image_dtype(tf.image.decode_jpeg(data, channels=3), tf.float32)
        self.images = []
        with tf.Session() as sess:
            for name in sorted(os.listdir(folder)):
                with open(os.path.join(folder, name), "rb") as handle:
                    self.images.append(sess.run(image, {data: handle.read()}))
