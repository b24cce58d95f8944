"""Issue 31 items 10-11: `tfguard report a.json b.json` of separate runs (A/B), cluster rows only for cluster tasks,
and reports that fit the terminal (80 columns or COLUMNS; --wide in full)."""

from __future__ import annotations

import json

import pytest

from tests.runtime.html_documents import run_document


@pytest.fixture
def two_runs(tmp_path):
    """A run whose graph grows at train.py:41 (bad.json) and the same loop without the growth (good.json), 31 runs
    each: documents as `tfguard run --json` writes them, judged by the guard's own judges without TensorFlow
    (tests/runtime/html_documents.py). The subject here is what `tfguard report` prints from them; a real run's
    round trip through `tfguard report` is tests/run/test_report_files.py's."""
    for name, growing in (("bad", True), ("good", False)):
        (tmp_path / ("%s.json" % name)).write_text(json.dumps(run_document(31, growing=growing)), encoding="utf-8")
    return tmp_path


@pytest.fixture
def report(run, two_runs, monkeypatch):
    """``tfguard report ARGS`` in the two runs' folder, in-process (the subject is what it prints, which only the
    reports and COLUMNS decide): (status, stdout)."""
    monkeypatch.chdir(two_runs)

    def _report(*args, columns=None):
        if columns is None:
            monkeypatch.delenv("COLUMNS", raising=False)
        else:
            monkeypatch.setenv("COLUMNS", str(columns))
        status, out, _ = run("report", *args)
        return status, out

    return _report


def _widest(text):
    return max(len(line) for line in text.splitlines())


def test_two_separate_runs_are_compared_side_by_side_not_as_a_cluster(report):
    status, out = report("bad.json", "good.json")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split() == ["bad.json", "good.json"]
    rows = {line[:25].strip(): line[25:].split() for line in lines[2:] if line[:25].strip()}
    assert rows["runs"] == ["31", "31"]
    assert rows["top growth site"][0].startswith("train.py:41") and rows["top growth site"][-1] == "none"
    assert "cluster" not in out and "role" not in out and "straggler" not in out
    assert "bad.json diagnostics:\n  TFG901 error  " in out
    assert _widest(out) <= 80


def test_a_report_with_a_task_entry_is_a_cluster_task_and_the_flags_choose(two_runs, report):
    document = json.loads((two_runs / "good.json").read_text())
    document["task"] = {"job": "worker", "index": 1, "chief": False}
    (two_runs / "task.json").write_text(json.dumps(document))
    _, cluster = report("bad.json", "task.json")
    assert cluster.startswith("tfguard cluster report: 2 tasks (worker-1, bad)")
    _, forced = report("--compare", "bad.json", "task.json")
    assert forced.splitlines()[0].split() == ["bad.json", "task.json"]
    _, as_cluster = report("--cluster", "bad.json", "good.json")
    assert as_cluster.startswith("tfguard cluster report: 2 tasks (bad, good)")
    assert _widest(as_cluster) <= 80  # too wide a table: one column per task


def test_one_report_fits_80_columns_or_COLUMNS_and_wide_prints_it_in_full(report):
    status, narrow = report("bad.json")
    assert status == 0 and _widest(narrow) <= 80
    assert "TFG901 error  the graph keeps growing" in narrow
    _, wider = report("bad.json", columns=120)
    assert 80 < _widest(wider) <= 120
    _, wide = report("--wide", "bad.json")
    assert _widest(wide) > 120
    # The same text either way: wrapping moves line breaks (and cuts a word longer than a line), never drops text.
    diagnostics = [block for block in wide.split("\n\n") if block.startswith("diagnostics")][0]
    wrapped = [block for block in narrow.split("\n\n") if block.startswith("diagnostics")][0]
    assert "".join(diagnostics.split()) == "".join(wrapped.split())
