"""Every safe fix of a TF2 program keeps what it prints (issue 46): small TF2 programs run before and after
``tfguard check --fix`` (every rule), their stdout and exit status compared.

The programs live in ``tests/data/tf2_fix_programs``; ``FIXED`` says how many findings ``--fix`` fixes in each, so a
program that stops getting its fix fails here too. ``summary_step_then_python_use.py`` is the case no safe fix may
touch: its step is a summary's ``step=`` and then a Python value (``if step > 5: print(...)``); the fix a scan that
stopped at the first use would write (``tf.constant(step)``) is shown to print otherwise.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="needs TensorFlow"),
              pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "data" / "tf2_fix_programs"
#: program -> findings its safe fixes fix.
FIXED = {
    "epoch_as_python_int.py": 1,
    "step_counter_cast.py": 1,
    "lr_schedule_cast.py": 1,
    "summary_step_then_python_use.py": 0,
}


def _run(program: Path, logdir: Path) -> subprocess.CompletedProcess:
    env = {"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONHASHSEED": "0"}
    return subprocess.run([sys.executable, str(program), str(logdir)], capture_output=True, text=True, timeout=300,
                          env=env, cwd=str(program.parent))


def _fix(program: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "tfguard", "check", "--isolated", "--no-cache", "--select", "ALL",
                           "--fix", "--exit-zero", str(program)], capture_output=True, text=True, cwd=str(ROOT),
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_the_programs_are_the_ones_listed():
    assert sorted(p.name for p in PROGRAMS.glob("*.py")) == sorted(FIXED)


@pytest.mark.parametrize("name", sorted(FIXED))
def test_a_safe_fix_prints_what_the_program_printed(tmp_path, name):
    original, fixed = tmp_path / "original" / name, tmp_path / "fixed" / name
    for copy in (original, fixed):
        copy.parent.mkdir()
        shutil.copy(PROGRAMS / name, copy)
    said = _fix(fixed)
    changed = fixed.read_text(encoding="utf-8") != original.read_text(encoding="utf-8")
    assert changed is bool(FIXED[name]), said
    if FIXED[name]:
        assert "Fixed %d finding" % FIXED[name] in said, said
    before, after = _run(original, tmp_path / "logs-before"), _run(fixed, tmp_path / "logs-after")
    assert before.returncode == after.returncode == 0, (before.stderr[-2000:], after.stderr[-2000:])
    assert before.stdout and after.stdout == before.stdout


def test_the_fix_refused_for_a_step_used_after_its_summary_would_print_otherwise(tmp_path):
    name = "summary_step_then_python_use.py"
    original, by_hand = tmp_path / "original.py", tmp_path / "by_hand.py"
    shutil.copy(PROGRAMS / name, original)
    text = original.read_text(encoding="utf-8")
    call = "print(step, log_step(x, step)"
    assert text.count(call) == 1
    by_hand.write_text(text.replace(call, "print(step, log_step(x, tf.constant(step, dtype=tf.int64))"),
                       encoding="utf-8")  # what the safe fix writes for a summary step
    before, after = _run(original, tmp_path / "logs-before"), _run(by_hand, tmp_path / "logs-after")
    assert before.returncode == after.returncode == 0, (before.stderr[-2000:], after.stderr[-2000:])
    assert before.stdout.count("late step") == 2 and after.stdout != before.stdout
