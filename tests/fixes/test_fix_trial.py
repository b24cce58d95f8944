"""The fix trial (bench/fix_trial.py) on a few of its programs: each is classed by running it (real TensorFlow)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="needs TensorFlow"),
              pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "data" / "fix_trial"
#: program -> (its class under --fix, under --unsafe-fixes)
EXPECTED = {
    "t12_varying_python_value.py": ("fixed, equivalent", "fixed, equivalent"),  # fed through a placeholder
    "t25_checkpoint_cadence_keep_one.py": ("fixed, equivalent", "fixed, equivalent"),  # the last save decides
    "t27_checkpoint_cadence_keep_five.py": ("not fixed", "changed"),  # other checkpoints stay on disk
    "t29_seeded_random.py": ("not fixed", "changed"),  # one random op advances
    "t30_iterator_per_epoch.py": ("not fixed", "broken"),  # one one-shot iterator runs out
}


def test_the_trial_classes_each_program_by_running_it(tmp_path):
    folder = tmp_path / "programs"
    folder.mkdir()
    for name in EXPECTED:
        shutil.copy(PROGRAMS / name, folder)
    output = tmp_path / "rows.json"
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "fix_trial.py"), str(folder), "--json", str(output)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {row["program"]: row for row in json.loads(output.read_text())}
    assert {name: (row["safe"]["verdict"], row["unsafe"]["verdict"]) for name, row in rows.items()} == EXPECTED
    assert all(row["no_reason"] == 0 for row in rows.values())
    assert "max_to_keep" in " ".join(rows["t27_checkpoint_cadence_keep_five.py"]["safe"]["why"])
    assert "--fix: 2 fixed, equivalent, 0 partly fixed, 0 changed, 0 broken, 3 not fixed (of 5)" in done.stdout


def test_a_folder_that_is_not_there_is_a_one_line_error(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "fix_trial.py"), str(tmp_path / "missing")],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2 and "not a folder" in done.stderr
