"""Two TF 2 tests for `pytest --tfguard`: one whose tf.function retraces on every call, one that traces it once."""

import tensorflow as tf


def test_retraces():
    scale = tf.Variable(1.0)

    @tf.function
    def step(factor):
        return scale * factor

    for factor in range(12):
        step(float(factor))  # a new Python number each call: a new graph each call


def test_traces_once():
    scale = tf.Variable(1.0)

    @tf.function
    def step(factor):
        return scale * factor

    for factor in range(12):
        step(tf.constant(float(factor)))
