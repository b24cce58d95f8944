"""`tfguard run` on TF2 programs without a session: their tf.functions are the report (TFG908), and the program's
output and exit status are those it has without the guard."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.run.conftest import REPO_ROOT, tfguard, valid_document

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("tensorflow_installed")]

RETRACING = '''
import sys
import tensorflow as tf


@tf.function
def step(x, n):
    return x * n


total = 0.0
for epoch in range(12):
    total += float(step(tf.ones([2, 2]), epoch)[0, 0])  # RETRACES
with open(sys.argv[1], "w") as handle:
    handle.write("%.1f\\n" % total)
print("total", total)
sys.exit(int(sys.argv[2]))
'''

HEALTHY = '''
import tensorflow as tf


@tf.function
def step(x, n):
    return x * n


print(sum(float(step(tf.ones([2]), tf.constant(float(i)))[0]) for i in range(20)))
'''


def _plain(script, *args):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    return subprocess.run([sys.executable, str(script), *map(str, args)], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=300)


def _line(source, marker):
    return next(number for number, line in enumerate(source.splitlines(), 1) if marker in line)


def test_a_retracing_program_is_reported_and_runs_as_without_the_guard(tmp_path):
    # Status 3, not 0: that the guard keeps a program's own non-zero status is the stronger check (status 0 passes
    # through in test_fail_on_retracing_fails_a_retracing_program_only, and in every healthy run of tests/run).
    status = 3
    script = tmp_path / "train.py"
    script.write_text(RETRACING, encoding="utf-8")
    plain = _plain(script, tmp_path / "plain.txt", status)
    report = tmp_path / "report.json"
    guarded = tfguard("run", "--json", report, script, tmp_path / "guarded.txt", status, cwd=tmp_path)
    assert (guarded.returncode, guarded.stdout) == (plain.returncode, plain.stdout) == (status, "total 66.0\n")
    assert (tmp_path / "guarded.txt").read_text() == (tmp_path / "plain.txt").read_text()
    assert "nothing to report" not in guarded.stderr
    line = _line(RETRACING, "# RETRACES")
    assert "RetracingWarning: tfguard: TFG908 `step`" in guarded.stderr  # the live alert, on stderr
    definition = _line(RETRACING, "@tf.function")
    assert "TFG908 warning: `step` (defined at train.py:%d) called from train.py:%d keeps retracing" % (
        definition, line) in guarded.stderr.replace("\n    ", " ")
    document = valid_document(json.loads(report.read_text(encoding="utf-8")))
    (function,) = document["functions"]["functions"]
    assert (function["function"], function["traced_calls"], function["calls"]) == ("step", 12, 12)
    (diagnostic,) = [d for d in document["diagnostics"] if d["code"] == "TFG908"]  # version 4: one flat list
    blamed = diagnostic["sites"][0]
    assert (diagnostic["scope"], blamed["path"], blamed["line"]) == ("function", str(script), line)
    assert diagnostic["evidence"]["definition_line"] == definition and diagnostic["help"]
    # float(...) of each call's result is a host sync per step: information on the CPU (TFG912), nothing more
    assert [(d["code"], d["severity"], d["sites"][0]["line"]) for d in document["diagnostics"]
            if d["scope"] == "program"] == [("TFG912", "info", line)]


def test_fail_on_retracing_fails_a_retracing_program_only(tmp_path):
    bad, good = tmp_path / "bad.py", tmp_path / "good.py"
    bad.write_text(RETRACING, encoding="utf-8")
    good.write_text(HEALTHY, encoding="utf-8")
    failed = tfguard("run", "--quiet", "--fail-on", "retracing", bad, tmp_path / "out.txt", 0, cwd=tmp_path)
    assert failed.returncode == 1 and "failing (--fail-on): retracing (TFG908)" in failed.stderr
    passed = tfguard("run", "--fail-on", "TFG908", good, cwd=tmp_path)
    assert passed.returncode == 0 and "TFG908" not in passed.stderr, passed.stderr
    assert passed.stdout == "190.0\n"  # what HEALTHY prints without the guard: 0 + 1 + ... + 19
    assert "tfguard tf.function report: 1 function traced, 1 trace in 20 calls" in passed.stderr


def test_pytest_tfguard_fails_a_test_whose_function_keeps_retracing(tmp_path):
    (tmp_path / "test_sample.py").write_text('''
import tensorflow as tf


@tf.function
def step(x, n):
    return x * n


def test_retraces():
    for i in range(8):
        step(tf.ones([2]), i)  # RETRACES


def test_steady():
    for i in range(8):
        step(tf.ones([2]), tf.constant(float(i)))
''', encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), TF_CPP_MIN_LOG_LEVEL="3", COLUMNS="200")
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q",
                           "--tfguard", "-ra", "test_sample.py"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300)
    assert done.returncode == 1, done.stdout
    assert "1 failed, 1 passed" in done.stdout
    assert "FAILED test_sample.py::test_retraces - `step` keeps retracing, called from test_sample.py:12 (TFG908)" \
        in done.stdout
