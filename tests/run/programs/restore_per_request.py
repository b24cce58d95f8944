"""An app that restores its model per request (issue 30): a Session and an import_meta_graph for each
"image", on the one default graph, plus a Saver, a FileWriter, a callable and a file of its own results."""

import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
requests = int(sys.argv[1]) if len(sys.argv) > 1 else 4
export = tf.Graph()
with export.as_default():
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    w = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3), name="w")
    tf.argmax(tf.matmul(x, w), axis=1, name="label")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver().save(sess, os.path.join("model", "m"))
writer = tf.summary.FileWriter("logs")
labels = []
for request in range(requests):
    sess = tf.Session()
    saver = tf.train.import_meta_graph(os.path.join("model", "m.meta"))  # the import line
    saver.restore(sess, os.path.join("model", "m"))
    image = np.full((1, 4), request, dtype=np.float32)
    label = sess.run("label:0", feed_dict={"x:0": image})
    score = sess.make_callable("MatMul:0", ["x:0"])(image)
    labels.append(int(label[0]))
    print("request %d: label %d score %.1f" % (request, label[0], score.max()))
    sess.close()
writer.add_graph(tf.get_default_graph())
writer.close()
with open("labels.txt", "w") as handle:
    handle.write(",".join(map(str, labels)) + "\n")
print("ops in the default graph: %d" % len(tf.get_default_graph().get_operations()))
sys.exit(3 if len(labels) != requests else 0)
