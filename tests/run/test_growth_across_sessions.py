"""The import-per-request program (issue 30) under `tfguard run`: it runs to the end with its own output and exit
status, and its growth across sessions on one graph is reported once, with the import line."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.run.conftest import REPO_ROOT, tfguard
from tfguard.runtime.verdict import ACROSS_SESSIONS, RunVerdict

PROGRAM = REPO_ROOT / "tests" / "run" / "programs" / "restore_per_request.py"


def test_restoring_per_request_runs_to_the_end_and_its_growth_across_sessions_names_the_import(
        tensorflow_installed, tmp_path):
    plain_dir, guarded_dir = tmp_path / "plain", tmp_path / "guarded"
    plain_dir.mkdir()
    guarded_dir.mkdir()
    plain = subprocess.run([sys.executable, str(PROGRAM), "4"], cwd=str(plain_dir), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=300)
    guarded = tfguard("run", "--json", tmp_path / "run.json", PROGRAM, "4", cwd=guarded_dir)
    assert guarded.stdout == plain.stdout and "request 3:" in plain.stdout
    assert guarded.returncode == plain.returncode == 0
    assert (guarded_dir / "labels.txt").read_text() == (plain_dir / "labels.txt").read_text()
    assert "Traceback" not in guarded.stderr
    verdict = RunVerdict.from_document(json.loads((tmp_path / "run.json").read_text()))
    found = verdict.of_scope(ACROSS_SESSIONS)
    assert [(d.code, d.severity, d.line) for d in found] == [("TFG901", "error", 24)]
    assert found[0].evidence["sites"][0]["line"] == 24 and "import_meta_graph" in found[0].evidence["sites"][0]["code"]
    assert "the graph keeps growing across sessions" in " ".join(guarded.stderr.split())  # any COLUMNS
    # The 4 request sessions on one graph: one table and one line for the other 3.
    assert guarded.stderr.count("tfguard runtime report: session created at") == 2
    assert "3 more sessions on the same graph" in guarded.stderr
    failing = tfguard("run", "--fail-on", "growth", "-q", PROGRAM, "4", cwd=guarded_dir)
    assert failing.returncode == 1 and failing.stdout == plain.stdout
