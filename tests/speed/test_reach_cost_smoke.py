"""bench/reach_cost.py runs end to end on a tiny corpus (no timing is asserted)."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_reach_cost_compares_two_checkouts_and_times_the_conversion():
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "bench" / "reach_cost.py"), "--before", str(REPO_ROOT),
         "--files", "20", "--runs", "1"],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("corpus: ") and lines[1].startswith("before ") and lines[2].startswith("after ")
    assert lines[-1].startswith("python 2 conversion of fixtures/python2_legacy_trainer.py")
