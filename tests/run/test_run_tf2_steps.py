"""`tfguard run` on TF2 training loops: the seed programs' problems each named on their line (TFG902-905, TFG909),
their fixed twins silent, `--max-steps` stopping a custom loop and a Keras `fit`, and the program's output, files
and exit status as they are without the guard."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.run.conftest import tfguard, valid_document

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("tensorflow_installed")]
PROGRAMS = Path(__file__).resolve().parent / "programs"
LOOP, FIT = PROGRAMS / "tf2_loop.py", PROGRAMS / "tf2_fit.py"


def _line(program, marker):
    lines = program.read_text(encoding="utf-8").splitlines()
    return next(number for number, text in enumerate(lines, 1) if marker in text)


def _run(tmp_path, program, *args, options=()):
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    report = tmp_path / "run.json"
    done = tfguard("run", *options, "--json", report, program, out, *args, cwd=tmp_path)
    return done, valid_document(json.loads(report.read_text(encoding="utf-8")))


def _program(document):
    """The diagnostics of the program's scope (a TF2 loop's steps), each with its blamed `path` and `line`."""
    found = []
    for d in document["diagnostics"]:
        if d["scope"] == "program":
            blamed = next((site for site in d["sites"] if site["role"] == "blamed"), {})
            found.append(dict(d, path=blamed.get("path"), line=blamed.get("line")))
    return found


def _findings(document):
    return {(d["code"], d["severity"]): d for d in _program(document)}


def test_an_eager_step_is_named_where_tf_function_goes(tmp_path):
    done, document = _run(tmp_path, LOOP, "eager")
    assert done.returncode == 0, done.stderr
    finding = _findings(document)[("TFG909", "warning")]
    assert (finding["path"], finding["line"]) == (str(LOOP), _line(LOOP, "def train_step"))
    assert finding["evidence"]["apply_line"] == _line(LOOP, "# applies")
    assert "put @tf.function on `train_step`" in finding["help"]
    assert document["steps"]["mode"] == "eager" and document["steps"]["steps"] == 40
    assert "TFG909 warning (program): the training step runs eagerly" in done.stderr


def test_summaries_of_every_weight_every_step_are_named_on_their_line(tmp_path):
    done, document = _run(tmp_path, LOOP, "summaries")
    assert done.returncode == 0, done.stderr
    # a warning at 10% of the steps' time (32% here on an idle machine), info below: the share is the machine's
    (finding,) = [d for d in _program(document) if d["code"] == "TFG904"]
    assert (finding["path"], finding["line"]) == (str(LOOP), _line(LOOP, "# every weight"))
    assert finding["headline"].startswith("summaries every step: 4000 summary writes for 1000 steps")
    assert finding["evidence"]["summary_writes"] == 4 * 1000 and finding["evidence"]["flushes"] >= 1000


def test_a_checkpoint_every_step_is_named_on_its_line(tmp_path):
    done, document = _run(tmp_path, LOOP, "checkpoints")
    assert done.returncode == 0, done.stderr
    finding = _findings(document)[("TFG905", "warning")]
    assert (finding["path"], finding["line"]) == (str(LOOP), _line(LOOP, "# checkpoint"))
    assert finding["evidence"]["saves"] == 200


def test_steps_slowing_on_growing_host_work_are_named_at_the_step(tmp_path):
    done, document = _run(tmp_path, LOOP, "slowing")
    assert done.returncode == 0, done.stderr
    finding = _findings(document)[("TFG902", "warning")]
    assert (finding["path"], finding["line"]) == (str(LOOP), _line(LOOP, "# calls the step"))
    assert finding["evidence"]["slowdown_cause"] == "python work"


def test_the_fixed_custom_loop_is_silent(tmp_path):
    done, document = _run(tmp_path, LOOP, "summaries", "checkpoints", "slowing", "fixed")
    assert done.returncode == 0, done.stderr
    assert document["steps"]["mode"] == "compiled"
    assert [d for d in _program(document) if d["severity"] != "info"] == []


@pytest.mark.parametrize("flavour", ["keras", "tf_keras"])
def test_a_keras_fit_with_a_serial_python_map_and_a_checkpoint_every_batch(tmp_path, flavour):
    if flavour == "tf_keras":
        pytest.importorskip("tf_keras")
    done, document = _run(tmp_path, FIT, flavour)
    assert done.returncode == 0, done.stderr
    assert "epochs 2" in done.stdout
    found = _findings(document)
    assert document["steps"]["mode"] == "compiled" and document["steps"]["steps"] == 64
    input_bound = found[("TFG903", "warning")]
    assert (input_bound["path"], input_bound["line"]) == (str(FIT), _line(FIT, "# serial map"))
    saves = found[("TFG905", "warning")]
    assert (saves["path"], saves["line"], saves["evidence"]["callback"]) == (
        str(FIT), _line(FIT, "# saver"), "ModelCheckpoint")


def test_the_fixed_keras_fit_is_silent(tmp_path):
    done, document = _run(tmp_path, FIT, "keras", "fixed")
    assert done.returncode == 0, done.stderr
    assert [d for d in _program(document) if d["severity"] != "info"] == []


def test_max_steps_stops_a_custom_loop_and_a_keras_fit(tmp_path):
    done, document = _run(tmp_path, LOOP, "checkpoints", options=("--max-steps", "5"))
    assert done.returncode == 0 and "loss" not in done.stdout  # stopped before the loop's end
    assert "tfguard: stopped after 5 steps (--max-steps)" in done.stderr
    assert document["stopped_by_max_steps"] and document["steps"]["steps"] == 5
    done = tfguard("run", "--max-steps", "3", FIT, tmp_path / "out", "keras", cwd=tmp_path)
    assert done.returncode == 0 and "epochs" not in done.stdout
    assert "tfguard: stopped after 3 steps (--max-steps)" in done.stderr


def test_the_program_runs_as_without_the_guard(tmp_path):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    (tmp_path / "plain").mkdir()
    plain = subprocess.run([sys.executable, str(LOOP), str(tmp_path / "plain"), "checkpoints", "exit3"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    guarded, document = _run(tmp_path, LOOP, "checkpoints", "exit3")
    assert (guarded.returncode, guarded.stdout) == (plain.returncode, plain.stdout) == (3, plain.stdout)
    assert plain.stdout.startswith("loss ")
    assert (tmp_path / "out" / "result.txt").read_text() == (tmp_path / "plain" / "result.txt").read_text()
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.name != "logs") == sorted(
        p.name for p in (tmp_path / "plain").iterdir() if p.name != "logs")
    assert document["exit_status"] == 3 and "TFG905" in {d["code"] for d in _program(document)}
