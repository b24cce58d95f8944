import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 10])
w = tf.Variable(tf.zeros([10, 1]))
loss = tf.reduce_mean(tf.square(tf.matmul(x, w)))
train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
saver = tf.train.Saver()  # noqa: TFG101  # expect: TFG001

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())  # noqa: TFG103  # expect: TFG001
    for step in range(1000):
        sess.run(train_op)  # noqa: TFG101, TFG102  # expect: TFG001, TFG001
        if step % 100 == 0:
            saver.save(sess, "model.ckpt")  # noqa: TFG199  # expect: TFG001
