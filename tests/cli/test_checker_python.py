"""The checker from Python 3.7 (beside TensorFlow 1.15): `tfguard check` runs it from a newer Python on the machine."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tfguard.cli import checker_python
from tfguard.cli.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]
SEED_003 = ROOT / "tfguard" / "demo" / "seed003_saver_in_loop.py"


def test_without_a_newer_python_one_line_says_what_to_install(monkeypatch):
    monkeypatch.delenv(checker_python.ENV_PYTHON, raising=False)
    monkeypatch.setattr(checker_python, "candidates", lambda: [])
    with pytest.raises(UsageError) as raised:
        checker_python.run_elsewhere("check", ["check", "."])
    message = str(raised.value)
    assert "\n" not in message and message.startswith("tfguard check needs Python 3.8 or newer (this is Python ")
    assert "found none on this machine" in message and "`pyenv install 3.11`" in message


def test_a_chosen_python_that_does_not_start_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv(checker_python.ENV_PYTHON, str(tmp_path / "no-python"))
    with pytest.raises(UsageError, match="TFGUARD_CHECKER_PYTHON=.* is not a Python 3.8 or newer that starts"):
        checker_python.run_elsewhere("check", ["check", "."])


def test_the_search_can_be_turned_off(monkeypatch):
    monkeypatch.setenv(checker_python.ENV_PYTHON, "0")
    with pytest.raises(UsageError, match=r"the search is off \(TFGUARD_CHECKER_PYTHON=0\)"):
        checker_python.run_elsewhere("rules", ["rules"])


def test_the_newest_python_that_starts_is_chosen(monkeypatch, tmp_path):
    monkeypatch.delenv(checker_python.ENV_PYTHON, raising=False)
    versions = {"old": (3, 7, 16), "shim": None, "new": (3, 12, 1), "mid": (3, 9, 18)}
    monkeypatch.setattr(checker_python, "candidates", lambda: [[name] for name in versions])
    monkeypatch.setattr(checker_python, "_version_of", lambda command: versions[command[0]])
    assert checker_python.find_checker_python() == (["new"], (3, 12, 1))


def test_the_candidates_include_pyenv_versions_newest_first(monkeypatch, tmp_path):
    for name in ("3.8.18", "3.13.0", "3.10.13", "2.7.18"):
        python = tmp_path / "versions" / name / "bin" / "python"
        python.parent.mkdir(parents=True)
        python.write_text("#!/bin/sh\n")
        python.chmod(0o755)
    monkeypatch.setattr(checker_python, "_pyenv_roots", lambda: [str(tmp_path)])
    found = [command[0] for command in checker_python.candidates() if command[0].startswith(str(tmp_path))]
    assert [Path(path).parts[-3] for path in found] == ["3.13.0", "3.10.13", "3.8.18"]


def test_a_checkout_is_put_on_the_path_and_the_requirements_leave_the_extras_out():
    assert checker_python._source() == ("checkout", str(ROOT))
    requirements = checker_python.requirements()
    assert any(line.startswith("astroid") for line in requirements)
    assert not any("pytest" in line or "extra ==" in line for line in requirements)


def test_the_bootstrap_line_is_quiet_with_q():
    assert checker_python.quiet(["check", "-q", "."]) and checker_python.quiet(["check", "--quiet"])
    assert checker_python.quiet(["check", "-nq"]) and not checker_python.quiet(["check", "--select", "TFG101"])


def test_environments_unused_for_a_month_are_removed_when_one_is_built(monkeypatch, tmp_path):
    import time

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    root = Path(checker_python.cache_root())
    for name, days_ago in (("checker-py3.11-old", 40), ("checker-py3.11-recent", 2), ("checker-py3.12-new", 0)):
        (root / name).mkdir(parents=True)
        marker = root / name / ".complete"
        marker.write_text("python3\n")
        stamp = time.time() - days_ago * 86400
        os.utime(marker, (stamp, stamp))
    (root / "unrelated").mkdir()
    removed = checker_python.remove_unused(str(root / "checker-py3.12-new"))
    assert [Path(p).name for p in removed] == ["checker-py3.11-old"]
    assert sorted(p.name for p in root.iterdir()) == ["checker-py3.11-recent", "checker-py3.12-new", "unrelated"]


def _python_3_7():
    roots = [os.environ.get("PYENV_ROOT", ""), os.path.expanduser("~/.pyenv")]
    for root in roots:
        found = sorted(glob.glob(os.path.join(root, "versions", "3.7*", "bin", "python"))) if root else []
        if found:
            return found[-1]
    return shutil.which("python3.7")


@pytest.mark.slow
def test_tfguard_check_from_a_python_3_7_venv_reports_seed_003_and_the_pre_commit_hook_does_too(tmp_path):
    python37 = _python_3_7()
    if python37 is None:
        pytest.skip("no Python 3.7 on this machine (pyenv versions/3.7*, python3.7 on PATH)")
    venv = tmp_path / "venv37"
    subprocess.run([python37, "-m", "venv", str(venv)], check=True)
    env = {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    installed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(ROOT)],
                               capture_output=True, text=True, env=env)
    if installed.returncode != 0:
        pytest.skip("could not pip install tfguard into a Python 3.7 venv: %s" % installed.stderr.strip()[-200:])
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(SEED_003, project / "train.py")
    command = [str(venv / "bin" / "tfguard"), "check", "--select", "TFG101", "train.py"]
    first = subprocess.run(command, cwd=project, capture_output=True, text=True, env=env)
    assert first.returncode == 1, first.stderr
    assert "train.py:52:21: TFG101" in first.stdout
    line, = [line for line in first.stderr.splitlines() if "3.7" in line]
    assert line.startswith("tfguard: the checker needs Python 3.8+ (this is 3.7): building its environment once")
    again = subprocess.run(command, cwd=project, capture_output=True, text=True, env=env)
    assert again.returncode == 1 and again.stdout == first.stdout
    assert "the checker needs Python 3.8+" not in again.stderr  # one line once, when it is built (issue 45)

    # The hook that runs the installed tfguard (`tfguard pre-commit-config --system`), from the 3.7 venv's PATH.
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    from tfguard.cli.precommit import SYSTEM_SNIPPET

    (project / ".pre-commit-config.yaml").write_text(SYSTEM_SNIPPET)
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    hook_env = dict(env, PATH=str(venv / "bin") + os.pathsep + env.get("PATH", ""),
                    PRE_COMMIT_HOME=str(tmp_path / "pre-commit"))
    hooked = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=project,
                            capture_output=True, text=True, env=hook_env)
    assert hooked.returncode == 1, hooked.stdout + hooked.stderr
    assert "train.py:52:21: TFG101" in hooked.stdout
