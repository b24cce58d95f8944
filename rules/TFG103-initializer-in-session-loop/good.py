"""Training from several random restarts and evaluating each with tf.metrics."""
import numpy as np
import tensorflow as tf

features = tf.placeholder(tf.float32, [None, 20], name="features")
labels = tf.placeholder(tf.int64, [None], name="labels")
logits = tf.layers.dense(tf.layers.dense(features, 64, tf.nn.relu), 2)
loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
accuracy, update_accuracy = tf.metrics.accuracy(labels, tf.argmax(logits, 1))
init_op = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())

train_x, train_y = np.random.rand(512, 20), np.random.randint(0, 2, 512)
test_x, test_y = np.random.rand(128, 20), np.random.randint(0, 2, 128)

with tf.Session() as sess:
    for restart in range(100):
        sess.run(init_op)
        for step in range(200):
            sess.run(train_op, feed_dict={features: train_x, labels: train_y})
        sess.run(update_accuracy, feed_dict={features: test_x, labels: test_y})
        print("restart", restart, "accuracy", sess.run(accuracy))
