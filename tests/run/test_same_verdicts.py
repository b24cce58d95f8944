"""Programs whose verdicts must be the same on TensorFlow 1.15 (Python 3.7, tools/tf1_leg.sh) and on 2.x.

Seed 003 and its twin are in test_run_cli.py, the MonitoredTrainingSession program in test_healthy_programs.py,
the 1-ps/2-worker cluster in test_cluster.py; all of them run on both legs (tests/conftest.py, TF1_LEG).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.run.conftest import DEMO_DIR, REPO_ROOT, busiest, tfguard, valid_document
from tfguard.runtime.verdict import RunVerdict

pytestmark = [pytest.mark.usefixtures("tensorflow_installed"), pytest.mark.tf1]
PROGRAMS = REPO_ROOT / "tests" / "run" / "programs"


def _run(tmp_path: Path, script: Path, *args: str):
    out = tmp_path / ("%s.json" % script.stem)
    done = tfguard("run", "--fail-on", "growth", "--json", out, script, *args)
    return done, busiest(valid_document(json.loads(out.read_text(encoding="utf-8"))))


def _codes(document, severity):
    return [d["code"] for d in document["diagnostics"] if d["severity"] == severity]


@pytest.mark.parametrize("script, runs", [("seed000_summaries.py", 81), ("seed000_fixed.py", 41)])
def test_seed_000_summaries_every_step_and_its_twin_pass_with_no_diagnostics(tmp_path, script, runs):
    """The summaries are built once (fetched each step or every N): no growth on either TensorFlow."""
    done, document = _run(tmp_path, DEMO_DIR / script, "--steps", "40", "--log-dir", str(tmp_path / "logs"))
    assert done.returncode == 0, done.stderr
    assert document["runs"] == runs and document["nodes_added"] == 0 and document["diagnostics"] == []


def test_a_session_per_item_on_one_graph_is_many_healthy_sessions(tmp_path):
    done, document = _run(tmp_path, PROGRAMS / "session_per_item.py", "8")
    assert done.returncode == 0, done.stderr
    assert "total 280.0 over 8 items" in done.stdout
    assert document["session_count"] == 8 and "8 sessions watched" in done.stderr
    verdict = RunVerdict.from_document(json.loads((tmp_path / "session_per_item.json").read_text(encoding="utf-8")))
    assert len(verdict.sessions) == 8 and "TFG901" not in verdict.fired_codes()
    for session in verdict.sessions:
        assert session["runs"] == 6 and session["nodes_added"] == 0


def test_import_meta_graph_per_item_fails_on_growth_and_its_fix_passes(tmp_path):
    done, document = _run(tmp_path, PROGRAMS / "meta_graph_per_item.py", str(tmp_path), "30")
    assert "scored 30 items, last 87.0" in done.stdout  # the program ran as it does unguarded
    assert done.returncode == 1 and "failing (--fail-on): growth (TFG901)" in done.stderr
    assert "TFG901" in _codes(document, "error") and document["growth_ops"]["repeated"] >= 100
    if document["tensorflow_version"].startswith("1."):  # 1.15 keeps a traceback for imported ops; 2.x none
        line = next(number for number, text in enumerate((PROGRAMS / "meta_graph_per_item.py").read_text(
            encoding="utf-8").splitlines(), 1) if "# GROW SITE" in text)
        assert "meta_graph_per_item.py:%d" % line in done.stderr and "tf.train.import_meta_graph" in done.stderr
    fixed, document = _run(tmp_path, PROGRAMS / "meta_graph_per_item.py", str(tmp_path), "30", "fixed")
    assert fixed.returncode == 0, fixed.stderr
    assert "scored 30 items, last 87.0" in fixed.stdout and document["growth_ops"]["repeated"] == 0
