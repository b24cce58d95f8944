import numpy as np
import tensorflow as tf


class PolicyWorker(object):
    """A rollout worker: the learner sends it new weights, as NumPy arrays, many times a run."""

    def __init__(self, obs_dim, num_actions):
        self.obs = tf.placeholder(tf.float32, [None, obs_dim])
        hidden = tf.layers.dense(self.obs, 256, activation=tf.nn.relu)
        self.logits = tf.layers.dense(hidden, num_actions)
        self.variables = tf.trainable_variables()
        # One placeholder-fed assign per variable, built once.
        self.new_values = [tf.placeholder(v.dtype.base_dtype, v.shape) for v in self.variables]
        self.assign_all = tf.group(*[v.assign(p) for v, p in zip(self.variables, self.new_values)])
        self.sess = tf.Session()
        self.sess.run(tf.global_variables_initializer())

    def set_weights(self, weights):
        self.sess.run(self.assign_all, feed_dict=dict(zip(self.new_values, weights)))

    def restore(self, path):
        arrays = np.load(path)
        for v in self.variables:
            v.load(arrays[v.op.name], self.sess)  # adds no op


def load_variables(sess, variables, values):
    """Called by a UI each time the user switches models."""
    for v, x in zip(variables, values):
        v.load(x, sess)
