"""Issue 45: under `tfguard run` the program's tracebacks show no frame of the guard's wrappers (TensorFlow hides its
own the same way), while an error raised inside the guard keeps every frame (it is tfguard's, and reads as such)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import traceback

import pytest

from tests.run.conftest import REPO_ROOT, tfguard
from tfguard.runtime.run import runner

GUARD_FILE = os.path.join(runner._GUARD_DIR, "capture", "a_wrapper.py")


def _guard_function(body: str):
    """A function whose code reads as if it lived in the guard's package (its frames are the guard's)."""
    namespace: dict = {}
    exec(compile(textwrap.dedent(body), GUARD_FILE, "exec"), namespace)
    return namespace["wrapper"]


def _user_step(value):
    return value + "1"  # the user's own TypeError


def _frames(tb):
    return [entry.filename for entry in traceback.extract_tb(tb)]


def test_the_guards_wrapper_frames_are_hidden_from_a_user_error():
    wrapper = _guard_function("def wrapper(step, value):\n    return step(value)\n")
    with pytest.raises(TypeError) as raised:
        wrapper(_user_step, 1)
    shown = _frames(runner.without_guard_frames(raised.value.__traceback__))
    assert GUARD_FILE in _frames(raised.value.__traceback__) and GUARD_FILE not in shown
    assert shown[-1] == __file__  # the user's line is where it ends, as without the guard


def test_an_error_raised_in_the_guard_keeps_every_frame():
    wrapper = _guard_function("def wrapper(step, value):\n    return {}[step]\n")
    with pytest.raises(KeyError) as raised:
        wrapper("missing", 1)
    assert _frames(runner.without_guard_frames(raised.value.__traceback__))[-1] == GUARD_FILE


@pytest.mark.slow
def test_a_dtype_error_in_a_tf_function_step_under_tfguard_run_shows_no_tfguard_frame(tmp_path):
    pytest.importorskip("tensorflow")
    script = tmp_path / "step.py"
    script.write_text(textwrap.dedent("""\
        import tensorflow as tf

        w = tf.Variable(1.0)


        @tf.function
        def train_step(x):
            return w * x


        train_step(tf.constant(1.0))
        train_step(tf.constant(1, dtype=tf.int32))
    """))
    done = tfguard("run", script, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "does not match type float32" in done.stderr and 'step.py", line 12, in <module>' in done.stderr
    assert "tfguard" + os.sep + "runtime" not in done.stderr, done.stderr
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), TF_CPP_MIN_LOG_LEVEL="3", TFGUARD_TRACEBACK="full")
    full = subprocess.run([sys.executable, "-m", "tfguard", "run", str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert "tfguard" + os.sep + "runtime" in full.stderr  # all of them, for debugging tfguard itself


@pytest.mark.slow
@pytest.mark.skipif(sys.version_info < (3, 11), reason="a bare raise re-raises the exception's own traceback: 3.11+")
def test_errors_in_a_callback_a_generator_and_a_summary_under_tfguard_run_show_no_tfguard_frame(tmp_path):
    # Issue 45 item 2: the TF2 capture's wrappers (a Keras callback's timed hook, a tf.data generator's timed
    # function, a summary write) stood right above the user's error, in tracebacks the program printed itself,
    # in the text TensorFlow gives a generator's error, and in the one `tfguard run` prints.
    pytest.importorskip("tensorflow")
    script = tmp_path / "errors.py"
    script.write_text(textwrap.dedent("""\
        import traceback

        import numpy as np
        import tensorflow as tf


        def batches():
            yield np.zeros(2, "float32")
            raise ValueError("the generator's error")


        class Failing(tf.keras.callbacks.Callback):
            def on_train_batch_end(self, batch, logs=None):
                raise RuntimeError("the callback's error")


        dataset = tf.data.Dataset.from_generator(batches, output_signature=tf.TensorSpec((2,), tf.float32))
        try:
            for _ in dataset:
                pass
        except tf.errors.InvalidArgumentError:
            traceback.print_exc()
        with tf.summary.create_file_writer("logs").as_default(step=0):
            try:
                tf.summary.scalar("loss", "not a number")
            except Exception:
                traceback.print_exc()
        model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
        model.compile("sgd", "mse")
        model.fit(np.zeros((8, 2)), np.zeros((8, 1)), batch_size=4, verbose=0, callbacks=[Failing()])
    """))
    done = tfguard("run", script, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "the generator's error" in done.stderr and 'errors.py", line 9, in batches' in done.stderr
    assert 'errors.py", line 14, in on_train_batch_end' in done.stderr
    assert done.stderr.count("Traceback (most recent call last)") >= 3
    assert "tfguard" + os.sep + "runtime" not in done.stderr, done.stderr
