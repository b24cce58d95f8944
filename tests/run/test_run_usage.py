"""Bad `tfguard run` / `report` / `demo` command lines: one line, status 2, nothing run.

The command line is called in-process (the `run` fixture of tests/conftest.py): the subject is what it says, not
process start-up, which tests/run/test_run_cli.py covers.
"""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("args, message", [
    (["run"], "needs a script"),
    (["run", "missing.py"], "script not found: missing.py"),
    (["run", "-m", "no_such_module_here"], "no module named no_such_module_here"),
    (["run", "--fail-on", "growth,speed", "x.py"], "--fail-on: unknown name 'speed'"),
    (["run", "--max-steps", "0", "x.py"], "--max-steps needs a positive whole number"),
    (["run", "--freeze-after", "two", "x.py"], "--freeze-after needs a positive whole number"),
    (["report", "missing.json"], "report not found: missing.json"),
    (["demo", "--steps", "-1"], "--steps needs a positive whole number"),
])
def test_usage_errors_are_one_line(args, message, tmp_path, monkeypatch, run):
    monkeypatch.chdir(tmp_path)
    status, out, err = run(*args)
    assert status == 2
    assert err.strip().splitlines() == ["tfguard: error: " + err.strip()[len("tfguard: error: "):]]
    assert message in err
    assert out == ""


def test_report_of_a_file_that_is_not_a_report(tmp_path, monkeypatch, run):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "other.json").write_text('{"a": 1}', encoding="utf-8")
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    for name, message in (("other.json", "is not a tfguard runtime report"), ("broken.json", "is not JSON")):
        status, _, err = run("report", name)
        assert status == 2 and message in err and len(err.splitlines()) == 1
