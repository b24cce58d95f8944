import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 32])
loss = tf.reduce_mean(tf.square(tf.layers.dense(x, 1)))
train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
saver = tf.train.Saver(max_to_keep=5)


def train(batches, num_steps):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(num_steps):
            sess.run(train_op, feed_dict={x: batches[step]})
            saver.save(sess, "/tmp/model/model.ckpt", global_step=step)  # expect: TFG202
