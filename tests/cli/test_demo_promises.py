"""`tfguard demo` keeps its promises: part 1b's diff is what its command prints, no ratio beside "no significant
trend", no path cut in the middle of a word. Part 3 (judged, no GPU advice on a machine without a GPU) is checked on
the demo's own run, in tests/run/test_demo_run.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tfguard.cli import demo
from tfguard.runtime.output.comparison import comparison_column
from tfguard.runtime.verdict import RunVerdict, SessionVerdict
from tfguard.views.compare import _fit

ROOT = Path(__file__).resolve().parents[2]


def test_the_diff_under_its_command_is_what_that_command_prints():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "tfguard", *demo.DIFF_COMMAND, "--no-cache"], cwd=demo.DEMO_DIR,
                          capture_output=True, text=True, env=env)
    assert done.returncode == 1 and done.stdout.rstrip("\n") == demo.fix_diff()
    assert "if step % 1000 == 0" in done.stdout  # the unsafe TFG202 fix is part of it
    assert not os.path.exists(os.path.join(demo.DEMO_DIR, ".tfguard_cache"))


def test_the_comparison_table_keeps_paths_and_calls_whole_at_80_columns():
    rows = [["top growth site", "seed003_saver_in_loop.py:52 `saver = tf.train.Saver(max_to_keep=1)` (+1220 ops)",
             "none"], ["step interval, first 20%", "275.1 ms", "3.6 ms"],
            ["slowdown", "none (no significant trend)", "none (no significant trend)"]]
    table = _fit(rows, ["", demo.BAD_SCRIPT, demo.FIXED_SCRIPT], 80)
    assert max(len(line) for line in table.splitlines()) <= 80
    assert "seed003_saver_in_loop.py:52" in table and "tf.train.Saver(max_to_keep=1)`" in table
    assert "step interval, first 20%" in table  # the labels stay whole too, while the run columns can give room


def test_a_slowdown_without_a_significant_trend_shows_no_ratio():
    figures = {"mode": "watch", "growth_sites": [], "slowdown": 2.54, "slowdown_significant": False,
               "runs": 3, "nodes_start": 1, "nodes_end": 1, "nodes_added": 0, "saves": 0,
               "save_s": 0.0, "wall_s": 1.0, "intervals": [], "run_s": []}
    cells = comparison_column(RunVerdict({}, [SessionVerdict(1, figures=figures)]))
    assert "none (no significant trend)" in cells and not any("x2.54" in cell for cell in cells)
