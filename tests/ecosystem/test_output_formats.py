"""``--format table|github|sarif`` and ``--statistics`` on real findings."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from eco_sources import CLEAN, TRAIN

from tfguard.static.finding import ChainLink, CheckResult, FileError, Finding
from tfguard.static.formats import github, sarif
from tfguard.static.registry import all_rules

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "data" / "sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def sarif_validator():
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema)


def finding(**changes) -> Finding:
    values = dict(path="src/a.py", line=3, column=5, end_line=3, end_column=9, code="TFG101",
                  name="saver-in-session-loop", severity="error", headline="m")
    values.update(changes)
    return Finding(**values)


def test_table_groups_by_file_and_counts_per_code(project, write, run):
    write("src/a.py", TRAIN)
    write("src/b.py", TRAIN)
    write("src/clean.py", CLEAN)
    status, out, _ = run("check", "--format", "table", "src")
    assert status == 1
    lines = out.splitlines()
    assert lines.index("src/a.py") < lines.index("src/b.py")
    assert "src/clean.py" not in out
    assert sum(line.startswith("12:13") and "TFG102" in line for line in lines) == 2
    assert sum("via line 7 in save()" in line for line in lines[:lines.index("src/b.py")]) == 1
    footer = lines[lines.index("src/b.py"):]
    counts = [line.split() for line in footer if line.split()[-1:] in (["saver-in-session-loop"],
                                                                       ["op-in-session-loop"])]
    assert counts == [["2", "TFG101", "saver-in-session-loop"], ["2", "TFG102", "op-in-session-loop"]]


def test_table_of_a_clean_run_is_empty(project, write, run):
    write("clean.py", CLEAN)
    assert run("check", "--format", "table", "clean.py")[:2] == (0, "")


def test_statistics_counts_per_code_only(project, write, run):
    write("a.py", TRAIN)
    write("b.py", TRAIN.replace("        save(sess)\n", ""))
    status, out, err = run("check", "--statistics", "a.py", "b.py")
    assert status == 1
    assert [line.split() for line in out.splitlines()] == [
        ["2", "TFG102", "[*]", "op-in-session-loop"],
        ["1", "TFG101", "[", "]", "saver-in-session-loop"]]  # built in a helper: no fix
    assert "Found 3 findings" in err
    status, out, _ = run("check", "--statistics", "--format", "json", "a.py", "b.py")
    assert json.loads(out) == [{"code": "TFG102", "name": "op-in-session-loop", "count": 2, "fixable": True},
                               {"code": "TFG101", "name": "saver-in-session-loop", "count": 1, "fixable": False}]


def test_statistics_mark_only_the_codes_fix_fixes(project, write, run):
    catalog = Path(__file__).resolve().parents[2] / "rules"
    write("b.py", next(catalog.glob("TFG202-*")).joinpath("bad.py").read_text(encoding="utf-8"))
    status, out, _ = run("check", "--statistics", "--select", "TFG202", "b.py")
    assert status == 1 and out.split() == ["1", "TFG202", "[", "]", "checkpoint-every-step"]  # unsafe fix only
    status, out, _ = run("check", "--statistics", "--unsafe-fixes", "--select", "TFG202", "b.py")
    assert out.split() == ["1", "TFG202", "[*]", "checkpoint-every-step"]


def test_github_workflow_commands(project, write, run):
    write("src/a.py", TRAIN)
    status, out, _ = run("check", "--format", "github", "src")
    assert status == 1
    lines = out.splitlines()
    assert lines[0].startswith("::error file=src/a.py,line=12,col=13,endLine=12,endColumn=29,"
                               "title=tfguard (TFG102)::`tf.reduce_sum()` adds new ops")
    assert lines[1].startswith("::error file=src/a.py,line=13,col=9,")
    assert lines[1].endswith("%0Avia src/a.py:7 in save()")
    assert len(lines) == 2


def test_github_escapes_data_and_properties():
    result = CheckResult(findings=[finding(path="a,b:c%.py", severity="info", headline="50% done\r\nnext")],
                         errors=[FileError("x,y.py", "cannot read: denied")])
    assert github.render(result).splitlines() == [
        "::notice file=a%2Cb%3Ac%25.py,line=3,col=5,endLine=3,endColumn=9,title=tfguard (TFG101)::50%25 done%0D%0Anext",
        "::error file=x%2Cy.py,title=tfguard::cannot read: denied",
    ]
    assert github.render(CheckResult(findings=[finding(severity="warning")])).startswith("::warning ")


def test_sarif_is_valid_and_complete(project, write, run, sarif_validator):
    write("src/a.py", TRAIN)
    write("src/broken.py", "import tensorflow as tf\nx = (\n")
    status, out, _ = run("check", "--format", "sarif", "--extend-select", "TFG001", "src")
    assert status == 1
    log = json.loads(out)
    sarif_validator.validate(log)
    run_ = log["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == ["TFG000", *all_rules()]
    by_id = {rule["id"]: rule for rule in rules}
    saver = by_id["TFG101"]
    assert saver["name"] == "saver-in-session-loop"
    assert saver["shortDescription"]["text"] == all_rules()["TFG101"].summary.replace("`", "")
    assert saver["defaultConfiguration"] == {"level": "error", "enabled": True}
    assert by_id["TFG001"]["defaultConfiguration"] == {"level": "warning", "enabled": False}
    assert "tfguard rule TFG101" in saver["help"]["text"]
    results = run_["results"]
    assert [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
            for r in results] == [("TFG102", "error", 12), ("TFG101", "error", 13), ("TFG000", "error", 2)]
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    assert results[0]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 12, "startColumn": 13, "endLine": 12, "endColumn": 29}
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/a.py"
    flow = results[1]["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [(step["location"]["physicalLocation"]["region"]["startLine"], step["location"]["message"]["text"])
            for step in flow] == [(13, "called here, inside the loop"), (7, "in save()")]
    assert [(related["id"], related["physicalLocation"]["region"]["startLine"]) for related in
            results[1]["relatedLocations"]] == [(0, 7)]
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.as_uri() + "/"
    assert run_["invocations"][0]["executionSuccessful"] is True


def test_sarif_of_a_clean_run_with_file_errors_is_valid(sarif_validator, tmp_path):
    result = CheckResult(errors=[FileError(str(tmp_path / "x.py"), "cannot read: denied")])
    log = sarif.to_document(result)
    sarif_validator.validate(log)
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert log["runs"][0]["results"] == []
    notification = invocation["toolExecutionNotifications"][0]
    assert notification["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": (tmp_path / "x.py").as_uri()}


def test_sarif_levels_and_odd_regions(sarif_validator):
    findings = [finding(severity="info", line=0, column=0, end_line=0, end_column=0),
                finding(severity="warning", end_line=5, end_column=2,
                        chain=(ChainLink("src/b.py", 9, "helper"),))]
    log = sarif.to_document(CheckResult(findings=findings))
    sarif_validator.validate(log)
    results = log["runs"][0]["results"]
    assert [r["level"] for r in results] == ["note", "warning"]
    assert results[0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 1, "startColumn": 1}
    assert results[1]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 3, "startColumn": 5, "endLine": 5, "endColumn": 2}
    assert "codeFlows" not in results[0]


def test_readme_section_of_a_catalog_page():
    page = "# T\n\nsummary\n\n## What it does\n\nReports x.\nAnd y.\n\n## Why is this bad?\n\nBecause.\n"
    assert sarif.readme_section(page, "What it does") == "Reports x.\nAnd y."
    assert sarif.readme_section(page, "Example") is None
