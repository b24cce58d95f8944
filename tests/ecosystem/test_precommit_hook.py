"""The pre-commit hook, run by the real pre-commit against a throwaway git repository.

pre-commit installs tfguard from a snapshot of this working tree into its own
virtualenv (pip, from the package registry), once per test: the runs of a test share
one PRE_COMMIT_HOME and name the same snapshot commit, so the later runs reuse the
installed environment. (Not `pre-commit try-repo`: it makes a store of its own in a
temporary folder on every call, so each call installed the environment again.)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from eco_sources import CLEAN, TRAIN

pytest.importorskip("pre_commit", reason="pre-commit is not installed (it is in the test extra)")
if shutil.which("git") is None:  # pragma: no cover - git is needed by pre-commit itself
    pytest.skip("git is not installed", allow_module_level=True)

REPO_ROOT = Path(__file__).resolve().parents[2]


def git(cwd: Path, *args: str) -> str:
    """Run git quietly with a fixed identity; return stdout."""
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def snapshot_of_this_checkout(target: Path) -> str:
    """Commit the working tree of this checkout (tracked and untracked, not ignored) to a new repo; return the sha."""
    listed = git(REPO_ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for relpath in filter(None, listed.split("\0")):
        source = REPO_ROOT / relpath
        if source.is_file():
            (target / relpath).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / relpath)
    git(target, "init", "-q")
    git(target, "add", "-A")
    git(target, "commit", "-q", "-m", "snapshot")
    return git(target, "rev-parse", "HEAD").strip()


@pytest.mark.slow
def test_hook_fails_on_the_bad_file_and_passes_on_the_good_one(tmp_path):
    hook_repo = tmp_path / "hook-repo"
    hook_repo.mkdir()
    sha = snapshot_of_this_checkout(hook_repo)

    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    (project / "pyproject.toml").write_text('[tool.tfguard]\nextend-exclude = ["legacy"]\n')
    (project / "bad.py").write_text(TRAIN)
    (project / "good.py").write_text(CLEAN)
    (project / "legacy").mkdir()
    (project / "legacy" / "old.py").write_text(TRAIN)
    (project / "notes.txt").write_text(textwrap.dedent("not python: import tensorflow\n"))
    git(project, "add", "-A")

    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), PRE_COMMIT_COLOR="never")

    def pre_commit_run(*args: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "pre_commit", "run", "--color", "never", *args]
        return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=540)

    def configure(hook_lines: str) -> None:
        """The hook of the snapshot, as a user's config names a hook repository (what try-repo writes)."""
        (project / ".pre-commit-config.yaml").write_text(textwrap.dedent(f"""\
            repos:
              - repo: {hook_repo}
                rev: {sha}
                hooks:
                  - id: tfguard
        """) + hook_lines)
        git(project, "add", "-A")

    configure("")
    everything = pre_commit_run("--all-files")
    output = everything.stdout + everything.stderr
    assert everything.returncode == 1, output
    assert "bad.py:12:13: TFG102" in output
    assert "bad.py:13:9: TFG101" in output
    assert "good.py" not in output.replace("bad.py", "")
    assert "legacy/old.py" not in output, "--force-exclude applies the configured excludes to named files"

    good_only = pre_commit_run("--files", "good.py", "legacy/old.py")
    assert good_only.returncode == 0, good_only.stdout + good_only.stderr
    assert "Passed" in good_only.stdout

    configure("        args: [--fix]\n")
    fixing = pre_commit_run("--all-files")
    output = fixing.stdout + fixing.stderr
    assert fixing.returncode == 1, output
    assert "files were modified by this hook" in output
    assert "Fixed 1 finding in 1 file." in output
    fixed = (project / "bad.py").read_text()
    assert "    y = tf.reduce_sum(x)\n    for step in range(100):\n        save(sess)\n" in fixed
    assert "bad.py:13:9: TFG101" in output  # the Saver built in save() is reported, not fixed: no edit there
    assert (project / "legacy" / "old.py").read_text() == TRAIN

def readme_local_hook() -> str:
    """Return the docs' `repo: local` snippet, with its two placeholders."""
    readme = (REPO_ROOT / "docs" / "integrations" / "pre-commit.md").read_text(encoding="utf-8")
    block = readme.split("<!-- pre-commit-local:start", 1)[1].split("<!-- pre-commit-local:end -->", 1)[0]
    return block.split("```yaml\n", 1)[1].split("```", 1)[0]


def test_readme_shows_what_pre_commit_config_prints():
    from tfguard.cli.precommit import SNIPPET

    assert readme_local_hook() == SNIPPET.format(url="<pip URL>", rev="<commit SHA>")


@pytest.mark.slow
def test_generated_local_hook_works_from_a_plain_path_origin(tmp_path):
    """`git+/path@sha` broke the first commit; the hook `tfguard pre-commit-config` writes installs from it."""
    from tests.console import tfguard_script

    hook_repo = tmp_path / "hook-repo"
    hook_repo.mkdir()
    sha = snapshot_of_this_checkout(hook_repo)

    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    generated = tfguard_script("pre-commit-config", "--repo", os.path.relpath(hook_repo, project), cwd=project)
    assert generated.returncode == 0, generated.stderr
    assert f'"tfguard @ git+file://{hook_repo}@{sha}"' in generated.stdout  # the rev read from that clone
    (project / ".pre-commit-config.yaml").write_text(generated.stdout)
    (project / "bad.py").write_text(TRAIN)
    (project / "good.py").write_text(CLEAN)
    git(project, "add", "-A")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), PRE_COMMIT_COLOR="never")
    done = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=540)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "bad.py:12:13: TFG102" in output and "bad.py:13:9: TFG101" in output
    assert "good.py" not in output.replace("bad.py", "")


def docs_system_hook() -> str:
    """Return the docs' `language: system` snippet (the hook that works after a plain install)."""
    page = (REPO_ROOT / "docs" / "integrations" / "pre-commit.md").read_text(encoding="utf-8")
    block = page.split("<!-- pre-commit-system:start", 1)[1].split("<!-- pre-commit-system:end -->", 1)[0]
    return block.split("```yaml\n", 1)[1].split("```", 1)[0]


def test_the_hook_printed_by_a_plain_install_works_with_pre_commit(tmp_path):
    """`pip install .` from a clone (no git checkout behind the installed copy): `tfguard pre-commit-config`
    prints the `language: system` hook the docs show, and the real pre-commit runs it."""
    from tests.console import fresh_venv_console_script

    script = fresh_venv_console_script(tmp_path, editable=False)
    bin_folder = script.parent
    where = subprocess.run([str(bin_folder / "python"), "-c", "import tfguard; print(tfguard.__file__)"],
                           capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert where.stdout.startswith(str(bin_folder.parent)), where  # the installed copy, not this checkout
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    printed = subprocess.run([str(script), "pre-commit-config"], cwd=project, capture_output=True, text=True,
                             timeout=120)
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == docs_system_hook()
    resolved = subprocess.run([str(script), "pre-commit-config", "--repo", str(REPO_ROOT), "--rev", "HEAD"],
                              cwd=project, capture_output=True, text=True, timeout=120)
    head = git(REPO_ROOT, "rev-parse", "HEAD").strip()
    assert resolved.returncode == 0 and f"@{head}\"]" in resolved.stdout, resolved.stderr  # HEAD resolved

    (project / ".pre-commit-config.yaml").write_text(printed.stdout)
    (project / "bad.py").write_text(TRAIN)
    (project / "good.py").write_text(CLEAN)
    git(project, "add", "-A")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), PRE_COMMIT_COLOR="never",
               PATH=os.pathsep.join([str(bin_folder), os.environ.get("PATH", "")]))
    env.pop("PYTHONPATH", None)  # the installed copy, not this checkout
    done = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=540)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "bad.py:12:13: TFG102" in output and "bad.py:13:9: TFG101" in output
    assert "good.py" not in output.replace("bad.py", "")
    git(project, "rm", "-q", "--cached", "bad.py")
    (project / "bad.py").unlink()
    done = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=540)
    assert done.returncode == 0 and "Passed" in done.stdout, done.stdout + done.stderr


#: fixtures/projects/driver_script's agent, before and after a change: `sync` then builds an assign op on each call,
#: so the loop of the driver that calls it grows the graph (TFG108, reported in drive.py, which is not staged).
AGENT_CLEAN = """\
import tensorflow as tf


class Agent(object):
    def __init__(self):
        self.w = tf.Variable(0.0)
        self.value = tf.placeholder(tf.float32)
        self.update = tf.assign(self.w, self.value)
        self.sess = tf.Session()

    def sync(self, value):
        self.sess.run(self.update, {self.value: value})
"""
AGENT_CHANGED = AGENT_CLEAN.replace("self.sess.run(self.update, {self.value: value})",
                                    "self.sess.run(tf.assign(self.w, value))")
DRIVER = """\
from agent import Agent

bot = Agent()
for episode in range(1000):
    bot.sync(float(episode))
"""


def test_a_staged_change_that_makes_a_caller_build_ops_fails_the_commit_at_the_caller(tmp_path):
    """Issue 45: only agent.py is staged; the finding it causes in the loop of drive.py (not staged) fails the commit
    at that loop, naming the staged line, with the docs' hook (`--callers`); the staged-only check never names it."""
    from tests.console import console_script

    script = console_script(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    (project / ".pre-commit-config.yaml").write_text(docs_system_hook())
    (project / "agent.py").write_text(AGENT_CLEAN)
    (project / "drive.py").write_text(DRIVER)
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "a clean start")
    (project / "agent.py").write_text(AGENT_CHANGED)
    git(project, "add", "agent.py")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), PRE_COMMIT_COLOR="never",
               PATH=os.pathsep.join([str(script.parent), os.environ.get("PATH", "")]), PYTHONPATH=str(REPO_ROOT))
    done = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--color", "never"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=540)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "drive.py:5:5: TFG108" in output, output  # at the caller, which is not staged
    assert "(through agent.py:12 in Agent.sync, a file checked for this change)" in output
    staged_only = subprocess.run([str(script), "check", "--force-exclude", "agent.py"], cwd=project, env=env,
                                 capture_output=True, text=True, timeout=120)
    assert "drive.py" not in staged_only.stdout  # the hook without --callers: agent.py's own findings only
    git(project, "commit", "-q", "--no-verify", "-m", "the change")
    (project / "notes.py").write_text("print('unrelated')\n")
    git(project, "add", "notes.py")
    unrelated = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--color", "never"], cwd=project,
                               env=env, capture_output=True, text=True, timeout=540)
    assert unrelated.returncode == 0, unrelated.stdout  # drive.py's finding is not notes.py's commit's
