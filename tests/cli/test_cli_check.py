"""``tfguard check``: exit statuses, text and json output, paths, output file, file errors."""

from __future__ import annotations

import json
import os

from cli_helpers import TF, located


def test_clean_project_exits_zero(project, write, run):
    write("pkg/a.py", TF + "x = 1\n")
    status, out, err = run("check")
    assert (status, out) == (0, "")
    assert err == "All checks passed (1 file).\n"


def test_findings_exit_one_with_pyflakes_style_lines_and_summary(project, write, run):
    write("pkg/a.py", TF + "bad()\nmeh()\n")
    write("pkg/b.py", TF + "x = bad()\n")
    status, out, err = run("check", "pkg")
    assert status == 1
    assert out.splitlines() == [
        "pkg/a.py:2:1: TFG901 call to bad()",
        "pkg/a.py:3:1: TFG902 call to meh()",
        "pkg/b.py:2:5: TFG901 call to bad()",
    ]
    assert err == "Found 3 findings (2 errors, 1 warning) in 2 files.\n"


def test_chain_printed_as_indented_via_lines(project, write, run):
    write("a.py", TF + "def helper():\n    bad()\n")
    status, out, _ = run("check", "a.py")
    assert status == 1
    assert out.splitlines() == ["a.py:3:5: TFG901 call to bad()", "  via line 2 in helper()"]


def test_json_document_keys_and_order(project, write, run_json):
    write("b.py", TF + "meh(); bad()\nbad()\n")
    write("a.py", TF + "def helper():\n    bad()\n")
    status, document = run_json(".")
    assert status == 1
    assert list(document) == ["version", "findings", "errors"]
    assert document["version"] == 1
    assert document["errors"] == []
    assert located(document) == [
        ("a.py", 3, "TFG901"),
        ("b.py", 2, "TFG902"),
        ("b.py", 2, "TFG901"),
        ("b.py", 3, "TFG901"),
    ]
    first = document["findings"][0]
    assert list(first) == [
        "path", "line", "column", "end_line", "end_column", "code", "name", "severity", "message", "headline", "help",
        "scope", "chain", "fix", "no_fix",
    ]
    assert first["chain"] == [{"path": "a.py", "line": 2, "function": "helper"}]
    assert (first["column"], first["end_line"], first["end_column"]) == (5, 3, 10)
    assert [f["column"] for f in document["findings"][1:3]] == [1, 8]


def test_paths_stay_as_given(project, write, run_json):
    write("pkg/sub/a.py", TF + "bad()\n")
    assert located(run_json("pkg")[1]) == [("pkg/sub/a.py", 2, "TFG901")]
    assert located(run_json(".")[1]) == [("pkg/sub/a.py", 2, "TFG901")]
    assert located(run_json("./pkg/sub/a.py")[1]) == [("./pkg/sub/a.py", 2, "TFG901")]
    absolute = os.path.join(str(project), "pkg", "sub", "a.py")
    assert located(run_json(absolute)[1]) == [(absolute, 2, "TFG901")]
    os.chdir("pkg")
    assert located(run_json("../pkg/sub")[1]) == [("../pkg/sub/a.py", 2, "TFG901")]


def test_missing_path_is_a_one_line_error(project, write, run):
    write("a.py", TF + "bad()\n")
    status, out, err = run("check", "a.py", "nope/missing.py")  # as ruff: the others are still checked
    assert (status, out) == (2, "a.py:2:1: TFG901 call to bad()\nnope/missing.py: error: cannot read: No such "
                                "file or directory\n")
    assert err == "Found 1 finding (1 error) in 1 file. 1 file could not be checked.\n"
    status, out, err = run("check", "nope/missing.py")
    assert (status, out, err) == (2, "", "tfguard: error: path not found: nope/missing.py\n")


def test_output_file_receives_the_report(project, write, run):
    write("a.py", TF + "bad()\n")
    status, out, err = run("check", "--format", "json", "--output-file", "report.json")
    assert (status, out) == (1, "")
    assert err == "Found 1 finding (1 error) in 1 file.\n"
    with open("report.json", encoding="utf-8") as handle:
        assert [f["code"] for f in json.load(handle)["findings"]] == ["TFG901"]


def test_unwritable_output_file_is_a_one_line_error(project, write, run):
    write("a.py", TF + "bad()\n")
    status, out, err = run("check", "--output-file", "no/such/folder/report.txt")
    assert (status, out) == (2, "")
    assert err.startswith("tfguard: error: cannot write no/such/folder/report.txt: ")
    assert err.count("\n") == 1


def test_exit_zero_keeps_the_report(project, write, run):
    write("a.py", TF + "bad()\n")
    status, out, _ = run("check", "--exit-zero")
    assert (status, out) == (0, "a.py:2:1: TFG901 call to bad()\n")


def test_internal_error_in_one_file_is_reported_and_others_still_checked(project, write, run, run_json):
    write("a.py", TF + "explode()\n")
    write("b.py", TF + "bad()\n")
    status, document = run_json(".")
    assert status == 2
    assert located(document) == [("b.py", 2, "TFG901")]
    assert document["errors"] == [{"path": "a.py", "message": "internal error: RuntimeError: test rule exploded"}]

    status, out, err = run("check", "--exit-zero", ".")
    assert status == 2
    assert out.splitlines() == [
        "b.py:2:1: TFG901 call to bad()",
        "a.py: error: internal error: RuntimeError: test rule exploded",
    ]
    assert err == "Found 1 finding (1 error) in 2 files. 1 file could not be checked.\n"
    assert "Traceback" not in out + err


def test_parse_errors_are_tfg000_at_the_right_line(project, write, run_json):
    write("py2.py", TF + "x = 1\nprint 'hello' +\n")  # broken in Python 2 too
    write("latin.py", data=TF.encode() + b"x = 1\ns = '\xff\xfe'\n")
    write("nul.py", data=TF.encode() + b"x = 1\ny = 2\x00\n")
    write("ok.py", TF + "bad()\n")
    status, document = run_json(".")
    assert status == 1
    assert located(document) == [
        ("latin.py", 3, "TFG000"),
        ("nul.py", 3, "TFG000"),
        ("ok.py", 2, "TFG901"),
        ("py2.py", 3, "TFG000"),
    ]
    assert all(f["name"] == "parse-error" and f["severity"] == "error" for f in document["findings"][::3])
    assert document["findings"][0]["column"] == 6
    assert document["errors"] == []
