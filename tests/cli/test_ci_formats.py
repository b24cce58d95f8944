"""The CI output formats: ``concise``, ``grouped``, ``pylint``, ``junit`` (read back with an XML parser) and
``gitlab`` (Code Quality JSON, its fields and fingerprints checked)."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest
from cli_helpers import TF

SOURCE = TF + "bad()\nmeh()\nbad()\n"


@pytest.fixture
def two_files(project, write):
    write("a.py", SOURCE)
    write("pkg/b.py", TF + "meh()\n")
    return project


def report(run, fmt: str, *paths: str) -> str:
    status, out, err = run("check", "--output-format", fmt, *(paths or (".",)))
    assert status == 1 and err.startswith("Found "), err
    return out


def test_concise_is_one_line_per_finding(two_files, run):
    assert report(run, "concise").splitlines() == [
        "a.py:2:1: TFG901 call to bad()",
        "a.py:3:1: TFG902 call to meh()",
        "a.py:4:1: TFG901 call to bad()",
        "pkg/b.py:2:1: TFG902 call to meh()",
    ]


def test_grouped_names_each_file_once(two_files, run):
    assert report(run, "grouped") == (
        "a.py:\n  2:1 TFG901 call to bad()\n  3:1 TFG902 call to meh()\n  4:1 TFG901 call to bad()\n\n"
        "pkg/b.py:\n  2:1 TFG902 call to meh()\n\n"
    )


def test_pylint_is_pylints_parseable_layout(two_files, run):
    assert report(run, "pylint", "pkg").splitlines() == ["pkg/b.py:2: [TFG902(test-meh-call)] call to meh()"]


def test_junit_parses_as_junit_xml(two_files, write, run):
    write("broken.py", data=b"import tensorflow as tf\n\xff\xfe = 1\n")
    status, out, _ = run("check", "--output-format", "junit", ".")
    root = ElementTree.fromstring(out.split("\n", 1)[1])  # after the XML declaration
    assert out.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    assert root.tag == "testsuites" and root.get("name") == "tfguard"
    suites = {suite.get("name"): suite for suite in root.findall("testsuite")}
    assert set(suites) == {"a.py", "pkg/b.py", "broken.py"}
    cases = suites["a.py"].findall("testcase")
    assert [(case.get("name"), case.get("line")) for case in cases] == [
        ("tfguard.TFG901", "2"), ("tfguard.TFG902", "3"), ("tfguard.TFG901", "4")]
    assert suites["a.py"].get("failures") == suites["a.py"].get("tests") == "3"
    failure = cases[0].find("failure")
    assert failure is not None and failure.get("message") == "call to bad()"
    assert failure.text.startswith("line 2, col 1, TFG901")
    broken = [case.find("failure") for case in suites["broken.py"].findall("testcase")]
    assert broken and all(f is not None for f in broken)  # an undecodable file: a TFG000 finding
    assert int(root.get("failures")) == sum(int(suite.get("failures")) for suite in suites.values())


def test_junit_without_findings_is_one_passing_case(empty_project, run):
    Path("a.py").write_text(TF + "x = 1\n")
    status, out, _ = run("check", "--output-format", "junit", "a.py")
    root = ElementTree.fromstring(out.split("\n", 1)[1])
    assert status == 0 and root.get("failures") == "0"
    cases = root.findall("testsuite/testcase")
    assert len(cases) == 1 and not list(cases[0])


def test_gitlab_code_quality_fields_and_fingerprints(two_files, write, run, monkeypatch):
    issues = json.loads(report(run, "gitlab"))
    assert [(i["check_name"], i["location"]["path"], i["location"]["lines"]["begin"]) for i in issues] == [
        ("TFG901", "a.py", 2), ("TFG902", "a.py", 3), ("TFG901", "a.py", 4), ("TFG902", "pkg/b.py", 2)]
    for issue in issues:
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["severity"] in ("info", "minor", "major", "critical", "blocker")
        assert isinstance(issue["description"], str) and issue["description"]
        assert issue["location"]["lines"]["end"] >= issue["location"]["lines"]["begin"]
    assert len({issue["fingerprint"] for issue in issues}) == len(issues)  # the two bad() calls differ too
    write("a.py", TF + "\n\n# a comment moves everything down\n" + SOURCE[len(TF):])
    moved = json.loads(report(run, "gitlab"))
    assert [i["fingerprint"] for i in moved] == [i["fingerprint"] for i in issues]  # stable across line shifts
    assert [i["location"]["lines"]["begin"] for i in moved][:3] == [5, 6, 7]
    monkeypatch.setenv("CI_PROJECT_DIR", str(Path.cwd().parent))
    assert json.loads(report(run, "gitlab", "pkg"))[0]["location"]["path"] == f"{Path.cwd().name}/pkg/b.py"


def test_a_bad_format_is_one_line(empty_project, run):
    status, out, err = run("check", "--output-format", "xml", ".")
    assert (status, out) == (2, "") and len(err.splitlines()) == 1
    assert "invalid choice: 'xml'" in err and "junit" in err and "gitlab" in err
