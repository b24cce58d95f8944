"""``tfguard check --fix / --unsafe-fixes / --diff / --fix-only``, the fix markers and fixable/unfixable."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from tests.catalog_paths import FIXTURES_DIR, REPO_ROOT
from tfguard.static.config import Settings
from tfguard.static.engine import check_paths

SCHEMA_FILE = REPO_ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"

TRAIN = """\
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 4])
logits = tf.layers.dense(x, 2)
with tf.Session() as sess:
    for step in range(100):
        sess.run(tf.argmax(logits, 1))
        v = tf.Variable(0.0)
        sess.run(v.initializer)
"""


@pytest.fixture
def train(empty_project, write):
    return write("train.py", TRAIN)


def test_text_marks_safe_fixes_and_counts_them(train, run):
    status, out, err = run("check", "--no-cache", "train.py")
    assert status == 1
    assert "train.py:7:18: TFG102 [*] " in out and "train.py:8:13: TFG102 `" in out
    assert err.splitlines()[-1] == "[*] 1 fixable with `--fix` (1 hidden fix can be enabled with `--unsafe-fixes`)."


def test_with_no_safe_fix_the_summary_names_the_hidden_ones(empty_project, write, run):
    write("train.py", TRAIN.replace("        sess.run(tf.argmax(logits, 1))\n", ""))
    err = run("check", "--no-cache", "train.py")[2]
    assert err.splitlines()[-1] == "No fixes available (1 hidden fix can be enabled with `--fix --unsafe-fixes`)."


def test_show_fixes_gives_each_fix_or_why_there_is_none(empty_project, write, run):
    write("train.py", TRAIN.replace("sess.run(tf.argmax(logits, 1))", "sess.run(tf.argmax(logits, step % 2))"))
    out = run("check", "--no-cache", "--show-fixes", "train.py")[1]
    assert "  no fix: built before the loop it would compute another value: `step` changes inside the loop (" in out
    assert "  fix (unsafe): Move `v = tf.Variable()` before the loop" in out
    assert "fix" not in run("check", "--no-cache", "train.py")[1].replace("fixable", "")


def test_diff_prints_the_change_writes_nothing_and_exits_1(train, run):
    status, out, err = run("check", "--no-cache", "--diff", "train.py")
    assert status == 1
    assert "-        sess.run(tf.argmax(logits, 1))\n+        sess.run(argmax_op)\n" in out
    assert "+    argmax_op = tf.argmax(logits, 1)\n" in out
    assert train.read_text() == TRAIN
    assert "Would fix 1 finding in 1 file." in err


def test_fix_applies_the_safe_fix_and_reports_the_rest(train, run):
    status, out, err = run("check", "--no-cache", "--fix", "train.py")
    assert status == 1
    assert "argmax_op = tf.argmax(logits, 1)" in train.read_text()
    assert "tf.Variable" in out and "TFG102 [*]" not in out
    assert "Fixed 1 finding in 1 file." in err
    assert run("check", "--no-cache", "--diff", "train.py")[0] == 0


def test_unsafe_fixes_and_fix_only(train, run):
    status, out, err = run("check", "--no-cache", "--fix-only", "--unsafe-fixes", "train.py")
    assert (status, out) == (0, "")
    assert "Fixed 2 findings in 1 file." in err
    assert "    v = tf.Variable(0.0)\n    for step" in train.read_text()
    status, out, _ = run("check", "--no-cache", "train.py")
    assert out == ""  # the two runs left are not merged: the second runs an initializer (TFG203 stays silent)


def test_unfixable_codes_are_neither_offered_nor_fixed(train, run):
    Path("pyproject.toml").write_text('[tool.tfguard]\nunfixable = ["TFG102"]\n')
    status, out, err = run("check", "--no-cache", "--fix", "--unsafe-fixes", "train.py")
    assert train.read_text() == TRAIN and "[*]" not in out and "Fixed 0 findings" in err
    Path("pyproject.toml").write_text('[tool.tfguard]\nfixable = ["TFG1"]\n')
    assert run("check", "--no-cache", "--diff", "train.py")[0] == 1


def test_an_unknown_fixable_code_is_a_config_error(train, run):
    Path("pyproject.toml").write_text('[tool.tfguard]\nfixable = ["XYZ9"]\n')
    status, _, err = run("check", "train.py")
    assert status == 2 and "fixable" in err


def test_json_and_sarif_carry_the_fix(train, run):
    document = json.loads(run("check", "--no-cache", "--format", "json", "train.py")[1])
    fix = document["findings"][0]["fix"]
    assert fix["applicability"] == "safe" and fix["message"].startswith("Build `tf.argmax(logits, 1)` once")
    assert {"line": 7, "column": 18, "end_line": 7, "end_column": 38, "content": "argmax_op"} in fix["edits"]
    assert document["findings"][1]["fix"]["applicability"] == "unsafe"
    assert all(f["no_fix"] is None for f in document["findings"] if f["fix"] is not None)
    sarif = json.loads(run("check", "--no-cache", "--format", "sarif", "train.py")[1])
    jsonschema.Draft4Validator(json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))).validate(sarif)
    change = sarif["runs"][0]["results"][0]["fixes"][0]["artifactChanges"][0]
    assert {"deletedRegion": {"startLine": 7, "startColumn": 18, "endLine": 7, "endColumn": 38},
            "insertedContent": {"text": "argmax_op"}} in change["replacements"]


def test_rule_page_says_whether_there_is_a_fix(run):
    assert run("rule", "TFG102")[1].rstrip().endswith("Fix: safe (`tfguard check --fix` builds the op once, "
                                                       "before the loop)")
    assert run("rule", "TFG101")[1].rstrip().splitlines()[-1].startswith(
        "Fix: safe (`tfguard check --fix` builds the Saver once")
    assert run("rule", "TFG202")[1].rstrip().splitlines()[-1].startswith("Fix: unsafe (")
    assert run("rule", "TFG104")[1].rstrip().endswith("Fix: none")


@pytest.mark.slow
def test_fixing_copies_of_the_fixtures_compiles_and_reports_nothing_new(tmp_path, run, monkeypatch):
    copies = tmp_path / "fixtures"
    shutil.copytree(FIXTURES_DIR, copies)
    # Broken in any Python (TFG000), or read as Python 2 (no fix: the text analysed is a conversion): untouched.
    unparsable = {path.name: path.read_bytes() for path in copies.glob("python2_*.py")}
    monkeypatch.chdir(tmp_path)
    settings = Settings(select=("ALL",), root=str(tmp_path))
    before = check_paths(["fixtures"], settings)
    status, _, err = run("check", "--isolated", "--no-cache", "--select", "ALL", "--fix", "--unsafe-fixes",
                         "fixtures")
    after = check_paths(["fixtures"], settings)
    for path in copies.glob("*.py"):
        if path.name in unparsable:
            assert path.read_bytes() == unparsable[path.name]
        else:
            compile(path.read_bytes(), str(path), "exec")
    fixed = int(err.split("Fixed ")[1].split()[0])
    assert fixed > 0 and len(after.findings) == len(before.findings) - fixed
    old = {(f.path, f.code) for f in before.findings}
    assert {(f.path, f.code) for f in after.findings} <= old
    assert run("check", "--isolated", "--no-cache", "--select", "ALL", "--diff", "--unsafe-fixes", "fixtures")[0] == 0


def test_two_callers_of_one_input_fn_get_one_prefetch(empty_project, write, run):
    path = write("train.py", """
        import tensorflow as tf


        def input_fn():
            dataset = tf.data.TFRecordDataset(["a.tfrecord"]).batch(32)
            return dataset


        def train(estimator):
            estimator.train(input_fn=input_fn, max_steps=100)
            estimator.evaluate(input_fn=lambda: input_fn())
        """)
    status, _, err = run("check", "--no-cache", "--select", "TFG205", "--fix", "train.py")
    assert status == 0 and "Fixed 2 findings" in err
    assert path.read_text().count(".prefetch(tf.data.experimental.AUTOTUNE)") == 1
    assert "    return dataset.prefetch(tf.data.experimental.AUTOTUNE)\n" in path.read_text()
