"""bench/guard_overhead.py runs end to end on a few tiny blocks (no timing is asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "guard_overhead.py"


@pytest.mark.parametrize("mode", ["frozen", "watch"])
@pytest.mark.slow
def test_overhead_bench_prints_both_clocks(tf, mode):
    done = subprocess.run([sys.executable, str(BENCH), "--rounds", "3", "--runs", "5", "--mode", mode],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr  # it also checks that the guard recorded every run
    lines = done.stdout.splitlines()
    assert lines[0] == "tfguard.%s, median of 3 rounds of 5-run blocks in random order" % mode
    assert [line for line in lines if line.endswith(":")] == ["wall:", "thread CPU:"]
    guarded = [line for line in lines if "guarded sess.run" in line]
    assert len(guarded) == 2 and all(re.search(r"ratio \d+\.\d{3}  [+-]\d+\.\d\d us/run$", g) for g in guarded)


def test_overhead_bench_rejects_bad_counts():
    done = subprocess.run([sys.executable, str(BENCH), "--rounds", "0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.strip() == "error: --rounds and --runs must be positive"
