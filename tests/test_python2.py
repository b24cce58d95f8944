"""Python 2 sources: converted line for line and checked, or TFG000 when that is not possible."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.console import python_m_tfguard
from tfguard.static.config import ConfigError, Settings, find_config_file, read_config_file
from tfguard.static.engine import check_paths, check_source
from tfguard.static.python2 import convert, expand_leading_tabs


def load_settings(start: str) -> Settings:
    """The settings of the closest configuration file above ``start`` (the defaults without one)."""
    found, nearest = find_config_file(start)
    if found is None:
        return Settings(root=os.path.dirname(nearest) if nearest else os.getcwd())
    return read_config_file(found)


REPO_ROOT = Path(__file__).resolve().parent.parent

PY2_LOOP = (
    "import tensorflow as tf\n"
    "x = tf.placeholder(tf.float32)\n"
    "with tf.Session() as sess:\n"
    "\tfor step in xrange(100):\n"
    "\t\ty = tf.square(x)\n"
    "\t\tprint 'value', sess.run(y, {x: 2.0})\n"
)


def codes(findings):
    """(line, column, code) of each finding."""
    return [(f.line, f.column, f.code) for f in findings]


def test_tabs_expand_to_the_next_multiple_of_eight():
    text, shifts = expand_leading_tabs("if x:\n  \tpass\n\tpass\n")
    assert text == "if x:\n        pass\n        pass\n"
    assert shifts == {2: (8, 3), 3: (8, 1)}


def test_python2_loop_is_checked_on_its_original_lines_and_columns():
    findings = check_source(PY2_LOOP, "old.py", Settings(select=("ALL",)))
    # ``y = tf.square(x)`` starts at column 3 of the original (two tabs), 17 once expanded.
    assert codes(findings) == [(5, 7, "TFG102")]


def test_py2_off_restores_the_parse_error():
    findings = check_source(PY2_LOOP, "old.py", Settings(select=("ALL",), python2=False))
    assert [f.code for f in findings] == ["TFG000"]


def test_conversion_that_would_move_lines_is_refused():
    # ``except E, (a, b)`` is rewritten with an extra statement: the lines would move.
    source = "import tensorflow as tf\ntry:\n    pass\nexcept ValueError, (a, b):\n    print a\n"
    assert convert(source) is None
    assert [f.code for f in check_source(source, "old.py")] == ["TFG000"]


def test_broken_in_any_python_keeps_the_python3_error():
    findings = check_source("import tensorflow as tf\nprint 'x' +\n", "old.py")
    assert [(f.line, f.code) for f in findings] == [(2, "TFG000")]
    assert "cannot parse this file" in findings[0].message


def test_noqa_comments_of_a_python2_file_apply():
    source = PY2_LOOP.replace("y = tf.square(x)", "y = tf.square(x)  # noqa: TFG102")
    assert check_source(source, "old.py") == []


def test_summary_json_note_cache_and_config(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.tfguard]\n")
    (tmp_path / "old.py").write_text(PY2_LOOP)
    (tmp_path / "new.py").write_text("import tensorflow as tf\n")
    from tfguard.static.cache import ResultCache
    from tfguard.static.formats.json import to_document
    from tfguard.static.formats.text import summary

    settings = load_settings(start=str(tmp_path))
    for _ in range(2):  # cold, then every file from the cache
        cache = ResultCache(str(tmp_path / ".cache"), settings)
        result = check_paths([str(tmp_path)], settings, cache=cache)
        assert result.python2_files == [str(tmp_path / "old.py")]
        assert summary(result) == "Found 1 finding (1 error) in 2 files, 1 of them read as Python 2."
        assert to_document(result)["notes"] == [
            {"path": str(tmp_path / "old.py"), "python2": True,
             "message": "not Python 3: checked as Python 2, converted line for line"}
        ]
    (tmp_path / "pyproject.toml").write_text('[tool.tfguard]\npy2 = "off"\n')
    result = check_paths([str(tmp_path)], load_settings(start=str(tmp_path)))
    assert ([f.code for f in result.findings], result.python2_files) == (["TFG000"], [])
    (tmp_path / "pyproject.toml").write_text('[tool.tfguard]\npy2 = "maybe"\n')
    with pytest.raises(ConfigError, match="'py2' must be \"on\" or \"off\""):
        load_settings(start=str(tmp_path))


def test_python2_helper_module_is_followed(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "helpers.py").write_text(
        "import tensorflow as tf\ndef log(x):\n\tprint 'logging'\n\treturn tf.summary.scalar('x', x)\n"
    )
    (tmp_path / "train.py").write_text(
        "import tensorflow as tf\nfrom helpers import log\nloss = tf.constant(1.0)\n"
        "with tf.Session() as sess:\n    for step in range(100):\n        sess.run(loss)\n        log(loss)\n"
    )
    result = check_paths([str(tmp_path / "train.py")])
    assert [(f.line, f.code, [link.line for link in f.chain]) for f in result.findings] == [(7, "TFG107", [4])]


def _run_tfguard(args, cwd, home):
    return python_m_tfguard(*args, cwd=cwd, env={"XDG_CACHE_HOME": None, "HOME": str(home)}, timeout=120)


@pytest.mark.slow
def test_read_only_home_and_parallel_workers(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.tfguard]\n")
    for number in range(6):
        (project / f"old{number}.py").write_text(PY2_LOOP)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")  # a home below a file: fissix cannot create its grammar cache there
    unwritable = _run_tfguard(["check", "--no-cache", "-j", "1", "."], project, str(blocker / "home"))
    assert (unwritable.returncode, unwritable.stderr.splitlines()[-1:]) == (
        1, ["Found 6 findings (6 errors) in 6 files, 6 of them read as Python 2."]), unwritable.stderr
    fresh_home = tmp_path / "home"
    fresh_home.mkdir()  # an empty cache: two workers build and store the grammar at once
    parallel = _run_tfguard(["check", "--no-cache", "-j", "2", "--format", "json", "."], project, str(fresh_home))
    assert parallel.returncode == 1, parallel.stderr
    document = json.loads(parallel.stdout)
    assert [(f["path"], f["line"], f["code"]) for f in document["findings"]] == [
        (f"old{number}.py", 5, "TFG102") for number in range(6)
    ]
    assert len(document["notes"]) == 6
