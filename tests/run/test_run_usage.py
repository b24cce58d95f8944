"""Bad `tfguard run` / `report` / `demo` command lines: one line, status 2, nothing run."""

from __future__ import annotations

import pytest

from tests.run.conftest import tfguard


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
def test_usage_errors_are_one_line(args, message, tmp_path):
    done = tfguard(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["tfguard: error: " + done.stderr.strip()[len("tfguard: error: "):]]
    assert message in done.stderr
    assert done.stdout == ""


def test_report_of_a_file_that_is_not_a_report(tmp_path):
    (tmp_path / "other.json").write_text('{"a": 1}', encoding="utf-8")
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    for name, message in (("other.json", "is not a tfguard runtime report"), ("broken.json", "is not JSON")):
        done = tfguard("report", name, cwd=tmp_path)
        assert done.returncode == 2 and message in done.stderr and len(done.stderr.splitlines()) == 1
