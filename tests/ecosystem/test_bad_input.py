"""The bad-input matrix: odd encodings, deep code, odd files and edits that keep size and time.

(Ctrl-C is tests/cli/test_interrupt.py; ``python -m`` with shadowing modules is
tests/cli/test_cli_subprocess.py.)  Every case ends in a report, one-line
notes or errors, and the documented exit status, never a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.console import python_m_tfguard

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = REPO_ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"

#: A session loop that builds an op on every step: one TFG102 on line 4.
LOOP = "import tensorflow as tf\nsess = tf.Session()\nfor step in range(30):\n    sess.run(tf.constant(step))\n"


def tfguard(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """Run ``python -m tfguard ARGS`` in a child process with extra environment variables (output as bytes)."""
    return python_m_tfguard(*args, cwd=cwd, env=env, timeout=120, text=False)


# -- encodings ---------------------------------------------------------------------------------------------------

UNDECODABLE_NAME = os.fsdecode(b"\xff_train.py")  # not valid UTF-8: Python reads it as "\udcff_train.py"


@pytest.fixture
def odd_names(tmp_path: Path) -> Path:
    """A file whose name is not UTF-8, one with an accent, and a TFG000 whose message quotes a "…"."""
    if sys.platform == "darwin":  # macOS file systems refuse names that are not UTF-8
        pytest.skip("file names must be UTF-8 here")
    (tmp_path / "pyproject.toml").write_text("[tool.tfguard]\n")
    (tmp_path / UNDECODABLE_NAME).write_text(LOOP)
    (tmp_path / "café.py").write_text(LOOP, encoding="utf-8")
    (tmp_path / "ellipsis.py").write_text("import tensorflow as tf\nx = 1 …\n", encoding="utf-8")
    return tmp_path


ASCII_STREAMS = (
    {"PYTHONIOENCODING": "ascii"},
    {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "PYTHONIOENCODING": ""},
)


@pytest.mark.parametrize("env", ASCII_STREAMS, ids=["PYTHONIOENCODING=ascii", "LC_ALL=C"])
@pytest.mark.parametrize("output", ["text", "json", "table", "github", "sarif"])
def test_output_never_fails_on_encoding(odd_names, env, output):
    done = tfguard("check", "--format", output, ".", cwd=odd_names, **env)
    assert done.returncode == 1, done.stderr.decode("ascii", "replace")
    assert b"Traceback" not in done.stderr and done.stderr.endswith(b"Found 3 findings (3 errors) in 3 files.\n")
    done.stdout.decode("ascii")  # what the stream cannot carry is escaped
    if output == "text":
        assert b"\\udcff_train.py:4:14: TFG102 " in done.stdout
        # "café.py" as the file system encoding read it: UTF-8, or ASCII under LC_ALL=C
        assert b"caf\\xe9.py:4:14: TFG102 " in done.stdout or b"caf\\udcc3\\udca9.py:4:14: TFG102 " in done.stdout
        assert b"ellipsis.py:2:7: TFG000 cannot parse this file: invalid character '\\u2026' (U+2026)\n" in done.stdout


@pytest.mark.parametrize("env", ASCII_STREAMS, ids=["PYTHONIOENCODING=ascii", "LC_ALL=C"])
def test_rule_list_and_pages_print_on_an_ascii_terminal(tmp_path, env):
    for args in (["rules"], ["rule", "TFG107"], ["rule", "TFG001"]):
        done = tfguard(*args, cwd=tmp_path, **env)
        assert (done.returncode, done.stderr) == (0, b""), (args, done.stderr)
        done.stdout.decode("ascii")
        if args == ["rules"]:
            assert b"`merge_all`\\u2026)" in done.stdout  # the "…" of TFG107's summary, escaped


def test_sarif_percent_encodes_the_bytes_of_a_file_name(odd_names):
    done = tfguard("check", "--format", "sarif", "--output-file", "report.sarif", ".", cwd=odd_names)
    assert done.returncode == 1, done.stderr
    document = json.loads((odd_names / "report.sarif").read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))).validate(document)
    uris = sorted(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                  for result in document["runs"][0]["results"])
    assert uris == ["%FF_train.py", "caf%C3%A9.py", "ellipsis.py"]


# -- deep but valid code -----------------------------------------------------------------------------------------

def _elif_chain(branches: int) -> str:
    lines = ["import tensorflow as tf", "sess = tf.Session()", "def pick(x):", "    if x == 0:", "        return 0"]
    for index in range(1, branches):
        lines += [f"    elif x == {index}:", f"        return {index}"]
    lines += ["    else:", "        for step in range(30):", "            sess.run(tf.constant(x))"]
    return "\n".join(lines) + "\n"


def _plus_chain(terms: int) -> str:
    total = " + ".join(f"v{index}" for index in range(terms))
    return f"import tensorflow as tf\nsess = tf.Session()\nfor step in range(30):\n    total = {total}\n" \
           "    sess.run(tf.constant(total))\n"


DEEP = {"elif340.py": _elif_chain(340), "elif1500.py": _elif_chain(1500), "plus500.py": _plus_chain(500),
        "plus1000.py": _plus_chain(1000)}


def test_deep_code_that_cpython_compiles_is_checked(empty_project, run):
    for name, source in DEEP.items():
        compile(source, name, "exec")  # CPython accepts every one of them
        Path(name).write_text(source)
    status, out, err = run("check", "--format", "json", "--no-cache", ".")
    found = sorted((f["path"], f["code"]) for f in json.loads(out)["findings"])
    assert found == sorted((name, "TFG102") for name in DEEP), err


def test_code_that_cpython_rejects_is_still_tfg000(empty_project, run):
    nested = "import tensorflow as tf\nx = " + "(" * 300 + "1" + ")" * 300 + "\n"
    with pytest.raises(SyntaxError):
        compile(nested, "nested.py", "exec")
    Path("nested.py").write_text(nested)
    status, out, err = run("check", "--format", "json", "--no-cache", ".")
    assert status == 1
    assert [(f["path"], f["code"]) for f in json.loads(out)["findings"]] == [("nested.py", "TFG000")]


# -- odd files: walked, skipped with a warning; named, an error (status 2) ------------------------------------------

@pytest.fixture
def odd_files(tmp_path: Path) -> Path:
    """A project whose pkg/ holds a FIFO, a broken and a looping symbolic link, all named ``*.py``, and a good file."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    (tmp_path / "pyproject.toml").write_text("[tool.tfguard]\n")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "train.py").write_text(LOOP)
    os.mkfifo(pkg / "fifo.py")
    (pkg / "dangling.py").symlink_to("missing.py")
    (pkg / "loop.py").symlink_to("loop.py")
    return tmp_path


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    done = tfguard(*args, cwd=cwd)
    assert b"Traceback" not in done.stderr
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def test_walked_odd_files_are_skipped_with_a_warning(odd_files):
    done = _run("check", ".", cwd=odd_files)
    assert done.returncode == 1 and done.stdout.startswith("pkg/train.py:4:14: TFG102 ")
    assert done.stderr.splitlines() == [
        "tfguard: warning: skipped pkg/dangling.py: broken symbolic link (No such file or directory)",
        "tfguard: warning: skipped pkg/fifo.py: not a regular file (a FIFO)",
        "tfguard: warning: skipped pkg/loop.py: broken symbolic link (Too many levels of symbolic links)",
        "Found 1 finding (1 error) in 1 file.",
    ]


@pytest.mark.parametrize("name, error", [
    ("fifo.py", "not a regular file (a FIFO)"),
    ("dangling.py", "cannot read: No such file or directory"),
    ("loop.py", "cannot read: Too many levels of symbolic links"),
])
def test_odd_files_named_on_the_command_line_are_errors(odd_files, name, error):
    done = _run("check", "pkg/train.py", f"pkg/{name}", cwd=odd_files)
    assert done.returncode == 2
    assert done.stdout.splitlines()[-1] == f"pkg/{name}: error: {error}"
    assert done.stderr == "Found 1 finding (1 error) in 2 files. 1 file could not be checked.\n"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads files without permission")
def test_unreadable_files_and_folders(odd_files):
    (odd_files / "pkg" / "secret.py").write_text(LOOP)
    (odd_files / "pkg" / "secret.py").chmod(0)
    (odd_files / "pkg" / "closed").mkdir()
    (odd_files / "pkg" / "closed").chmod(0)
    try:
        walked = _run("check", "pkg", cwd=odd_files)
        named = _run("check", "pkg/secret.py", cwd=odd_files)
    finally:
        (odd_files / "pkg" / "closed").chmod(0o755)
    assert walked.returncode == 1
    assert "tfguard: warning: skipped pkg/closed: cannot read folder: Permission denied\n" in walked.stderr
    assert "tfguard: warning: skipped pkg/secret.py: cannot read: Permission denied\n" in walked.stderr
    assert named.returncode == 2 and named.stdout == "pkg/secret.py: error: cannot read: Permission denied\n"


def test_unreadable_files_and_folders_met_while_walking(tmp_path, monkeypatch):
    """The same as above where the tests run as root (who reads everything): the walk is told access is denied."""
    from tfguard.static import discovery

    (tmp_path / "pkg" / "closed").mkdir(parents=True)
    (tmp_path / "pkg" / "secret.py").write_text(LOOP)
    (tmp_path / "pkg" / "open.py").write_text(LOOP)
    real_scandir, real_access = os.scandir, os.access

    def scandir(path):
        if str(path).endswith("closed"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(discovery.os, "scandir", scandir)
    monkeypatch.setattr(discovery.os, "access", lambda path, mode: not str(path).endswith("secret.py")
                        and real_access(path, mode))
    skipped = []
    files = list(discovery.iter_python_files([str(tmp_path / "pkg")], on_skip=lambda *item: skipped.append(item)))
    assert files == [str(tmp_path / "pkg" / "open.py")]
    assert skipped == [(str(tmp_path / "pkg" / "secret.py"), "cannot read: Permission denied"),
                       (str(tmp_path / "pkg" / "closed"), "cannot read folder: Permission denied")]


def test_a_path_that_does_not_exist_is_still_not_found(tmp_path):
    done = _run("check", "nothing.py", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, "tfguard: error: path not found: nothing.py\n")


# -- one run, one spelling: -j 1 and -j 2 name a followed module alike ---------------------------------------------

HELPER = "import tensorflow as tf\n\n\ndef probe(x):\n    return tf.reduce_sum(x)\n"
TRAIN = ("import tensorflow as tf\nfrom pkg.a_helpers import probe\nx = tf.zeros([2])\nsess = tf.Session()\n"
         "for step in range(30):\n    sess.run(probe(x))\n")


def test_followed_modules_are_named_as_the_run_names_them(empty_project, run):
    from tfguard.static.analysis.project import Project

    root = str(empty_project)
    project = Project(root, [root, "."])
    assert project.display_path(os.path.join(root, "pkg", "a.py")) == os.path.join(root, "pkg", "a.py")
    assert Project(root, ["."]).display_path(os.path.join(root, "pkg", "a.py")) == os.path.join("pkg", "a.py")

    Path("pkg").mkdir()
    Path("pkg/__init__.py").write_text("")
    Path("pkg/a_helpers.py").write_text(HELPER)
    for index in range(8):
        Path(f"pkg/b_train{index}.py").write_text(TRAIN)
    reports = [run("check", "--no-cache", "-j", jobs, "--format", "json", root)[1] for jobs in ("1", "2")]
    chains = {link["path"] for finding in json.loads(reports[0])["findings"] for link in finding["chain"]}
    assert chains == {os.path.join(root, "pkg", "a_helpers.py")}
    assert reports[0] == reports[1]
