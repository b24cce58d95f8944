"""TFG110's facts: assignments from host values built on each call of a function that runs the graph."""

import textwrap

import pytest

from tfguard import check_source
from tfguard.static.config import Settings

HEADER = "import numpy as np\nimport tensorflow as tf\n"


def tfg110_lines(source: str):
    found = check_source(HEADER + textwrap.dedent(source), "m.py", Settings(select=("ALL",)))
    return sorted(f.line - 2 for f in found if f.code == "TFG110")


@pytest.mark.parametrize("value", ["weights[0]", "np.zeros([3])", "0.5", "[1.0, 2.0]", "float(weights)",
                                   "weights * 2", "np.load(weights)['w']", "sess.run(other)"])
def test_host_values_from_parameters_numpy_literals_and_runs(value):
    source = f"""
    other = tf.Variable(1.0)
    def set_value(sess, var, weights):
        sess.run(tf.assign(var, {value}))
    """
    assert tfg110_lines(source) == [4]


def test_values_through_zip_enumerate_and_items():
    source = """
    class Worker:
        def __init__(self):
            self.variables = tf.trainable_variables()
            self.sess = tf.Session()
        def set_weights(self, weights):
            self.sess.run([v.assign(w) for v, w in zip(self.variables, weights)])
        def set_listed(self, weights):
            for i, w in enumerate(weights):
                self.sess.run(tf.assign(self.variables[i], w))
        def set_named(self, sess, by_name):
            ops = [tf.assign(tf.get_variable(name), value) for name, value in by_name.items()]
            sess.run(ops)
    """
    # set_listed's assign is in a loop that runs the graph: TFG108 reports it, not TFG110.
    assert tfg110_lines(source) == [7, 12]


@pytest.mark.parametrize("value", ["self.other", "tf.zeros([3])", "other * 2", "OTHER"])
def test_tensors_attributes_and_module_names_are_not_host_values(value):
    source = f"""
    OTHER = np.zeros([3])
    class Net:
        def __init__(self):
            self.var = tf.Variable(tf.zeros([3]))
            self.other = tf.Variable(tf.ones([3]))
            self.sess = tf.Session()
        def sync(self, other):
            self.sess.run(self.var.assign({value}))
    def caller():
        Net().sync(tf.ones([3]))
    """
    assert tfg110_lines(source) == []


def test_functions_called_once_setup_and_builders_that_do_not_run_are_silent():
    source = """
    def restore(sess, var, weights):
        sess.run(tf.assign(var, weights))
    def assign_op(var, weights):
        return tf.assign(var, weights)
    class Net:
        def __init__(self, sess, weights):
            self.var = tf.Variable(0.0)
            sess.run(self.var.assign(weights))
    def main():
        sess = tf.Session()
        restore(sess, tf.Variable(0.0), np.load("w.npy"))
    if __name__ == "__main__":
        main()
    """
    assert tfg110_lines(source) == []


def test_a_function_called_from_a_loop_and_a_library_function_are_reported():
    source = """
    def restore(sess, var, weights):
        sess.run(tf.assign(var, weights))
    def evaluate_all(sess, var, paths):
        for path in paths:
            restore(sess, var, np.load(path))
    def load_variables(sess, variables, values):
        sess.run([tf.assign(v, x) for v, x in zip(variables, values)])
    """
    assert tfg110_lines(source) == [3, 8]


def test_load_and_placeholder_fed_assigns_are_silent():
    source = """
    class Worker:
        def __init__(self):
            self.var = tf.Variable(tf.zeros([3]))
            self.new_value = tf.placeholder(tf.float32, [3])
            self.assign = self.var.assign(self.new_value)
            self.sess = tf.Session()
        def set_weights(self, weights):
            self.sess.run(self.assign, {self.new_value: weights})
            self.var.load(weights, self.sess)
    """
    assert tfg110_lines(source) == []
