import tensorflow as tf

with tf.device("/gpu:0"):
    a = tf.random_normal([4096, 4096])
    b = tf.matmul(a, a)

config = tf.ConfigProto(allow_soft_placement=True)
sess = tf.Session(config=config)  # expect: TFG304
for step in range(10000):
    print(sess.run(b).shape)
