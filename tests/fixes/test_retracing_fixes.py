"""TFG403's safe fix and TFG404's unsafe one: what they write, what they refuse, and (with TensorFlow) that the safe
one keeps every printed value while the traces drop."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "data" / "tf2_fix_programs"


@pytest.fixture
def check(run, tmp_path, monkeypatch):
    """``tfguard check --isolated --no-cache ARGS`` in-process (the subject is the fix, not process start-up):
    (status, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    return lambda *args: run("check", "--isolated", "--no-cache", *map(str, args))


def test_the_safe_fix_wraps_only_what_the_function_uses_as_a_tensor(tmp_path, check):
    program = tmp_path / "bad.py"
    shutil.copy(ROOT / "rules" / "TFG403-python-scalar-argument" / "bad.py", program)
    report = json.loads(check("--select", "TFG403", "--format", "json", program)[1])
    by_column = {f["column"]: f for f in report["findings"]}
    assert len(by_column) == 2
    epoch, rate = (by_column[c] for c in sorted(by_column))
    assert epoch["fix"]["applicability"] == "safe"
    assert rate["fix"] is None and "uses `learning_rate` as a Python value" in rate["no_fix"]
    assert check("--select", "TFG403", "--fix", "--exit-zero", program)[0] == 0
    text = program.read_text(encoding="utf-8")
    assert "train_step(x, y, tf.constant(epoch, dtype=tf.int64), learning_rate)" in text


def test_the_unsafe_fix_relaxes_the_shapes_of_the_function(tmp_path, check):
    program = tmp_path / "bad.py"
    shutil.copy(ROOT / "rules" / "TFG404-varying-input-shape" / "bad.py", program)
    assert check("--select", "TFG404", "--fix", "--exit-zero", program)[0] == 0
    assert "@tf.function\n" in program.read_text(encoding="utf-8")  # --fix alone leaves it
    assert check("--select", "TFG404", "--fix", "--unsafe-fixes", "--exit-zero", program)[0] == 0
    assert "@tf.function(reduce_retracing=True)\ndef train_step" in program.read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="needs TensorFlow")
def test_the_safe_fix_prints_the_same_with_one_trace(tmp_path, check):
    original = tmp_path / "original.py"
    fixed = tmp_path / "fixed.py"
    shutil.copy(PROGRAMS / "epoch_as_python_int.py", original)
    shutil.copy(PROGRAMS / "epoch_as_python_int.py", fixed)
    _, _, err = check("--select", "TFG403", "--fix", "--exit-zero", fixed)
    assert "Fixed 1 finding" in err, err
    assert "train_step(x, tf.constant(epoch, dtype=tf.int64), 7)" in fixed.read_text(encoding="utf-8")
    runs = {}  # the programs themselves run as written, in TensorFlow: the subject is what they print and trace
    for program in (original, fixed):
        runs[program.name] = subprocess.run([sys.executable, str(program), str(tmp_path / f"logs-{program.stem}")],
                                            capture_output=True, text=True, timeout=300,
                                            env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"})
    before, after = runs["original.py"], runs["fixed.py"]
    assert before.returncode == after.returncode == 0, (before.stderr[-2000:], after.stderr[-2000:])
    assert after.stdout == before.stdout and before.stdout.count("\n") == 12
    assert "traces 12" in before.stderr and "traces 1" in after.stderr
