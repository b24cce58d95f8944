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


COST = BENCH.parent / "guard_python_cost.py"


@pytest.mark.parametrize("mode", ["frozen", "watch"])
def test_python_cost_bench_prints_the_added_work(tf, mode):
    done = subprocess.run([sys.executable, str(COST), "--blocks", "2", "--runs", "5", "--mode", mode],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr  # it also checks that the guard recorded every run
    lines = done.stdout.splitlines()
    assert lines[0].startswith("tfguard.%s on Python " % mode) and lines[0].endswith("2 blocks of 5 runs, thread CPU")
    assert re.search(r"the guard's Python work: [+-]\d+\.\d\d us/run$", lines[2])


def test_python_cost_bench_rejects_bad_counts():
    done = subprocess.run([sys.executable, str(COST), "--runs", "0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.strip() == "error: --blocks and --runs must be positive"
