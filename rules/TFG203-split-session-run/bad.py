import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 784])
y = tf.placeholder(tf.int64, [None])
logits = tf.layers.dense(x, 10)
loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)


def train(batches):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for images, labels in batches:
            feed = {x: images, y: labels}
            sess.run(train_op, feed_dict=feed)
            loss_value = sess.run(loss, feed_dict=feed)  # expect: TFG203
            acc = accuracy.eval(feed_dict=feed, session=sess)  # expect: TFG203
            print(loss_value, acc)
