"""A classifier served per request: every call of classify() adds a softmax to the session's graph."""
import numpy as np
import tensorflow as tf


class Classifier(object):
    def __init__(self, checkpoint):
        self.x = tf.placeholder(tf.float32, [None, 4], name="features")
        self.logits = tf.layers.dense(self.x, 3)
        self.sess = tf.Session()
        tf.train.Saver().restore(self.sess, checkpoint)

    def classify(self, batch):
        probs = tf.nn.softmax(self.logits)  # expect: TFG109
        return self.sess.run(probs, feed_dict={self.x: batch})


def load_and_predict(path, image):
    sess = tf.Session()  # on the default graph, which outlives the call
    saver = tf.train.import_meta_graph(path + ".meta")  # expect: TFG109
    saver.restore(sess, path)
    return sess.run("out:0", feed_dict={"in:0": image})


def top_class(classifier, features):
    return int(np.argmax(classifier.classify(features)))
