import tensorflow as tf

NUM_GPUS = 2


def _variable_on_cpu(name, shape, initializer):
    with tf.device("/cpu:0"):
        return tf.get_variable(name, shape, initializer=initializer)


def inference(images):
    weights = _variable_on_cpu("weights", [784, 10], tf.truncated_normal_initializer(stddev=0.1))
    biases = _variable_on_cpu("biases", [10], tf.zeros_initializer())
    return tf.matmul(images, weights) + biases


images = tf.placeholder(tf.float32, [None, 784])
tower_logits = []
with tf.variable_scope(tf.get_variable_scope()):
    for i in range(NUM_GPUS):
        with tf.device("/gpu:%d" % i):
            with tf.name_scope("tower_%d" % i):
                tower_logits.append(inference(images))
                tf.get_variable_scope().reuse_variables()
