"""A few end-to-end runs of ``python -m tfguard`` in a child process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.console import python_m_tfguard

REPO_ROOT = Path(__file__).resolve().parents[2]


def tfguard(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return python_m_tfguard(*args, cwd=cwd, timeout=120)


@pytest.mark.slow
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
    assert done.stderr == ("tfguard: error: pyproject.toml: unknown key 'selct' in [tool.tfguard] "
                           "(did you mean 'select'?)\n")
    done = tfguard("check", "missing", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, "tfguard: error: path not found: missing\n")


def test_version_and_rules(tmp_path):
    done = tfguard("--version", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("tfguard ")
    done = tfguard("rules", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)[0]["code"] == "TFG000"


@pytest.mark.slow
def test_python_m_never_imports_the_checked_project(tmp_path):
    """``python -m`` puts the working folder first on sys.path; modules named like the ones tfguard imports stay out."""
    (tmp_path / "pyproject.toml").write_text("[tool.tfguard]\n")
    shadowing = ("json", "concurrent", "multiprocessing", "tabulate", "astroid", "hashlib", "tempfile", "signal")
    for name in shadowing:
        (tmp_path / f"{name}.py").write_text(f"open({name + '.imported'!r}, 'w').close()\nraise SystemExit(0)\n")
    loop = "import tensorflow as tf\nsess = tf.Session()\nfor _ in range(30):\n    sess.run(tf.constant(1))\n"
    for index in range(6):  # enough files for -j 2 to start worker processes
        (tmp_path / f"train{index}.py").write_text(loop)
    for args in (["check", "-j", "1", "."], ["check", "-j", "2", "--format", "sarif", "."],
                 ["check", "--format", "table", "."], ["rules"]):
        done = tfguard(*args, cwd=tmp_path)
        assert sorted(path.name for path in tmp_path.glob("*.imported")) == [], args
        assert done.returncode == (0 if args == ["rules"] else 1), (args, done.stderr)
        assert "Traceback" not in done.stderr
