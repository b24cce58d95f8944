import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 784])
y = tf.placeholder(tf.int64, [None])
logits = tf.layers.dense(x, 10)
loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
tf.summary.histogram("logits", logits)
merged = tf.summary.merge_all()


def train(batches, summary_every=100):
    writer = tf.summary.FileWriter("/tmp/logs")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step, (images, labels) in enumerate(batches):
            feed = {x: images, y: labels}
            if step % summary_every == 0:
                summary, _ = sess.run([merged, train_op], feed_dict=feed)
                writer.add_summary(summary, step)
            else:
                sess.run(train_op, feed_dict=feed)
