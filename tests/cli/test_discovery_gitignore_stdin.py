"""Discovery like ruff: .gitignore respected (checked against git itself) and source read from stdin."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from tests.console import tfguard_script
from tfguard.static.gitignore import GitIgnore

TRAIN = ("import tensorflow as tf\n"
         "with tf.Session() as sess:\n"
         "    for step in range(100):\n"
         "        sess.run(tf.add(1, 2))\n")
FILES = ["a.py", "build_gen.py", "gen/b.py", "src/gen/c.py", "src/deep/x_pb2.py", "keep/d.py", "keep/e.py",
         "docs/tmp/f.py", "logs/run1/g.py", "notes/h.py", "src/sub/only_here.py", "src/only_here.py",
         "space name.py", "literal[1].py"]
GITIGNORES = {
    ".gitignore": "# generated\n*_pb2.py\n/build_gen.py\ngen/\nkeep/*\n!keep/d.py\ndocs/**/f.py\nlogs/**\n"
                  "notes\nliteral\\[1\\].py\n",
    "src/.gitignore": "only_here.py\n!sub/only_here.py\n",
}

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def repo(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for relpath in FILES:
        (tmp_path / relpath).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relpath).write_text(TRAIN)
    for relpath, text in GITIGNORES.items():
        (tmp_path / relpath).write_text(text)
    return tmp_path


def git_ignored(repo) -> set:
    done = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], cwd=repo, input="\n".join(FILES),
                          capture_output=True, text=True)
    return set(done.stdout.split("\n")) - {""}


def ignored_by_us(repo) -> set:
    ignore = GitIgnore(str(repo))

    def hidden(relpath: str) -> bool:  # a file is skipped when it or a folder above it is ignored
        parts = relpath.split("/")
        return any(ignore.ignored(os.path.join(repo, *parts[:i]), True) for i in range(1, len(parts))) or \
            ignore.ignored(os.path.join(repo, relpath), False)

    return {relpath for relpath in FILES if hidden(relpath)}


@needs_git
def test_gitignore_matches_as_git_does(repo):
    assert ignored_by_us(repo) == git_ignored(repo)
    assert "keep/d.py" not in git_ignored(repo) and "src/sub/only_here.py" not in git_ignored(repo)


@needs_git
@pytest.mark.parametrize("where", [".", "src"])
@pytest.mark.slow
def test_check_skips_ignored_files_unless_told(repo, where):
    cwd = repo / where
    done = tfguard_script("check", "--no-cache", "--output-format", "json", ".", cwd=cwd)
    checked = {os.path.relpath(cwd / f["path"], repo).replace(os.sep, "/")
               for f in json.loads(done.stdout)["findings"]}
    expected = {relpath for relpath in FILES if relpath.startswith("" if where == "." else where + "/")}
    assert checked == expected - git_ignored(repo)
    done = tfguard_script("check", "--no-cache", "--no-respect-gitignore", "--output-format", "json", ".", cwd=cwd)
    assert len(json.loads(done.stdout)["findings"]) == len(expected)
    named = tfguard_script("check", "--no-cache", "-q", "src/gen/c.py" if where == "." else "gen/c.py", cwd=cwd)
    assert named.returncode == 1  # a file named on the command line is checked, as ruff does


@needs_git
def test_respect_gitignore_setting(repo):
    (repo / "pyproject.toml").write_text("[tool.tfguard]\nrespect-gitignore = false\n")
    done = tfguard_script("check", "--no-cache", "--output-format", "json", ".", cwd=repo)
    assert len(json.loads(done.stdout)["findings"]) == len(FILES)
    (repo / "pyproject.toml").write_text("[tool.tfguard]\nrespect-gitignore = 'no'\n")
    done = tfguard_script("check", ".", cwd=repo)
    assert done.returncode == 2 and "'respect-gitignore' must be true or false" in done.stderr


def test_stdin_is_checked_as_the_named_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tfguard.per-file-ignores]\n"tests/**" = ["TFG102"]\n')
    done = tfguard_script("check", "--stdin-filename", "src/train.py", "-", cwd=tmp_path, stdin=TRAIN)
    assert done.returncode == 1
    assert done.stdout.startswith("src/train.py:4:18: TFG102 ")
    assert done.stderr == "Found 1 finding (1 error) in 1 file.\n"
    done = tfguard_script("check", "--stdin-filename", "tests/test_train.py", "-", cwd=tmp_path, stdin=TRAIN)
    assert (done.returncode, done.stdout) == (0, "")  # the configuration applies to the name given
    done = tfguard_script("check", "-", cwd=tmp_path, stdin=TRAIN)
    assert done.stdout.startswith("-:4:18: TFG102 ")
    assert not list(tmp_path.glob("src"))  # nothing written


@pytest.mark.parametrize("args, message", [
    (["-", "a.py"], "- (read stdin) cannot be combined with other paths"),
    (["--write-baseline", "b.json", "-"], "--write-baseline needs files, not stdin"),
    (["--stdin-filename", "x.py", "a.py"], "--stdin-filename needs - (read stdin) as the path"),
])
def test_stdin_misuse_is_one_line(tmp_path, args, message):
    (tmp_path / "a.py").write_text(TRAIN)
    done = tfguard_script("check", *args, cwd=tmp_path, stdin=TRAIN)
    assert done.returncode == 2 and message in done.stderr and len(done.stderr.splitlines()) == 1
