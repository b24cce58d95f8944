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
