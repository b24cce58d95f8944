import numpy as np
import tensorflow as tf


class PolicyWorker(object):
    """A rollout worker: the learner sends it new weights, as NumPy arrays, many times a run."""

    def __init__(self, obs_dim, num_actions):
        self.obs = tf.placeholder(tf.float32, [None, obs_dim])
        hidden = tf.layers.dense(self.obs, 256, activation=tf.nn.relu)
        self.logits = tf.layers.dense(hidden, num_actions)
        self.variables = tf.trainable_variables()
        self.sess = tf.Session()
        self.sess.run(tf.global_variables_initializer())

    def set_weights(self, weights):
        self.sess.run([v.assign(w) for v, w in zip(self.variables, weights)])  # expect: TFG110

    def restore(self, path):
        arrays = np.load(path)
        ops = []
        for v in self.variables:
            ops.append(tf.assign(v, arrays[v.op.name]))  # expect: TFG110
        self.sess.run(ops)


def load_variables(sess, variables, values):
    """Called by a UI each time the user switches models."""
    sess.run([tf.assign(v, x) for v, x in zip(variables, values)])  # expect: TFG110
