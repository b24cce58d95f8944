import os

import tensorflow as tf


class ImageFolder:
    """Loads every image of a folder as a float tensor, once, at construction."""

    def __init__(self, folder):
        tensors = []
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), "rb") as handle:
                data = handle.read()
            image = tf.image.decode_jpeg(data, channels=3)  # expect: TFG111
            tensors.append(tf.image.convert_image_dtype(image, tf.float32))
        with tf.Session() as sess:
            self.images = sess.run(tensors)
