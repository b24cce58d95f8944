import tensorflow as tf

a = tf.placeholder(tf.float32, [None, 1024])
with tf.device("/device:GPU:1"):
    b = tf.layers.dense(a, 1024)
    c = tf.reduce_sum(b)

config = tf.ConfigProto(allow_soft_placement=True)
config.gpu_options.allow_growth = True
with tf.Session(config=config) as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(10000):
        sess.run(c, {a: [[0.0] * 1024]})
