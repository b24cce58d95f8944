"""`tfguard demo`'s TF 2 part: every planted problem of tf2_train.py carries a marker on its line, every `# expect:`
marker is what the checker (static codes) or the guard (runtime codes, TFG9xx) reports on that line, and the fixed
twin is silent. `# todo-expect:` marks a problem a rule or diagnostic still to come will name (none is left in
tf2_train.py: the guard names its summaries, checkpoints and input pipeline since issue 45).

The runtime markers are checked on the demo's own runs, in tests/run/test_demo_run.py (the demo runs once)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.markers import read_markers
from tests.run.conftest import DEMO_DIR
from tfguard.cli import demo, demo_tf2
from tfguard.static.engine import check_paths

SCRIPTS = (demo_tf2.BAD_SCRIPT, demo_tf2.FIXED_SCRIPT)


def _markers(script):
    return read_markers((DEMO_DIR / script).read_text(encoding="utf-8"))


def _runtime(code):
    return int(code[3:]) >= 900


def _split(counts):
    static = Counter({k: n for k, n in counts.items() if not _runtime(k[1])})
    return static, counts - static


def test_every_planted_problem_is_marked():
    markers = _markers(demo_tf2.BAD_SCRIPT)
    planted = {code for _, code in markers.expected + markers.todo}
    # the four diseases of the field reports, in TF 2 form: eager step, summaries, checkpoints, input, predict
    assert {"TFG407", "TFG201", "TFG202", "TFG204", "TFG406"} <= planted
    assert {"TFG909", "TFG904", "TFG905", "TFG903", "TFG910"} <= planted
    fixed = _markers(demo_tf2.FIXED_SCRIPT)
    assert not fixed.expected and not fixed.todo


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_checker_reports_every_expect_marker_on_its_line(script):
    markers = _markers(script)
    expected, _ = _split(markers.expected)
    todo, _ = _split(markers.todo)
    found = Counter((f.line, f.code) for f in check_paths([str(DEMO_DIR / script)]).findings)
    assert expected - found == Counter(), "marked but not reported"
    assert found - expected - todo == Counter(), "reported but not planted (mark it or fix the script)"
    promoted = sorted(set(found) & set(todo))
    assert not promoted, "found now, promote todo-expect to expect: %s" % promoted


def test_part_one_still_lints_the_tf1_seeds_alone():
    table = demo.lint_table()
    assert "seed003_saver_in_loop.py:52" in table and "tf2_" not in table
