"""The unsafe TFG202 fix keeps the trained model (issue 31, item 5): proven by running the fixed program.

``for step in range(100): ... saver.save(...)`` used to become ``if step % 1000 == 0:``, which saves step 0 (the
untrained model) and never the end.  The fix now fits its interval to the loop and keeps the last step's save;
real TensorFlow runs the fixed program and its latest checkpoint must be the last step.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tfguard.static.config import Settings
from tfguard.static.engine import check_source

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = textwrap.dedent("""\
    import sys
    import tensorflow.compat.v1 as tf
    tf.disable_eager_execution()

    counter = tf.Variable(0.0)
    train_op = tf.assign_add(counter, 1.0)
    saver = tf.train.Saver(max_to_keep=3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(STOP):
            sess.run(train_op)
            saver.save(sess, sys.argv[1] + "/model.ckpt", global_step=step)
    """)


def _fixed(source: str, folder: Path) -> str:
    path = folder / "train.py"
    path.write_text(source, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "tfguard", "check", "--no-cache", "--fix", "--unsafe-fixes",
                           "--exit-zero", str(path)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    return path.read_text(encoding="utf-8")


def test_the_fix_fits_the_interval_to_a_literal_bound_and_keeps_the_last_step(tmp_path):
    fixed = _fixed(PROGRAM.replace("STOP", "100"), tmp_path)
    assert "if step % 10 == 0 or step == 99:" in fixed


def test_the_fix_keeps_the_last_step_of_a_named_bound(tmp_path):
    source = PROGRAM.replace("STOP", "num_steps").replace("counter = ", "num_steps = int(sys.argv[2])\ncounter = ")
    assert "if step % 1000 == 0 or step == num_steps - 1:" in _fixed(source, tmp_path)


@pytest.mark.parametrize("loop", [
    "for step, batch in enumerate(batches):",  # a generator has no length: the last step is unknown
    "for step in range(0, 100, 7):",  # a step
])
def test_no_checkpoint_fix_where_the_last_step_cannot_be_written(loop):
    source = PROGRAM.replace("for step in range(STOP):", loop)
    findings = [f for f in check_source(source, "train.py", Settings(select=("ALL",))) if f.code == "TFG202"]
    assert len(findings) == 1 and findings[0].fix is None
    assert "last step" in findings[0].no_fix


@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="needs TensorFlow")
def test_the_fixed_program_s_latest_checkpoint_is_the_last_step(tmp_path):
    fixed = _fixed(PROGRAM.replace("STOP", "100"), tmp_path)
    checkpoints = tmp_path / "checkpoints"
    checkpoints.mkdir()
    done = subprocess.run([sys.executable, str(tmp_path / "train.py"), str(checkpoints)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    state = (checkpoints / "checkpoint").read_text(encoding="utf-8")
    latest = re.search(r'^model_checkpoint_path: "(.*)"$', state, re.M).group(1)
    assert latest.endswith("model.ckpt-99"), (fixed, state)
    # fewer writes than the original's 100, and the untrained step 0 is not all that is left
    assert sorted(int(p.name.split("-")[1].split(".")[0]) for p in checkpoints.glob("*.index")) == [80, 90, 99]
