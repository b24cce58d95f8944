"""The console script as a user runs it (a child process): the bugs a first hour met, each kept fixed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.console import fresh_venv_console_script, tfguard_script
from tfguard.cli.precommit import pip_git_url

TRAIN = ("import tensorflow as tf\n"
         "x = tf.constant(1.0)\n"
         "with tf.Session() as sess:\n"
         "    for step in range(100):\n"
         "        sess.run(tf.add(x, 1.0))\n")


@pytest.fixture(scope="module")
def fresh_tfguard(tmp_path_factory) -> Path:
    """The console script of a fresh virtual environment with this checkout installed."""
    return fresh_venv_console_script(tmp_path_factory.mktemp("venv"))


@pytest.mark.slow
def test_fresh_venv_console_script_runs_a_module_of_the_working_folder(tmp_path, fresh_tfguard):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "trainer.py").write_text("print('trainer ran')\n")
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run([str(fresh_tfguard), "run", "-m", "pkg.trainer"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout) == (0, "trainer ran\n"), done.stderr
    done = subprocess.run([str(fresh_tfguard), "check", "--no-cache", "-q", "."], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stderr) == (0, "")


def test_run_dash_m_finds_a_module_of_the_working_folder(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("print('package imported')\n")
    (tmp_path / "pkg" / "trainer.py").write_text("import sys\nprint('trainer ran', sys.argv[1:])\n")
    done = tfguard_script("run", "-m", "pkg.trainer", "--lr", "0.1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # the package's __init__ runs once, as the program starts, not while tfguard looks the module up
    assert done.stdout == "package imported\ntrainer ran ['--lr', '0.1']\n"
    done = tfguard_script("run", "-m", "pkg.nothing", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, "tfguard: error: no module named pkg.nothing\n")
    done = tfguard_script("run", "-m", "json.tool", "--help", cwd=tmp_path)  # a module of the standard library
    assert done.returncode == 0 and "usage" in done.stdout


PROJECT = '[tool.tfguard]\n[tool.tfguard.per-file-ignores]\n"tests/**" = ["TFG102"]\n"*_gen.py" = ["ALL"]\n'


@pytest.mark.parametrize("where", [".", "src", "tests"])
def test_per_file_ignores_match_as_ruff_from_every_folder(tmp_path, where):
    (tmp_path / "pyproject.toml").write_text(PROJECT)
    for relpath in ("tests/test_train.py", "src/tests/test_train.py", "src/model_gen.py", "src/train.py"):
        (tmp_path / relpath).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relpath).write_text(TRAIN)
    cwd = tmp_path / where
    target = os.path.relpath(tmp_path, cwd)
    done = tfguard_script("check", "--no-cache", "--output-format", "json", target, cwd=cwd)
    import json

    reported = sorted({os.path.relpath(os.path.join(cwd, f["path"]), tmp_path).replace(os.sep, "/")
                       for f in json.loads(done.stdout)["findings"]})
    # "tests/**" is anchored to the pyproject.toml folder: src/tests/ is checked; "*_gen.py" matches anywhere
    assert reported == ["src/tests/test_train.py", "src/train.py"], done.stderr


def test_no_install_hint_names_a_package_index_tfguard_is_not_on():
    root = Path(__file__).resolve().parents[2]
    texts = [root / "README.md", *sorted((root / "docs").rglob("*.md")), *sorted((root / "tfguard").rglob("*.py"))]
    offenders = [str(path.relative_to(root)) for path in texts if 'tfguard[' in path.read_text(encoding="utf-8")]
    assert offenders == []


@pytest.mark.parametrize("origin, url", [
    ("https://github.com/o/tfguard.git", "https://github.com/o/tfguard.git"),
    ("git@github.com:o/tfguard.git", "ssh://git@github.com/o/tfguard.git"),
    ("ssh://git@host:2222/o/tfguard", "ssh://git@host:2222/o/tfguard"),
    ("/srv/git/tfguard", "file:///srv/git/tfguard"),
    ("../tfguard", "file:///srv/tfguard"),
])
def test_pre_commit_urls_are_ones_pip_takes(origin, url):
    assert pip_git_url(origin, base="/srv/work") == url


def test_pre_commit_config_prints_a_ready_hook(tmp_path):
    sha = "0123456789abcdef0123456789abcdef01234567"
    done = tfguard_script("pre-commit-config", "--repo", "git@github.com:o/tfguard.git", "--rev", sha, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f'additional_dependencies: ["tfguard @ git+ssh://git@github.com/o/tfguard.git@{sha}"]' in done.stdout
    done = tfguard_script("pre-commit-config", "--repo", "x", "--rev", "main", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("tfguard: error: --rev needs a full")


def test_bad_input_is_reported_not_passed(tmp_path):
    (tmp_path / "x.py").write_bytes(bytes(range(128, 256)) * 3)  # no TensorFlow word, not text
    (tmp_path / "nul.py").write_bytes(b"print(1)\0\n")
    (tmp_path / "a.py").write_text(TRAIN)
    (tmp_path / "empty").mkdir()
    done = tfguard_script("check", "--no-cache", "x.py", "nul.py", cwd=tmp_path)
    assert done.returncode == 1
    assert "x.py:1:1: TFG000" in done.stdout and "nul.py:1:9: TFG000" in done.stdout
    done = tfguard_script("check", "--no-cache", "empty", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stderr.splitlines()[0] == "tfguard: warning: no Python files found under empty"
    done = tfguard_script("check", "--no-cache", "a.py", "missing.py", cwd=tmp_path)
    assert done.returncode == 2
    assert "a.py:5:18: TFG102" in done.stdout  # a.py is still checked
    assert "missing.py: error: cannot read: No such file or directory" in done.stdout
    (tmp_path / "folder").mkdir()
    done = tfguard_script("run", "folder/", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("tfguard: error: can't find '__main__' module in folder/")
    (tmp_path / "folder" / "__main__.py").write_text("print('folder ran')\n")
    done = tfguard_script("run", "folder", cwd=tmp_path)  # as `python folder` runs it
    assert done.returncode == 0 and done.stdout == "folder ran\n"


def test_console_script_matches_python_dash_m(tmp_path):
    (tmp_path / "a.py").write_text(TRAIN)
    by_script = tfguard_script("check", "--no-cache", "a.py", cwd=tmp_path)
    by_module = subprocess.run([sys.executable, "-m", "tfguard", "check", "--no-cache", "a.py"], cwd=tmp_path,
                               capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(
                                   Path(__file__).resolve().parents[2])))
    assert (by_script.returncode, by_script.stdout) == (by_module.returncode, by_module.stdout)
