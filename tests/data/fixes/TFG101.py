"""Checkpointing a classifier: the Saver is built inside the training loop."""
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 784], name="images")
y = tf.placeholder(tf.int64, [None], name="labels")
logits = tf.layers.dense(x, 10)
loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
init_op = tf.global_variables_initializer()


def next_batch(batch_size=64):
    """Return a random batch standing in for the real input pipeline."""
    return np.random.rand(batch_size, 784), np.random.randint(0, 10, batch_size)


with tf.Session() as sess:
    sess.run(init_op)
    saver = tf.train.Saver(max_to_keep=None)  # expect: TFG101
    for step in range(10000):
        xs, ys = next_batch()
        sess.run(train_op, feed_dict={x: xs, y: ys})
        if step % 1000 == 0:
            saver.save(sess, "/tmp/mnist/model.ckpt", global_step=step)
