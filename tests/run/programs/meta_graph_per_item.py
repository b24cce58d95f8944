"""`import_meta_graph` once per item (the seed's serving loop), or once before the loop with `fixed`.

`meta_graph_per_item.py WORK_DIR ITEMS [fixed]`: exports a small graph to WORK_DIR, then scores ITEMS items.
"""

import os
import sys

import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
work, items, fixed = sys.argv[1], int(sys.argv[2]), "fixed" in sys.argv[3:]
with tf.Graph().as_default():
    x = tf.placeholder(tf.float32, [], name="x")
    tf.identity(x * 3.0, name="score")
    meta_graph = os.path.join(work, "model.meta")
    tf.train.export_meta_graph(meta_graph)
scores = []
with tf.Session() as sess:
    if fixed:
        tf.train.import_meta_graph(meta_graph)
    for item in range(items):
        if not fixed:
            tf.train.import_meta_graph(meta_graph, import_scope="item%d" % item)  # GROW SITE
        scope = "" if fixed else "item%d/" % item
        scores.append(sess.run(scope + "score:0", {scope + "x:0": float(item)}))
print("scored %d items, last %.1f" % (len(scores), scores[-1]))
