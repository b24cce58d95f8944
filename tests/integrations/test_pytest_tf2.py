"""`pytest --tfguard` on TF2 tests: their rows speak of steps and tf.functions, not sessions, and the TF2 budgets
(`max_predict_calls`, `max_host_syncs_per_step`, `max_callback_share`) and the TFG910-TFG912 fail-on names work."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]
pytest.importorskip("tensorflow")
pytestmark = pytest.mark.slow

SAMPLE = '''
import numpy as np
import pytest
import tensorflow as tf

keras = tf.keras


def small_model():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    return model


@tf.function
def train_step(w, x):
    w.assign_sub(0.01 * x)
    return tf.reduce_sum(w)


def test_custom_loop_syncs_every_step():
    w = tf.Variable(tf.ones([4]))
    losses = [float(train_step(w, tf.ones([4]))) for _ in range(12)]  # HOST SYNC
    assert len(losses) == 12


@pytest.mark.tfguard(max_predict_calls=5)
def test_predict_per_sample():
    model = small_model()
    x = np.ones((12, 4), "float32")
    assert sum(model.predict(row[None], verbose=0).shape[0] for row in x) == 12  # PREDICT


@pytest.mark.tfguard(max_host_syncs_per_step=0.5)
def test_clean_loop():
    w = tf.Variable(tf.ones([4]))
    for _ in range(12):
        total = train_step(w, tf.ones([4]))
    assert float(total) < 4
'''


def _line(path, marker):
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1) if marker in line)


def test_tf2_rows_speak_of_steps_and_functions_and_the_budgets_hold(pytester, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    pytester.makepyfile(test_tf2=SAMPLE)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tfguard")
    outcomes = {k: v for k, v in result.parseoutcomes().items() if k not in ("warnings", "warning")}
    assert outcomes == {"passed": 2, "failed": 1}
    out = result.stdout.str()
    assert "tfguard: test_tf2.py::test_predict_per_sample failed its guard:" in out
    assert "max_predict_calls=5 exceeded: 12 predict/evaluate calls on small inputs from one line" in out
    result.stdout.fnmatch_lines([
        "3 tests guarded: 0 used a TensorFlow session, 3 ran TF2 steps or tf.functions, 1 failed its guard",
        "test * steps * step median * functions * traces * syncs/step * diagnostics * verdict",
        "test_tf2.py::test_clean_loop * 12 (train_step) * 1 * 0 * 0.1 * - * ok",
        "test_tf2.py::test_custom_loop_syncs_every_step * 12 (train_step) * 1 * 1 * 1.0 * TFG912 * ok",
        "test_tf2.py::test_predict_per_sample * - * - * 1 * 1 * - * TFG910 * FAILED",
    ])


def test_the_new_names_fail_a_test_with_fail_on(pytester, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    path = pytester.makepyfile(test_tf2=SAMPLE)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tfguard", "--tfguard-fail-on", "predict-in-loop",
                                "-k", "predict_per_sample", "-ra")
    out = result.stdout.str()
    assert "TFG910 warning (--tfguard-fail-on predict-in-loop) (program): `Sequential.predict` called 12 times" in out
    result.stdout.fnmatch_lines(["FAILED test_tf2.py::test_predict_per_sample - `Sequential.predict` called 12 "
                                 "times from test_tf2.py:%d on 1 row per call*" % _line(path, "# PREDICT")])


EAGER = '''
import tensorflow as tf


def test_eager_loop():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)
    for _ in range(40):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(tf.ones((2, 4))) ** 2)
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
'''


def test_an_eager_training_loop_has_a_row_of_eager_steps_and_fails_on_eager_step(pytester, monkeypatch):
    """A test that trains with no tf.function: its row counts its eager steps (it had none, its loop unwatched),
    and `--tfguard-fail-on eager-step` fails it on TFG909 (which never fired under pytest)."""
    monkeypatch.setenv("COLUMNS", "200")
    pytester.makepyfile(test_eager=EAGER)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tfguard")
    assert result.ret == 0  # TFG909 is a warning: reported, failing only when named
    result.stdout.fnmatch_lines([
        "1 test guarded: 0 used a TensorFlow session, 1 ran TF2 steps or tf.functions, 0 failed its guard",
        "test_eager.py::test_eager_loop * 40 (eager) * 0 * 0 * 0.0 * TFG909 * warning: TFG909"])
    failed = pytester.runpytest("-p", "no:cacheprovider", "--tfguard", "--tfguard-fail-on", "eager-step", "-ra")
    failed.stdout.fnmatch_lines(["FAILED test_eager.py::test_eager_loop - the training step runs eagerly*(TFG909)"])
