"""GuardHook in an Estimator's training hooks (TF 1.15 has tf.estimator; TF 2.16+ no longer ships it)."""

from __future__ import annotations

import pytest

import tfguard

pytestmark = pytest.mark.tf1


def _train(tf, tmp_path, steps, leak):
    estimator_api = getattr(tf, "estimator", None)
    if estimator_api is None or not hasattr(estimator_api, "Estimator"):
        pytest.skip("this TensorFlow has no tf.estimator (removed in 2.16)")

    def input_fn():
        features = tf.data.Dataset.from_tensors({"x": [[1.0], [2.0]]}).repeat()
        return features.map(lambda f: (f, tf.constant([[2.0], [4.0]])))

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [1, 1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], w) - labels))
        train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss, tf.train.get_global_step())
        return estimator_api.EstimatorSpec(mode, loss=loss, train_op=train_op)

    class LeakHook(tf.train.SessionRunHook):
        def before_run(self, run_context):
            tf.reduce_sum(tf.ones([2]))  # built every step: the graph grows

    hook = tfguard.GuardHook(log=False)
    hooks = [hook] + ([LeakHook()] if leak else [])
    config = estimator_api.RunConfig(model_dir=str(tmp_path), save_checkpoints_steps=None,
                                     save_checkpoints_secs=None, save_summary_steps=10 ** 6, log_step_count_steps=None)
    estimator = estimator_api.Estimator(model_fn, config=config)
    estimator.train(input_fn, steps=steps, hooks=hooks)
    return hook.report


def test_guard_hook_in_an_estimator_reports_its_steps_and_no_growth(tf, tmp_path):
    report = _train(tf, tmp_path, 40, leak=False)
    assert report.mode == "hook"
    assert report.runs >= 40 and report.nodes_added == 0
    assert "TFG901" not in [code for code, _, _ in report.diagnostics]


def test_a_hook_that_builds_ops_in_an_estimator_is_named_at_its_line(tf, tmp_path):
    """The Estimator finalizes its graph: an op built each step is the guard's one-line error at that line."""
    with pytest.raises(tfguard.GraphFrozenError) as info:
        _train(tf, tmp_path, 40, leak=True)
    line = next(number for number, text in enumerate(open(__file__, encoding="utf-8").read().splitlines(), 1)
                if text.endswith("# built every step: the graph grows"))
    assert "test_hook_estimator.py:%d `tf.reduce_sum(tf.ones([2]))  # built every step" % line in str(info.value)
    assert "the graph was finalized before tfguard was attached" in str(info.value)
