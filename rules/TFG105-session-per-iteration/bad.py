"""Classifying a folder of images with a frozen graph."""
import glob

import numpy as np
import tensorflow as tf

GRAPH_PATH = "/tmp/frozen_mobilenet.pb"


def load_frozen_graph(path):
    """Read a frozen GraphDef into a new tf.Graph."""
    graph_def = tf.GraphDef()
    with tf.gfile.GFile(path, "rb") as handle:
        graph_def.ParseFromString(handle.read())
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    return graph


graph = load_frozen_graph(GRAPH_PATH)
image_in = graph.get_tensor_by_name("input:0")
probabilities = graph.get_tensor_by_name("MobilenetV1/Predictions/Softmax:0")

for path in sorted(glob.glob("/tmp/images/*.npy")):
    with tf.Session(graph=graph) as sess:  # expect: TFG105
        scores = sess.run(probabilities, feed_dict={image_in: np.load(path)[None]})
    print(path, int(np.argmax(scores)))
