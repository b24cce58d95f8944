"""The same classifier, with its ops built once; the loader gives each call a graph of its own."""
import numpy as np
import tensorflow as tf


class Classifier(object):
    def __init__(self, checkpoint):
        self.x = tf.placeholder(tf.float32, [None, 4], name="features")
        self.logits = tf.layers.dense(self.x, 3)
        self.probs = tf.nn.softmax(self.logits)
        self.sess = tf.Session()
        tf.train.Saver().restore(self.sess, checkpoint)

    def classify(self, batch):
        return self.sess.run(self.probs, feed_dict={self.x: batch})


def load_and_predict(path, image):
    with tf.Graph().as_default():
        with tf.Session() as sess:
            saver = tf.train.import_meta_graph(path + ".meta")
            saver.restore(sess, path)
            return sess.run("out:0", feed_dict={"in:0": image})


def top_class(classifier, features):
    return int(np.argmax(classifier.classify(features)))
