import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 784])
y = tf.placeholder(tf.int64, [None])
logits = tf.layers.dense(x, 10)
loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
tf.summary.histogram("logits", logits)
merged = tf.summary.merge_all()


def train(batches, dataset_name):
    writer = tf.summary.FileWriter("/tmp/logs")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step, (images, labels) in enumerate(batches):
            summary, _ = sess.run([merged, train_op], feed_dict={x: images, y: labels})
            if dataset_name == "mnist":  # loop-invariant: not a frequency guard
                writer.add_summary(summary, step)  # expect: TFG201



def log_summaries(images, labels):
    writer = tf.summary.FileWriter("/tmp/logs/eval")
    with tf.Session() as sess:
        for step in range(1000):
            if step % 100 == 0:
                writer.add_summary(sess.run(merged, feed_dict={x: images, y: labels}), step)  # expect: TFG201
