"""`tfguard check --callers FILES` (the pre-commit hook's): the named files' findings, and those of other files whose
chain of calls goes through a named file, at the caller, saying which named file; nothing else."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DRIVER_SCRIPT = Path(__file__).resolve().parents[2] / "fixtures" / "projects" / "driver_script"


@pytest.fixture
def driver(tmp_path, monkeypatch):
    project = tmp_path / "project"
    shutil.copytree(DRIVER_SCRIPT, project)
    monkeypatch.chdir(project)
    return project


def test_a_named_helper_reports_the_loops_that_call_it(driver, run):
    status, out, _ = run("check", "--no-cache", "--callers", "agent.py")
    assert status == 1
    assert "drive.py:10:5: TFG108" in out and "drive_indirect.py:6:5: TFG108" in out
    assert "(through agent.py:12 in Agent.sync, a file checked for this change)" in out
    assert "agent.py:12:23: TFG110" in out  # the named file's own finding too


def test_a_file_no_finding_goes_through_reports_nothing_of_the_others(driver, run):
    status, out, _ = run("check", "--no-cache", "--callers", "pipeline.py")
    assert (status, out) == (0, "")


def test_the_fix_of_a_callers_finding_is_not_applied(driver, run):
    before = (driver / "drive.py").read_text()
    run("check", "--no-cache", "--callers", "--fix", "agent.py")
    assert (driver / "drive.py").read_text() == before  # a hook must not rewrite a file that is not staged


def test_callers_without_files_is_one_line(driver, run):
    status, _, err = run("check", "--callers")
    assert status == 2 and err.strip() == ("tfguard: error: --callers needs the files to check by name (it reports "
                                           "what they cause in the project)")
