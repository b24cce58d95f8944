"""A few end-to-end runs of ``python -m tfguard`` in a child process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def tfguard(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    return subprocess.run(
        [sys.executable, "-m", "tfguard", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_check_reports_parse_error_and_exits_one(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.tfguard]\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "old.py").write_text("import tensorflow as tf\nprint 'x'\n")
    (tmp_path / "pkg" / "ok.py").write_text("import tensorflow as tf\n")
    done = tfguard("check", "--py2=off", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.startswith("pkg/old.py:2:1: TFG000 cannot parse this file: ")
    assert done.stderr == "Found 1 finding (1 error) in 2 files.\n"

    done = tfguard("check", cwd=tmp_path)  # by default a Python 2 file is read as Python 2
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == "All checks passed (2 files, 1 of them read as Python 2).\n"
    (tmp_path / "pkg" / "old.py").write_text("import tensorflow as tf\nprint 'x' +\n")  # broken in any Python
    done = tfguard("check", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.startswith("pkg/old.py:2:1: TFG000 cannot parse this file: ")

    done = tfguard("check", "--format", "json", "pkg", "--ignore", "TFG000", cwd=tmp_path)
    assert (done.returncode, json.loads(done.stdout)["findings"]) == (0, [])


def test_bad_input_exits_two_without_traceback(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.tfguard]\nselct = []\n")
    done = tfguard("check", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "tfguard: error: pyproject.toml: unknown key 'selct' in [tool.tfguard]\n"
    done = tfguard("check", "missing", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, "tfguard: error: path not found: missing\n")


def test_version_and_rules(tmp_path):
    done = tfguard("--version", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("tfguard ")
    done = tfguard("rules", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)[0]["code"] == "TFG000"
