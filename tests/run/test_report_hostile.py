"""A report file is input from anyone (a fork's CI artifact): `tfguard report` checks it against the shipped JSON
Schema and refuses, in one line and exit 2, what does not fit; what fits is shown with every value escaped. Each
field in turn gets a hostile string, then a value of the wrong type (the browser half: test_html_browser.py)."""

from __future__ import annotations

import json

import pytest

from tests.run.hostile_documents import HOSTILE, fields, full_document, page_problems, value_at, with_value
from tfguard.cli.main import main
from tfguard.runtime.output.formats import document_schema
from tfguard.runtime.output.html.page import render_report
from tfguard.runtime.output.html.side_by_side import render_comparison
from tfguard.runtime.output.schema_check import first_problem
from tfguard.runtime.verdict import RunVerdict


@pytest.fixture(scope="module")
def document():
    full = full_document()
    assert first_problem(full) is None
    return full


def test_the_full_document_fits_the_schema_as_jsonschema_reads_it_too(document):
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(document_schema()).validate(document)


@pytest.mark.slow
def test_the_schema_check_agrees_with_jsonschema_on_a_wrong_value_in_each_field(document):
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(document_schema())
    values = ("<s>", 7, -1, 1.5, None, True, [], {}, [[1]])
    for number, path in enumerate(fields(document)):
        value = values[number % len(values)]
        changed = with_value(document, path, value)
        assert (first_problem(changed) is None) == validator.is_valid(changed), (path, value)


def test_a_hostile_string_in_each_field_in_turn_never_becomes_markup(document):
    for path in fields(document):
        if not isinstance(value_at(document, path), str):
            continue
        changed = with_value(document, path, value_at(document, path) + HOSTILE)
        if first_problem(changed) is not None:
            continue  # refused before any page (an enum, a code): the CLI tests below show how
        changed_verdict = RunVerdict.from_document(changed)
        assert page_problems(render_report(changed_verdict)) == [], path
        original = RunVerdict.from_document(document)
        assert page_problems(render_comparison([("a", changed_verdict), ("b", original)])) == [], path


def _report(tmp_path, capsys, data, *extra):
    (tmp_path / "doc.json").write_text(json.dumps(data), encoding="utf-8")
    status = main(["report", str(tmp_path / "doc.json"), "--html", str(tmp_path / "page.html"), *extra])
    return status, capsys.readouterr().err


@pytest.mark.slow
def test_a_wrong_value_in_any_field_is_one_line_and_exit_2_never_an_internal_error(document, tmp_path, capsys):
    refused = 0
    for number, path in enumerate(fields(document)):
        # A string where something else belongs, else a number, else (every third field) nothing or an object.
        value = [None, {}][number % 2] if number % 3 == 0 else \
            7 if isinstance(value_at(document, path), str) else "<script>alert(1)</script>"
        status, err = _report(tmp_path, capsys, with_value(document, path, value))
        assert status in (0, 2), (path, err)
        assert "internal error" not in err and "Traceback" not in err, (path, err)
        if status == 2:
            refused += 1
            assert err.count("\n") == 1 and err.startswith("tfguard: error: "), (path, err)
        else:
            assert page_problems((tmp_path / "page.html").read_text(encoding="utf-8")) == [], path
    assert refused > 40  # most fields have a type


def test_the_refusal_names_the_field_and_the_wrong_type(document, tmp_path, capsys):
    changed = with_value(document, ("sessions", 0, "signatures", 0, "count"), "<img src=x onerror=alert(1)>")
    status, err = _report(tmp_path, capsys, changed)
    assert status == 2
    assert err == ("tfguard: error: %s does not fit the run-report schema (sessions[0].signatures[0].count: "
                   "integer, not string)\n" % (tmp_path / "doc.json"))
    assert not (tmp_path / "page.html").exists()


def test_two_reports_side_by_side_are_checked_each(document, tmp_path, capsys):
    (tmp_path / "a.json").write_text(json.dumps(document), encoding="utf-8")
    changed = with_value(document, ("sessions", 0, "runs"), "many")
    (tmp_path / "b.json").write_text(json.dumps(changed), encoding="utf-8")
    status = main(["report", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--html",
                   str(tmp_path / "page.html")])
    err = capsys.readouterr().err
    assert status == 2 and "b.json does not fit the run-report schema (sessions[0].runs: integer, not string)" in err


def test_control_characters_in_a_refused_name_are_shown_escaped(document, tmp_path, capsys):
    changed = with_value(document, ("sessions", 0, "growth_ops"), {"a\x1b[2J\u202eb": "many"})
    status, err = _report(tmp_path, capsys, changed)
    assert status == 2 and "\x1b" not in err and "\u202e" not in err
    assert "(sessions[0].growth_ops.a\\x1b[2J\\u202eb: integer, not string)" in err
