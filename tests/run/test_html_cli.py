"""`--html FILE` on `tfguard report` (one report, or two side by side) and `tfguard run`: the page is written beside
the unchanged text report; a bad path or input is one line and status 2, with nothing written."""

from __future__ import annotations

import json
import os

import pytest

from tests.run.conftest import tfguard
from tests.runtime.html_documents import run_document


@pytest.fixture
def reports(tmp_path, monkeypatch):
    """bad.json (a growing run), fixed.json and other.json (healthy) in the working folder."""
    monkeypatch.chdir(tmp_path)
    for name, growing in (("bad.json", True), ("fixed.json", False), ("other.json", False)):
        (tmp_path / name).write_text(json.dumps(run_document(120, growing=growing)), encoding="utf-8")
    return tmp_path


def test_report_html_writes_the_page_and_prints_the_same_text_report(reports, run):
    plain = run("report", "bad.json")
    status, out, err = run("report", "bad.json", "--html", "page.html")
    assert status == 0 and out == plain[1] and err == "tfguard: wrote page.html\n"
    html = (reports / "page.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and ">TFG901</a>" in html


def test_report_of_two_runs_html_puts_them_side_by_side(reports, run):
    plain = run("report", "bad.json", "fixed.json")
    status, out, _ = run("report", "bad.json", "fixed.json", "--html", "ab.html")
    assert status == 0 and out == plain[1]
    html = (reports / "ab.html").read_text(encoding="utf-8")
    assert "tfguard report: bad.json vs fixed.json" in html and html.count('<div><h2 class="run-name') == 2


@pytest.mark.parametrize("args, message", [
    (["bad.json", "--html", "no/such/page.html"], "cannot write --html no/such/page.html: no such folder"),
    (["bad.json", "--html", "."], "cannot write --html .: it is a folder"),
    (["broken.json", "--html", "page.html"], "broken.json is not JSON"),
    (["bad.json", "fixed.json", "other.json", "--html", "page.html"], "--html puts one report or two side by side on "
                                                                      "a page, not 3"),
    (["--cluster", "bad.json", "fixed.json", "--html", "page.html"], "--html draws one report or a comparison of "
                                                                     "separate runs, not a cluster's tasks"),
])
def test_bad_html_report_inputs_are_one_line_and_write_nothing(reports, run, args, message):
    (reports / "broken.json").write_text("{", encoding="utf-8")
    status, out, err = run("report", *args)
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("tfguard: error: " + message)
    assert not (reports / "page.html").exists()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full to fail a write on")
def test_a_page_that_cannot_be_written_is_one_line(reports, run):
    status, _, err = run("report", "bad.json", "--html", "/dev/full")
    assert status == 2 and err == "tfguard: error: cannot write /dev/full: No space left on device\n"


def test_run_html_into_a_missing_folder_is_refused_before_the_script_runs(tmp_path, monkeypatch, run):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "script.py").write_text("open('ran', 'w').close()\n", encoding="utf-8")
    status, out, err = run("run", "--html", "missing/page.html", "script.py")
    assert status == 2 and out == "" and err == "tfguard: error: cannot write --html missing/page.html: no such " \
                                                "folder\n"
    assert not (tmp_path / "ran").exists()


def test_run_and_report_help_name_the_html_page(run):
    for command in ("run", "report"):
        status, out, _ = run(command, "--help")
        text = " ".join(out.split())
        assert status == 0 and "--html FILE" in text and "self-contained HTML page to FILE" in text, command


@pytest.mark.slow
def test_run_html_that_cannot_be_written_keeps_the_programs_output(train_script, tmp_path, tensorflow_installed):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full to fail a write on")
    done = tfguard("run", "-q", "--html", "/dev/full", train_script, "3", cwd=tmp_path)
    assert done.returncode == 2
    assert "finished" in done.stdout
    assert "tfguard: error: cannot write /dev/full: No space left on device" in done.stderr.splitlines()
