import tensorflow as tf

tf.app.flags.DEFINE_boolean("log_device_placement", False, "Log the device of every op.")
FLAGS = tf.app.flags.FLAGS

a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3])
b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2])
c = tf.matmul(a, b)

sess = tf.Session(config=tf.ConfigProto(log_device_placement=FLAGS.log_device_placement))
for step in range(10000):
    print(sess.run(c))
