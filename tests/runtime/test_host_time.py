"""TFG903 says where host time goes (issue 30): sampled stacks between runs, classified by cause."""

from __future__ import annotations

import numpy as np
import pytest

import tfguard
from tfguard.runtime.record.host_time import (
    INPUT,
    LOGGING,
    OTHER,
    PLOTTING,
    WAITING,
    advice,
    breakdown,
    classify,
    describe,
)


def test_causes_come_from_the_libraries_called_then_the_line_then_the_functions_around_it():
    assert classify("fig.savefig(path)", ("matplotlib",), ("train",)) == PLOTTING
    assert classify("plt.savefig('loss.png')", (), ("<module>",)) == PLOTTING
    assert classify("batch = make_batch(data)", ("numpy",), ("<module>",)) == INPUT
    assert classify("x, y = mnist.train.next_batch(64)", (), ("<module>",)) == INPUT
    assert classify("time.sleep(0.1)", (), ("<module>",)) == WAITING
    assert classify("item = q.get()", ("threading", "queue"), ("<module>",)) == WAITING
    assert classify('print("step", step, loss)', (), ("<module>",)) == LOGGING
    assert classify("total += value", (), ("<module>",)) == OTHER


def test_a_breakdown_names_the_top_lines_with_their_share_of_wall_time_and_advises_by_cause():
    samples = [(("step1.py", 120, ("matplotlib",), ("<module>",)), 61), (("step1.py", 90, ("numpy",), ("<module>",)),
                                                                         12),
               (("step1.py", 95, (), ("<module>",)), 6)]
    code = {120: "plt.savefig(name)", 90: "x = np.random.rand(64, 10)", 95: "total += 1"}
    found = breakdown(samples, 0.79, lambda path, line: code[line])
    assert found["cause"] == PLOTTING
    assert describe(found).startswith("61% at step1.py:120 `plt.savefig(name)` (plotting), 12% at step1.py:90")
    assert "plot less often" in advice(found) and "tf.data" not in advice(found)


def test_few_samples_give_no_breakdown_and_no_single_cause_gives_no_advice():
    assert breakdown([(("a.py", 1, (), ()), 5)], 0.9, lambda p, n: "") is None
    mixed = [(("a.py", 1, ("matplotlib",), ()), 20), (("a.py", 2, ("numpy",), ()), 20), (("a.py", 3, (), ()), 20)]
    assert advice(breakdown(mixed, 0.9, lambda p, n: "")) is None


def _train(tf, steps, between):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 8])
        w = tf.Variable(tf.ones([8, 1]))
        loss = tf.reduce_mean(tf.matmul(x, w))
        step = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=graph)
    sess.run(init)
    with tfguard.watch(sess, min_share_s=0) as guard:  # a short loop: judge its share all the same
        batch = np.ones((4, 8), np.float32)
        for i in range(steps):
            batch = between(i, batch)
            sess.run(step, feed_dict={x: batch})
    sess.close()
    return guard.report.to_dict()


def _tfg903(report):
    return next(d["headline"] + " \u2014 " + d["help"] for d in report["diagnostics"] if d["code"] == "TFG903")


def test_a_loop_that_plots_every_few_steps_gets_the_plotting_line_and_no_input_advice(tf, tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    losses = []

    def plot_every_5(i, batch):
        losses.append(float(i))
        if i % 5 == 0:
            plt.figure()
            plt.plot(losses)
            plt.savefig(str(tmp_path / "loss.png"))  # the plotting line
            plt.close("all")
        return batch

    report = _train(tf, 60, plot_every_5)
    message = _tfg903(report)
    assert report["host_time"]["cause"] == PLOTTING
    assert "`plt.savefig(str(tmp_path / \"loss.png\"))  # the plotting line` (plotting)" in message
    assert "plot less often" in message and "tf.data" not in message


def test_a_loop_that_prepares_its_input_in_python_still_gets_tf_data(tf):
    rng = np.random.RandomState(0)

    def prepare(i, batch):
        images = rng.rand(128, 128, 64).astype(np.float32)  # the input line
        images = np.sort(images, axis=-1)
        return images.reshape(-1, 8)[:4]

    report = _train(tf, 80, prepare)  # about a second: enough stack samples (host_time.MIN_SAMPLES) on a quiet machine
    message = _tfg903(report)
    assert report["host_time"]["cause"] == INPUT
    assert "tf.data with prefetch" in message and "(input)" in message
