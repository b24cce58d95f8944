import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 10])
w = tf.Variable(tf.zeros([10, 1]))
loss = tf.reduce_mean(tf.square(tf.matmul(x, w)))
train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1000):
        sess.run(train_op)
        if step % 100 == 0:
            # Reviewed: this legacy script runs 10 checkpoints at most; tracked in the migration plan.
            tf.train.Saver().save(sess, "model.ckpt")  # noqa: TFG101
    print(sess.run(loss))  # noqa: E501 - another tool's code is not judged
