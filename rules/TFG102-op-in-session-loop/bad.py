"""Assigning points to their nearest centroid, one point at a time."""
import numpy as np
import tensorflow as tf

points = np.random.rand(1000, 4).astype(np.float32)
centroids = tf.Variable(np.random.rand(8, 4).astype(np.float32), name="centroids")
point_in = tf.placeholder(tf.float32, [4], name="point")

assignments = []
with tf.Session() as sess:
    sess.run(centroids.initializer)
    for point in points:
        distances = tf.reduce_sum(tf.square(centroids - point_in), axis=1)  # expect: TFG102
        nearest = sess.run(tf.argmin(distances), feed_dict={point_in: point})  # expect: TFG102
        assignments.append(nearest)
    for epoch in range(30):
        print("first centroid:", sess.run(centroids[0]))  # expect: TFG102
