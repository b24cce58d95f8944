"""The run report as a user sees it (console script): verdict first, figures that agree."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import pytest

from tests.console import tfguard_script
from tfguard.cli.progress import Progress, wanted

pytestmark = pytest.mark.usefixtures("tensorflow_installed")

GROWING = '''
import os, sys
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
x = tf.placeholder(tf.float32, [])
w = tf.Variable(1.0)
step = tf.assign_add(w, x)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for i in range(12):
        sess.run(step, {x: 1.0})
        tf.add(w, 1.0)  # grows the graph
'''
FROZEN = '''
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
x = tf.placeholder(tf.float32, [])
with tf.Session() as sess:
    for step in range(6):
        y = x * 2.0
        sess.run(y, feed_dict={x: 1.0})
'''
DURATION = re.compile(r"\b(\d+(?:\.\d+)?) (s|ms|us)\b")


def report_of(stderr: str) -> str:
    return stderr[stderr.index("tfguard runtime report"):]


@pytest.fixture(scope="module")
def growing_report(tmp_path_factory):
    """The report of GROWING under the console script, with --wide (the table's columns in full, to parse): both
    tests below read the same run, which the program's 12 steps make the same every time."""
    folder = tmp_path_factory.mktemp("growing")
    (folder / "train.py").write_text(GROWING)
    done = tfguard_script("run", "--wide", "train.py", cwd=folder)
    assert done.returncode == 0, done.stderr
    return report_of(done.stderr)


@pytest.mark.slow
def test_diagnostics_first_then_evidence_that_says_something(growing_report):
    report = growing_report
    blocks = report.split("\n\n")
    assert blocks[1].startswith("diagnostics\nTFG901 error  ")
    assert re.search(r"\n {13,}help: ", blocks[1])  # the fix of the growing line, under its diagnostic
    assert blocks[2].startswith("evidence\n")
    evidence = dict(re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in blocks[2].splitlines()[1:])
    assert list(evidence)[:2] == ["runs", "wall time"]
    assert "mode" not in evidence and "in Saver.save" not in evidence  # rows that would say nothing
    assert not any("other threads" in value for value in evidence.values())
    assert evidence["runs"] == "13"
    for number, _ in DURATION.findall(report):  # 3 significant digits, never 245.992 ms
        assert len(number.replace(".", "").lstrip("0")) <= 3, number


@pytest.mark.slow
def test_counts_agree_and_runs_count_from_one(growing_report):
    report = growing_report
    runs = int(re.search(r"added after (\d+) different runs since the loop started", report).group(1))
    table = report[report.index("graph growth after the loop started"):].splitlines()
    header, row = table[1], table[3]
    column = header.index("runs that grew it")
    assert int(row[column:column + len("runs that grew it")].strip()) == runs
    assert re.search(r"most recently after run (\d+)", report).group(1) in row


@pytest.mark.slow
def test_freeze_after_names_the_mode_the_public_api_and_the_run(tmp_path):
    (tmp_path / "train.py").write_text(FROZEN)
    done = tfguard_script("run", "--freeze-after", "3", "train.py", cwd=tmp_path)
    assert done.returncode == 1
    assert "tried to add ops via tf.math.multiply after run 3, frozen by the run" in done.stderr
    assert "_mul_dispatch" not in done.stderr
    report = report_of(done.stderr)
    assert re.search(r"\nmode +frozen after run 3 \(--freeze-after\)\n", report)
    assert "blocked after run 3, tf.math.multiply" in report
    assert "until it was frozen" in report and "then stopped" not in report
    assert "mode   " in report and "watch" not in report


def test_progress_only_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    assert wanted(Terminal()) and not wanted(io.StringIO())
    assert wanted(io.StringIO(), True) and not wanted(Terminal(), False)
    stream = Terminal()
    with Progress(stream, lambda: "tfguard: 12 runs watched in 1 session", enabled=True, delay_s=0.0) as line:
        for _ in range(100):
            if "runs watched" in stream.getvalue():
                break
            subprocess.run([sys.executable, "-c", "pass"])  # some work while the line is drawn
        line.clear()
    text = stream.getvalue()
    assert text.startswith("\r\033[Ktfguard: 12 runs watched in 1 session  ") and text.endswith("\r\033[K")
    quiet = io.StringIO()
    with Progress(quiet, lambda: "x", enabled=False, delay_s=0.0):
        pass
    assert quiet.getvalue() == ""


@pytest.mark.slow
def test_run_draws_progress_when_asked_and_never_into_a_pipe(tmp_path):
    (tmp_path / "train.py").write_text(GROWING.replace("range(12)", "range(40)").replace(
        "        tf.add(w, 1.0)  # grows the graph\n", "        __import__('time').sleep(0.2)\n"))
    piped = tfguard_script("run", "train.py", cwd=tmp_path)
    assert "runs watched" not in piped.stderr
    drawn = tfguard_script("run", "--progress", "always", "train.py", cwd=tmp_path)
    # (text mode reads "\r" as a line end)
    assert re.search(r"\033\[Ktfguard: \d+ runs? watched in 1 session  \d+ s", drawn.stderr)
    assert re.search(r"\033\[Ktfguard run train.py: 1 session watched", drawn.stderr)  # erased first
