"""Baselines: record today's findings, report only new ones, count the fixed entries."""

from __future__ import annotations

import json
import os

import pytest
from eco_sources import CLEAN, TRAIN

from tfguard.static.analysis.scopes import scope_names
from tfguard.static.fingerprints import fingerprint
from tfguard.static.parsing import parse_module


def entries(path="b.json"):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)["entries"]


def test_write_then_check_reports_nothing(project, write, run):
    write("src/a.py", TRAIN)
    status, out, err = run("check", "--write-baseline", "b.json", "src")
    assert (status, out) == (0, "")
    assert err == "Wrote 2 baseline entries (2 findings) to b.json.\n"
    assert [(e["path"], e["code"], e["count"]) for e in entries()] == [("src/a.py", "TFG101", 1),
                                                                     ("src/a.py", "TFG102", 1)]
    status, out, err = run("check", "--baseline", "b.json", "src")
    assert (status, out) == (0, "")
    assert err.splitlines()[-1] == "Baseline: 2 findings baselined; 0 baseline entries no longer match (fixed)."


def test_edits_elsewhere_keep_entries_matching_and_new_findings_are_reported(project, write, run):
    write("src/a.py", TRAIN)
    run("check", "--write-baseline", "b.json", "src")
    moved = "# a new header line\n\n" + TRAIN.replace("        y = tf.reduce_sum(x)\n",
                                                      "        y = tf.reduce_sum(x)\n        z = tf.reduce_max(x)\n")
    write("src/a.py", moved)
    status, out, err = run("check", "--baseline", "b.json", "src")
    assert status == 1
    findings = [line for line in out.splitlines() if not line.startswith("  ")]  # not the help: lines
    assert findings == [line for line in findings if "tf.reduce_max()" in line] and len(findings) == 1
    assert out.startswith("src/a.py:15:13: TFG102")
    assert "Baseline: 2 findings baselined; 0 baseline entries" in err


def test_fixed_findings_are_counted_and_identical_lines_are_counted_apart(project, write, run):
    line = "        y = tf.reduce_sum(x)\n"
    twice = TRAIN.replace(line, line + line)
    write("src/a.py", twice)
    write("src/gone.py", TRAIN)
    run("check", "--write-baseline", "b.json", "src")
    assert [(e["path"], e["code"], e["count"]) for e in entries()] == [
        ("src/a.py", "TFG101", 1), ("src/a.py", "TFG102", 2),
        ("src/gone.py", "TFG101", 1), ("src/gone.py", "TFG102", 1)]
    write("src/a.py", TRAIN.replace(line, ""))
    os.remove("src/gone.py")
    status, out, err = run("check", "--baseline", "b.json", "src")
    assert (status, out) == (0, "")
    assert "Baseline: 1 finding baselined; 4 baseline entries no longer match (fixed)." in err
    second_loop = "    for i in range(30):\n" + line + "        sess.run(y)\n"
    write("src/a.py", twice.replace("        save(sess)\n", "") + second_loop)
    status, out, _ = run("check", "--baseline", "b.json", "src")
    findings = [line for line in out.splitlines() if not line.startswith("  ")]
    assert status == 1 and len(findings) == 1 and "TFG102" in out


def test_entries_of_files_outside_the_run_are_not_counted_as_fixed(project, write, run):
    write("src/a.py", TRAIN)
    write("other/b.py", TRAIN)
    run("check", "--write-baseline", "b.json", "src", "other")
    status, _, err = run("check", "--baseline", "b.json", "src")
    assert status == 0
    assert "2 findings baselined; 0 baseline entries no longer match" in err


def test_paths_are_relative_to_the_baseline_file_so_any_working_folder_works(project, write, run):
    write("src/a.py", TRAIN)
    os.mkdir("ci")
    run("check", "--write-baseline", "ci/base.json", "src")
    assert {e["path"] for e in entries("ci/base.json")} == {"../src/a.py"}
    os.chdir("src")
    status, out, err = run("check", "--baseline", "../ci/base.json", "a.py")
    assert (status, out) == (0, "")
    status, out, err = run("check", "--baseline", os.path.abspath("../ci/base.json"), os.path.abspath("a.py"))
    assert (status, out) == (0, "")


def test_configured_baseline_is_relative_to_pyproject(project, write, run):
    write("src/a.py", TRAIN)
    run("check", "--write-baseline", ".tfguard-baseline.json", "src")
    write("pyproject.toml", '[tool.tfguard]\nbaseline = ".tfguard-baseline.json"\n')
    os.chdir("src")
    status, out, err = run("check", ".")
    assert (status, out) == (0, "")
    assert "2 findings baselined" in err
    os.chdir(project)
    status, out, err = run("check", "--write-baseline", "new.json", "src")
    assert status == 0 and "Wrote 2 baseline entries" in err


@pytest.mark.parametrize("content, message", [
    ("{", "b.json: not a tfguard baseline (invalid JSON: "),
    ("[]", "b.json: not a tfguard baseline (write one with --write-baseline)"),
    ('{"tool": "tfguard", "version": 9, "entries": []}', "b.json: baseline version 9 is not supported"),
    ('{"tool": "tfguard", "version": 1, "entries": [{"path": "a.py", "code": "TFG101", "fingerprint": "x", '
     '"count": 0}]}', "b.json: entry 1 is malformed (needs path, code, fingerprint and a positive count)"),
])
def test_a_bad_baseline_is_one_line_and_exit_2(project, write, run, content, message):
    write("a.py", TRAIN)
    write("b.json", content)
    status, out, err = run("check", "--baseline", "b.json", "a.py")
    assert (status, out) == (2, "")
    assert err.startswith(f"tfguard: error: {message}") and err.count("\n") == 1


def test_missing_baseline_and_unwritable_target(project, write, run):
    write("a.py", CLEAN)
    missing = run("check", "--baseline", "nope.json", "a.py")
    assert missing == (2, "", "tfguard: error: baseline file not found: nope.json\n")
    status, _, err = run("check", "--write-baseline", "no/such/dir/b.json", "a.py")
    assert status == 2 and err.startswith("tfguard: error: cannot write baseline no/such/dir/b.json: ")
    status, _, err = run("check", "--baseline", "x.json", "--write-baseline", "y.json", "a.py")
    assert status == 2 and "not allowed with argument" in err


def test_fingerprint_ignores_whitespace_but_not_scope_or_code():
    spaced = fingerprint("TFG102", "f", "y  =  tf.reduce_sum(x)\t")
    assert fingerprint("TFG102", "f", "  y = tf.reduce_sum(x)") == spaced
    assert fingerprint("TFG102", "f", "y = 1") != fingerprint("TFG102", "g", "y = 1")
    assert fingerprint("TFG102", "f", "y = 1") != fingerprint("TFG101", "f", "y = 1")


def test_scope_names_are_the_innermost_dotted_def():
    source = "class T:\n    def fit(self):\n        x = 1\n\n    y = 2\n\ndef f():\n    pass\nz = 3\n"
    assert scope_names(parse_module(source, "a.py")) == {1: "T", 2: "T.fit", 3: "T.fit", 4: "T", 5: "T", 7: "f",
                                                         8: "f"}
    # a decorator's line belongs to the code around the def, as Python's own ast counts it
    decorated = "class T:\n    @property\n    def fit(self):\n        return 1\n"
    assert scope_names(parse_module(decorated, "a.py")) == {1: "T", 2: "T", 3: "T.fit", 4: "T.fit"}


def test_entries_of_a_file_that_no_longer_parses_are_not_counted_as_fixed(project, write, run):
    write("src/a.py", TRAIN)
    run("check", "--write-baseline", "b.json", "src")
    write("src/a.py", TRAIN + "def broken(:\n")
    status, out, err = run("check", "--baseline", "b.json", "src")
    assert status == 1 and "TFG000" in out
    assert "Baseline: 0 findings baselined; 0 baseline entries no longer match (fixed)." in err
