"""`tfguard demo`'s TF 2 part: every planted problem of tf2_train.py carries a marker on its line, every `# expect:`
marker is what the checker (static codes) or the guard (runtime codes, TFG9xx) reports on that line, and the fixed
twin is silent. `# todo-expect:` marks a problem a rule or diagnostic still to come will name."""

from __future__ import annotations

import os
import re
from collections import Counter

import pytest

from tests.markers import read_markers
from tests.run.conftest import DEMO_DIR, tfguard
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


@pytest.mark.slow
def test_the_guard_reports_every_runtime_expect_marker_and_the_part_prints_it(tmp_path, capsys):
    pytest.importorskip("tensorflow")
    assert demo.tf2_part(20, None)
    out = capsys.readouterr().out
    reports = {s: demo.run_guarded(s, 20, str(tmp_path)) for s in SCRIPTS}
    for script in SCRIPTS:
        _, expected = _split(_markers(script).expected)
        found = Counter((d.line, d.code) for d in reports[script].diagnostics
                        if d.path and os.path.basename(d.path) == script)
        assert expected - found == Counter(), (script, reports[script].diagnostics)
    fixed = [d for d in reports[demo_tf2.FIXED_SCRIPT].diagnostics if d.severity != "info"]
    assert not fixed, fixed
    # the table shows what the runs did: predict once per sample before, once in all after
    row = [line for line in out.splitlines() if line.startswith("predict calls")][0]
    assert re.split(r"\s{2,}", row.strip())[1:] == ["32", "1"]
    assert "tf2_train.py:35  TFG204" in out and "no static findings: tf2_fixed.py" in out
    assert str(DEMO_DIR) not in out


@pytest.mark.slow
def test_tfguard_demo_runs_all_four_parts():
    done = tfguard("demo", "--steps", "10", timeout=600)
    assert done.returncode == 0, done.stderr
    assert "== 4. TF 2: tf2_train.py and its fixed twin, 10 steps each ==" in done.stdout
    assert "tf2_fixed.py diagnostics:" in done.stdout
