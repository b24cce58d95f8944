"""`tfguard demo`, run once: its four parts and the promises of each.

The demo starts five TensorFlow programs in child processes under `tfguard run` (seed 003 and its fixed twin, seed
002 with --placement, tf2_train.py and its fixed twin): about half a minute on 2 cores. Four tests used to run it,
or the same runs, again (the demo in a child at 10 and at 12 steps, part 4 twice, part 3 at 5 steps); this one runs
it once, in-process, and keeps the run verdicts it reads, so that each part's checks read the very runs the demo
printed. The runs stay real: the demo's subject is what the guard says about real programs.
"""

from __future__ import annotations

import os
import re
import sys
from collections import Counter

import pytest

from tests.run.conftest import DEMO_DIR
from tfguard.cli import demo, demo_tf2

pytestmark = pytest.mark.usefixtures("tensorflow_installed")
PNG_HEADER = b"\x89PNG\r\n\x1a\n"
#: The steps of each run: part 4's runtime markers need 20 (TFG909 and TFG912 judge from a few steps on).
STEPS = 20


@pytest.mark.slow
def test_the_demo_runs_its_four_parts_once_and_keeps_their_promises(tmp_path, monkeypatch, run):
    verdicts = {}
    guarded = demo.run_guarded

    def kept(script, steps, work, run_options=(), script_args=None):
        verdicts[script] = guarded(script, steps, work, run_options, script_args)
        return verdicts[script]

    monkeypatch.setattr(demo, "run_guarded", kept)
    monkeypatch.chdir(tmp_path)
    status, out, err = run("demo", "--steps", str(STEPS), "--plot", str(tmp_path / "plots"))
    assert status == 0, err
    assert str(DEMO_DIR) not in out  # the scripts are named by their file names, as in the lint table
    _parts_one_and_two(out, err, tmp_path / "plots")
    _part_three(out, verdicts[demo.INPUT_BOUND_SCRIPT])
    if (demo_tf2.tensorflow_major() or 0) < 2:  # the TF 1.15 leg
        assert "tfguard: part 4 (TF 2) skipped: it needs TensorFlow 2" in err and "== 4. " not in out
    else:
        _part_four(out[out.index("== 4. "):], verdicts)


def _parts_one_and_two(out, err, plots):
    """Part 1 lints the seeds (1b: the fix's diff), part 2 compares seed 003 with its fixed twin (one PNG)."""
    checker = ("seed003_saver_in_loop.py:52  TFG101", "seed000_summaries.py:46      TFG201",
               "+        saver = tf.train.Saver(max_to_keep=None)  # the seed's bug: a new Saver every step\n"
               "         for step in range(args.steps):\n")
    if sys.version_info < (3, 8):  # the TF 1.15 leg: the checker needs 3.8+, parts 2 and 3 run all the same
        assert "tfguard: part 1 (the checker) skipped: tfguard check needs Python 3.8" in err
        assert not any(expected in out for expected in checker) and "== 1. " not in out
        checker = ()
    for expected in checker + ("seed003_saver_in_loop.py:52 `saver =", "graph ops start -> end", "TFG901"):
        assert expected in out
    row = [line for line in out.splitlines() if line.startswith("top growth site")][0]
    assert row.rstrip().endswith("none")  # the fixed twin does not grow
    diagnostics = [line for line in out.splitlines() if line.startswith("diagnostics  ")][0]
    assert diagnostics.rstrip().endswith("none")  # the fixed twin saves once, at the end: no TFG905 either
    picture = plots / "seed003_comparison.png"  # one picture, both runs on the same axes
    assert picture.read_bytes()[:8] == PNG_HEADER
    assert sorted(path.name for path in plots.iterdir()) == ["seed003_comparison.png"]


def _part_three(out, verdict):
    """Part 3 (seed 002 with --placement) is judged, shows where its ops ran and gives no GPU advice without a GPU."""
    section = out[out.index("== 3. tfguard run --placement: seed 002"):]
    assert "placement of one step: `GradientDescent, Mean_1:0 <- x:0` (traced at run 5)" in section
    # A line per GPU; on a machine without one, one line saying so (and no GPU advice).
    assert "GPU utilisation\n  " in section or "(no GPU on this machine" in section
    figures = verdict.busiest.figures
    assert figures["wall_s"] >= 1.5  # the guard's minimum for TFG903-TFG905 (clocks.MIN_VERDICT_S)
    assert not [d for d in verdict.diagnostics if d.headline.startswith("not judged")]
    device = demo.device_section(verdict)
    assert device in out
    if not figures["placement"]["gpus_visible"]:
        assert "TFG906" not in device and "nvidia-ml-py" not in device
        assert "no GPU on this machine" in device


def _part_four(section, verdicts):
    """Part 4: the guard reports every runtime `# expect:` marker of tf2_train.py on its line, the fixed twin is
    silent, and the part prints the comparison and the static findings."""
    from tests.markers import read_markers  # Python 3.9+ (the TF 1.15 leg, on 3.7, has no part 4)

    assert "== 4. TF 2: tf2_train.py and its fixed twin, %d steps each ==" % STEPS in section
    assert "tf2_fixed.py diagnostics:" in section
    for script in (demo_tf2.BAD_SCRIPT, demo_tf2.FIXED_SCRIPT):
        markers = read_markers((DEMO_DIR / script).read_text(encoding="utf-8"))
        expected = Counter({key: n for key, n in markers.expected.items() if int(key[1][3:]) >= 900})
        found = Counter((d.line, d.code) for d in verdicts[script].diagnostics
                        if d.path and os.path.basename(d.path) == script)
        assert expected - found == Counter(), (script, verdicts[script].diagnostics)
    fixed = [d for d in verdicts[demo_tf2.FIXED_SCRIPT].diagnostics if d.severity != "info"]
    assert not fixed, fixed
    # the table shows what the runs did: predict once per sample before, once in all after
    row = [line for line in section.splitlines() if line.startswith("predict calls")][0]
    assert re.split(r"\s{2,}", row.strip())[1:] == ["32", "1"]
    assert "tf2_train.py:35  TFG204" in section and "no static findings: tf2_fixed.py" in section
