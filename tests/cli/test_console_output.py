"""Flags users reach for and findings a person can scan, run through the console script."""

from __future__ import annotations

import json

import pytest

from tests.console import tfguard_script

TRAIN = ("import tensorflow as tf\n"
         "x = tf.constant(1.0)\n"
         "def save(sess):\n"
         "    tf.train.Saver().save(sess, 'm')\n"
         "with tf.Session() as sess:\n"
         "    for step in range(100):\n"
         "        sess.run(tf.add(x, 1.0))\n"
         "        save(sess)\n")
TARGET_UPDATE = ("import tensorflow as tf\n"
                 "target = tf.keras.layers.Dense(2)\n"
                 "online = tf.keras.layers.Dense(2)\n"
                 "score = tf.Variable(0.0)\n"
                 "with tf.Session() as sess:\n"
                 "    for episode in range(100):\n"
                 "        sess.run([tf.assign(t, e) for t, e in zip(target.variables, online.variables)])\n"
                 "        sess.run(tf.assign(score, 1.5))\n")


@pytest.fixture
def project(tmp_path):
    (tmp_path / "train.py").write_text(TRAIN)
    return tmp_path


def check(project, *args, **kwargs):
    return tfguard_script("check", "--no-cache", *args, cwd=project, **kwargs)


def test_short_line_then_help_then_via_relative_to_the_working_folder(project):
    done = check(project, str(project / "train.py"))  # an absolute path inside the working folder
    lines = done.stdout.splitlines()
    assert lines[0].startswith("train.py:7:18: TFG102 [*] `tf.add()` adds new ops to the graph on every iteration")
    assert lines[1] == "  help: build it once, before the loop, and run the existing tensor"
    assert lines[2].startswith("train.py:8:9: TFG101 `save()` calls `tf.train.Saver()` at line 4,")
    assert lines[3].startswith("  help: create the Saver once, before the loop")
    assert lines[4] == "  via line 4 in save()"
    assert max(len(line) for line in lines) < 200


@pytest.mark.slow
def test_output_format_alias_and_case(project):
    for option in ("--output-format", "--format"):
        for name in ("json", "JSON", "Json"):
            done = check(project, option, name, "train.py")
            assert done.returncode == 1 and json.loads(done.stdout)["version"] == 1


def test_show_source_is_the_full_format(project):
    shown = check(project, "--show-source", "train.py")
    assert shown.stdout == check(project, "--output-format", "full", "train.py").stdout
    lines = shown.stdout.splitlines()
    assert lines[1:4] == ["  |", "7 |         sess.run(tf.add(x, 1.0))", "  |                  ^^^^^^^^^^^^^^"]
    done = check(project, "--show-source", "--output-format", "sarif", "train.py")
    assert done.returncode == 2 and "--show-source cannot be combined with --output-format sarif" in done.stderr


def test_quiet_prints_findings_only(project):
    done = check(project, "-q", "train.py")
    assert done.returncode == 1 and done.stdout and done.stderr == ""
    (project / "clean.py").write_text("import tensorflow as tf\n")
    done = check(project, "--quiet", "clean.py")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.mark.slow
def test_color_on_request_and_never_into_a_pipe(project):
    assert "\033[" in check(project, "--color", "always", "train.py").stdout
    assert "\033[" not in check(project, "--color", "never", "train.py", env={"FORCE_COLOR": "1"}).stdout
    assert "\033[" not in check(project, "train.py").stdout  # auto, and stdout is a pipe
    assert "\033[" in check(project, "train.py", env={"FORCE_COLOR": "1"}).stdout
    assert "\033[" not in check(project, "--color", "ALWAYS", "--output-format", "json", "train.py").stdout


@pytest.mark.parametrize("typo, meant", [("--selct", "--select"), ("--show-sources", "--show-source"),
                                         ("--output-fromat", "--output-format"), ("--statistcs", "--statistics")])
def test_misspelt_flag_gets_did_you_mean(project, typo, meant):
    done = check(project, typo, "train.py")
    assert done.returncode == 2 and f"(did you mean {meant}?)" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("args, message", [
    (["--statistics", "--diff"], "--statistics cannot be combined with --diff"),
    (["--statistics", "--fix-only"], "--statistics cannot be combined with --fix-only"),
    (["--statistics", "--output-format", "sarif"], "--statistics prints text or json"),
    (["--write-baseline", "b.json", "--fix"], "--write-baseline cannot be combined with --fix"),
    (["--diff", "--output-file", "out.txt"], "--diff prints the diff on stdout"),
])
def test_no_combination_is_silently_ignored(project, args, message):
    done = check(project, *args, "train.py")
    assert (done.returncode, done.stdout) == (2, "") and message in done.stderr
    assert not (project / "b.json").exists() and not (project / "out.txt").exists()
    assert (project / "train.py").read_text() == TRAIN


def test_table_wraps_to_the_terminal(project):
    done = check(project, "--output-format", "table", "train.py", env={"COLUMNS": "100"})
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert any(line.strip().startswith("help: build it once") for line in lines)


def test_tfg108_fix_fits_what_is_assigned(tmp_path):
    (tmp_path / "dqn.py").write_text(TARGET_UPDATE)
    done = tfguard_script("check", "--no-cache", "dqn.py", cwd=tmp_path)
    lines = done.stdout.splitlines()
    copy = lines.index(next(line for line in lines if line.startswith("dqn.py:7:")))
    assert "(and a constant for its value)" not in lines[copy]
    assert lines[copy + 1].startswith("  help: build the assign ops once, before the loop")
    constant = lines.index(next(line for line in lines if line.startswith("dqn.py:8:")))
    assert "placeholder" in lines[constant + 1] and "initializer" in lines[constant + 1]


WITHOUT_TENSORFLOW = """
import importlib.util, sys
real = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: None if name.split('.')[0] == 'tensorflow' else real(name, *a)
sys.meta_path.insert(0, type('NoTF', (), {'find_spec': staticmethod(
    lambda name, *a: (_ for _ in ()).throw(ImportError(name)) if name.split('.')[0] == 'tensorflow' else None)}))
from tfguard.cli.main import main
sys.exit(main(['demo']))
"""


def test_demo_part_one_runs_without_tensorflow(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    done = subprocess.run([sys.executable, "-c", WITHOUT_TENSORFLOW], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "seed003_saver_in_loop.py:52  TFG101" in done.stdout and "== 2." not in done.stdout
    assert done.stderr.strip() == ("tfguard: parts 2 to 4 (the runtime guard) skipped: they run the scripts, "
                                   "which needs TensorFlow (pip install tensorflow-cpu)")


def test_rules_take_the_same_format_option(tmp_path):
    done = tfguard_script("rules", "--output-format", "JSON", cwd=tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)[0]["code"] == "TFG000"
