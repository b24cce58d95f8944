"""The output formats as pure functions of a CheckResult."""

from __future__ import annotations

import json
from xml.etree import ElementTree

import pytest

from tfguard.static.finding import ChainLink, CheckResult, FileError, Finding
from tfguard.static.formats import REPORTERS, text


def finding(path, line, column, code, severity="error", chain=()):
    return Finding(path, line, column, line, column + 3, code, "some-name", severity, f"message {code}", chain=chain)


RESULT = CheckResult(
    findings=[
        finding("b.py", 1, 1, "TFG102", "warning"),
        finding("a.py", 9, 1, "TFG101"),
        finding("b.py", 1, 1, "TFG101", "info"),
        finding("a.py", 2, 5, "TFG103", chain=(ChainLink("a.py", 20, "build"), ChainLink("lib/c.py", 7, "make_op"))),
    ],
    errors=[FileError("z.py", "cannot read: Permission denied"), FileError("c.py", "internal error: X: y")],
    files_checked=6,
)


def test_registry_lists_every_format():
    assert list(REPORTERS) == ["text", "full", "json", "table", "sarif", "github", "concise", "grouped", "pylint",
                              "junit", "gitlab"]


def test_text_report():
    assert REPORTERS["text"](RESULT).splitlines() == [
        "a.py:2:5: TFG103 message TFG103",
        "  via line 20 in build()",
        "  via lib/c.py:7 in make_op()",
        "a.py:9:1: TFG101 message TFG101",
        "b.py:1:1: TFG101 message TFG101",
        "b.py:1:1: TFG102 message TFG102",
        "c.py: error: internal error: X: y",
        "z.py: error: cannot read: Permission denied",
    ]


def test_json_report_sorted():
    document = json.loads(REPORTERS["json"](RESULT))
    assert [(f["path"], f["line"], f["code"]) for f in document["findings"]] == [
        ("a.py", 2, "TFG103"), ("a.py", 9, "TFG101"), ("b.py", 1, "TFG101"), ("b.py", 1, "TFG102"),
    ]
    assert document["findings"][0]["chain"][1] == {"path": "lib/c.py", "line": 7, "function": "make_op"}
    assert document["errors"] == [
        {"path": "c.py", "message": "internal error: X: y"},
        {"path": "z.py", "message": "cannot read: Permission denied"},
    ]


def test_empty_reports():
    assert REPORTERS["text"](CheckResult()) == ""
    assert json.loads(REPORTERS["json"](CheckResult())) == {"version": 1, "findings": [], "errors": []}


@pytest.mark.parametrize(
    "result, line",
    [
        (CheckResult(files_checked=5), "All checks passed (5 files)."),
        (CheckResult(files_checked=1), "All checks passed (1 file)."),
        (RESULT, "Found 4 findings (2 errors, 1 warning, 1 info) in 6 files. 2 files could not be checked."),
        (CheckResult(findings=RESULT.findings[:1], files_checked=1), "Found 1 finding (1 warning) in 1 file."),
        (
            CheckResult(errors=RESULT.errors[:1], files_checked=3),
            "No findings in 3 files. 1 file could not be checked.",
        ),
    ],
)
def test_summary(result, line):
    assert text.summary(result) == line


def test_ci_formats_report_the_files_that_could_not_be_checked():
    assert REPORTERS["concise"](RESULT).splitlines()[-2:] == ["c.py: error: internal error: X: y",
                                                              "z.py: error: cannot read: Permission denied"]
    assert REPORTERS["pylint"](RESULT).splitlines()[-1] == "z.py:1: [error(file-error)] cannot read: Permission denied"
    gitlab = json.loads(REPORTERS["gitlab"](RESULT))
    assert [(i["check_name"], i["severity"], i["location"]["path"]) for i in gitlab[-2:]] == [
        ("file-error", "critical", "c.py"), ("file-error", "critical", "z.py")]
    expected = {"error": "major", "warning": "minor", "info": "info"}
    assert [i["severity"] for i in gitlab[:-2]] == [expected[f.severity]
                                                    for f in sorted(RESULT.findings, key=Finding.sort_key)]
    junit = ElementTree.fromstring(REPORTERS["junit"](RESULT).split("\n", 1)[1])
    assert junit.get("errors") == "2" and junit.get("failures") == str(len(RESULT.findings))
    assert [case.get("name") for case in junit.iter("testcase") if case.find("error") is not None] == [
        "tfguard.check", "tfguard.check"]
