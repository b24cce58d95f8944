"""`tfguard run` through the real CLI in a child process."""

from __future__ import annotations

import json
import re

import pytest

from tests.run.conftest import DEMO_DIR, TRAIN_SCRIPT, busiest, tfguard

pytestmark = pytest.mark.usefixtures("tensorflow_installed")


@pytest.mark.slow
def test_script_args_path_and_report(train_script):
    done = tfguard("run", train_script, "3", "--flag", "x")
    assert done.returncode == 0, done.stderr
    assert "argv=['3', '--flag', 'x']" in done.stdout
    assert "path0=%s" % train_script.parent in done.stdout
    assert "finished" in done.stdout
    assert "tfguard runtime report: session created at" in done.stderr
    assert re.search(r"\nruns +4\n", done.stderr)


@pytest.mark.slow
def test_module_mode(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "train.py").write_text(TRAIN_SCRIPT, encoding="utf-8")
    done = tfguard("run", "-m", "pkg.train", "2", "exit7", cwd=tmp_path)
    assert done.returncode == 7, done.stderr
    assert "argv=['2', 'exit7']" in done.stdout and "path0=%s" % tmp_path in done.stdout
    assert "tfguard runtime report" in done.stderr


@pytest.mark.slow
def test_max_steps_stops_early_with_a_report(train_script, tmp_path):
    out = tmp_path / "run.json"
    done = tfguard("run", "--max-steps", "5", "--json", out, train_script, "100000")
    assert done.returncode == 0, done.stderr
    assert "finished" not in done.stdout
    assert "stopped after 5 steps (--max-steps)" in done.stderr
    document = busiest(json.loads(out.read_text(encoding="utf-8")))
    assert document["stopped_by_max_steps"] is True
    assert max(sig["count"] for sig in document["signatures"]) == 5  # signatures are sorted by total run time
    assert "tfguard runtime report" in done.stderr


@pytest.mark.slow
def test_exception_keeps_traceback_and_status_then_report(train_script):
    done = tfguard("run", train_script, "2", "boom")
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    start = lines.index("Traceback (most recent call last):")
    assert str(train_script) in lines[start + 1]  # the script's own frame first, no runner frames
    assert "runpy" not in done.stderr and "runner.py" not in done.stderr
    assert done.stderr.index("ValueError: boom from the script") < done.stderr.index("tfguard runtime report")


@pytest.mark.slow
def test_sys_exit_status_is_kept(train_script):
    done = tfguard("run", "--quiet", train_script, "2", "exit7")
    assert done.returncode == 7
    assert "tfguard runtime report" not in done.stderr


@pytest.mark.slow
def test_freeze_after_blocks_growth_naming_the_line(train_script):
    done = tfguard("run", "--freeze-after", "3", train_script, "5", "grow")
    assert done.returncode == 1
    line = TRAIN_SCRIPT.splitlines().index("            tf.add(w, 1.0)  # grows the graph") + 1
    assert "GraphFrozenError" in done.stderr
    assert "%s:%d" % (train_script, line) in done.stderr
    assert "blocked graph changes" in done.stderr


@pytest.mark.parametrize("script, status", [("seed003_saver_in_loop.py", 1), ("seed003_fixed.py", 0)])
@pytest.mark.slow
def test_fail_on_growth(script, status, tmp_path):
    out = tmp_path / "report.json"
    done = tfguard("run", "--quiet", "--fail-on", "growth", "--json", out, DEMO_DIR / script,
                   "--steps", "4", "--model-dir", tmp_path / "model")
    assert done.returncode == status, done.stderr
    document = busiest(json.loads(out.read_text(encoding="utf-8")))
    assert document["command"][-4:] == ["--steps", "4", "--model-dir", str(tmp_path / "model")]
    assert document["tensorflow_version"]
    if status:
        assert "failing (--fail-on): growth (TFG901)" in done.stderr
        site = document["growth_sites"][0]
        source = (DEMO_DIR / script).read_text(encoding="utf-8").splitlines()
        assert "tf.train.Saver(" in source[site["line"] - 1] and site["rule"] == "TFG101"
    else:
        assert document["nodes_added"] == 0 and document["growth_sites"] == []


def test_program_without_session(tmp_path):
    script = tmp_path / "plain.py"
    script.write_text("import sys\nprint('plain', sys.argv[1:])\n", encoding="utf-8")
    done = tfguard("run", script, "a")
    assert done.returncode == 0
    assert "plain ['a']" in done.stdout
    assert "created no TensorFlow session" in done.stderr


@pytest.mark.slow
def test_live_alerts_wrap_to_columns_and_the_programs_own_lines_do_not(tmp_path, monkeypatch):
    """The growth alert, a line of ~330 characters, wraps to COLUMNS as the report does; a long line the program
    prints itself stays one line (the guard never changes what the program writes)."""
    script = tmp_path / "grows.py"
    own = "own line " + "x" * 150
    script.write_text(
        "import tensorflow.compat.v1 as tf\n"
        "tf.disable_eager_execution()\n"
        "w = tf.Variable(1.0)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    for step in range(12):\n"
        "        sess.run(w + float(step))  # a new op every step\n"
        "print(%r)\n" % own, encoding="utf-8")
    monkeypatch.setenv("COLUMNS", "70")
    done = tfguard("run", "-q", script)
    assert done.returncode == 0, done.stderr
    assert own in done.stdout.splitlines()
    start = done.stderr.index("GraphGrowthWarning: tfguard: the graph keeps growing")
    alert = done.stderr[start:].splitlines()
    continued = [line for line in alert[1:] if line.startswith("    ")]
    assert continued and all(len(line) <= 70 for line in [alert[0]] + continued)
    assert "a new op every step" in " ".join(line.strip() for line in [alert[0]] + continued)
