"""``unsafe-fixes`` and ``runtime-report`` in the configuration: what ``tfguard check`` does with them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.console import python_m_tfguard

RANDOM_IN_LOOP = (
    "import tensorflow as tf\n\n"
    "with tf.Session() as sess:\n"
    "    for step in range(100):\n"
    "        noise = tf.random_uniform([4])\n"
    "        sess.run(noise)\n"
)


def tfguard(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return python_m_tfguard(*args, cwd=cwd, timeout=120)


@pytest.mark.slow
def test_unsafe_fixes_true_lets_fix_apply_the_unsafe_fix(tmp_path: Path):
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "r.py").write_text(RANDOM_IN_LOOP)
    assert tfguard("check", "--fix", "plain/r.py", cwd=tmp_path).returncode == 1
    assert (tmp_path / "plain" / "r.py").read_text() == RANDOM_IN_LOOP  # unsafe: not without the key
    (tmp_path / "allowed").mkdir()
    (tmp_path / "allowed" / "tfguard.toml").write_text("unsafe-fixes = true\n")
    (tmp_path / "allowed" / "r.py").write_text(RANDOM_IN_LOOP)
    done = tfguard("check", "--fix", "allowed/r.py", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "    noise = tf.random_uniform([4])\n    for step in range(100):\n" in (
        tmp_path / "allowed" / "r.py").read_text()


@pytest.mark.slow
def test_the_keys_are_checked_and_shown(tmp_path: Path):
    (tmp_path / "tfguard.toml").write_text('unsafe-fixes = "yes"\n')
    done = tfguard("check", ".", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, "tfguard: error: tfguard.toml: 'unsafe-fixes' must be true or false\n")
    (tmp_path / "tfguard.toml").write_text("runtime-report = 3\n")
    done = tfguard("check", ".", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (
        2, "tfguard: error: tfguard.toml: 'runtime-report' must be the path of a `tfguard run --json` report\n")
    (tmp_path / "tfguard.toml").write_text('unsafe-fixes = true\nruntime-report = "runs/last.json"\n')
    shown = tfguard("check", "--show-settings", ".", cwd=tmp_path).stdout.splitlines()
    assert "unsafe-fixes = true" in shown
    assert f"runtime-report = {str(tmp_path / 'runs' / 'last.json')!r}" in shown
