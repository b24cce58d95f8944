"""`tfguard run` on TF2 programs under `tf.distribute`: a `MirroredStrategy` over two logical CPU devices (a custom
loop with `strategy.run` in a tf.function, a Keras `fit` under `strategy.scope()`) has one step per step, not one
per replica, and runs as without the guard; a two-worker `MultiWorkerMirroredStrategy` on localhost writes one report
per worker, and `tfguard report DIR` names the worker slowed on purpose as the straggler."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.once import once
from tests.run.conftest import REPO_ROOT, tfguard, valid_document

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("tensorflow_installed")]
PROGRAMS = Path(__file__).resolve().parent / "programs"
PROGRAM, LAUNCHER = PROGRAMS / "tf2_distribute.py", PROGRAMS / "tf2_workers_launcher.py"
STEPS = 24


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), TF_CPP_MIN_LOG_LEVEL="3", **extra)
    env.pop("TF_CONFIG", None)
    return env


def plain_run(tmp_path_factory, mode):
    """(CompletedProcess, output folder) of the program run without the guard in ``mode``, once this session.

    One plain run of `fit` serves both Keras flavours: what the program prints and writes names neither (`fit ran
    after N steps on 2 replicas`, `N steps, 2 replicas`), so the guarded run under each flavour must match it; the
    Keras 3 run stands for both (a TensorFlow start-up less)."""
    def run(folder):
        done = subprocess.run([sys.executable, str(PROGRAM), str(folder / "out"), mode, str(STEPS)],
                              env=_env(TF_USE_LEGACY_KERAS="0"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=300)
        return [done.returncode, done.stdout, done.stderr]

    folder, (returncode, stdout, stderr) = once(tmp_path_factory, "tf2_distribute.py plain %s %d" % (mode, STEPS), run)
    return subprocess.CompletedProcess([], returncode, stdout, stderr), folder / "out"


@pytest.mark.parametrize(("mode", "flavour", "step_function"), [
    ("loop", "keras", "train_step"),
    ("fit", "keras", "multi_step_on_iterator"),
    ("fit", "tf_keras", "train_function"),
])
def test_mirrored_strategy_steps_are_counted_once_and_the_program_runs_as_without_the_guard(
        tmp_path, tmp_path_factory, mode, flavour, step_function):
    if flavour == "tf_keras":
        pytest.importorskip("tf_keras")
    env = _env(TF_USE_LEGACY_KERAS="1" if flavour == "tf_keras" else "0")
    plain, plain_out = plain_run(tmp_path_factory, mode)
    report = tmp_path / "run.json"
    guarded = subprocess.run([sys.executable, "-m", "tfguard", "run", "--json", str(report), str(PROGRAM),
                              str(tmp_path / "out"), mode, str(STEPS)], env=env, cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    assert (guarded.returncode, guarded.stdout) == (plain.returncode, plain.stdout) == (0, plain.stdout), \
        guarded.stderr[-3000:]
    assert plain.stdout.endswith("after %d steps on 2 replicas\n" % STEPS)
    assert (tmp_path / "out" / "result-0.txt").read_text() == (plain_out / "result-0.txt").read_text()
    steps = valid_document(json.loads(report.read_text()))["steps"]
    assert (steps["mode"], steps["steps"]) == ("compiled", STEPS)
    [function] = steps["step_functions"]
    assert (function["function"], function["calls"]) == (step_function, STEPS)
    if mode == "loop":  # the distributed iterator's next, one per step
        assert steps["next_batches"] == STEPS


@pytest.fixture(scope="module")
def worker_reports(tmp_path_factory, tensorflow_installed):
    """Two workers (worker 1's input function sleeps 100 ms a batch), each under `tfguard run --json-dir`, once
    this session (tests/once.py); the launcher kills a worker still running after 150 s, and past the timeout its
    whole process group is killed."""
    def run(folder):
        launcher = subprocess.Popen([sys.executable, str(LAUNCHER), str(folder / "reports"), str(folder / "out"),
                                     "loop", "40", "1"], env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True, start_new_session=True)
        try:
            out, err = launcher.communicate(timeout=200)
        finally:
            if launcher.poll() is None:
                os.killpg(launcher.pid, signal.SIGKILL)
                launcher.wait(timeout=60)
        logs = "".join((folder / "out" / name).read_text()[-2000:] for name in ("worker-0.err", "worker-1.err")
                       if (folder / "out" / name).exists())
        assert launcher.returncode == 0, out + err + logs

    return once(tmp_path_factory, "test_tf2_distribute.py tf2_workers_launcher.py loop 40 1", run)[0]


def test_each_worker_writes_its_own_report(worker_reports):
    reports = worker_reports / "reports"
    assert sorted(p.name for p in reports.iterdir()) == ["worker-0.json", "worker-1.json"]
    for index in (0, 1):
        document = valid_document(json.loads((reports / ("worker-%d.json" % index)).read_text()))
        assert document["task"]["index"] == index and document["task"]["source"] == "TF_CONFIG"
        assert (document["steps"]["steps"], document["steps"]["step_functions"][0]["function"]) == (40, "train_step")
        out = (worker_reports / "out" / ("worker-%d.out" % index)).read_text()
        assert out.endswith("after 40 steps on 2 replicas\n")


def test_report_dir_puts_the_workers_side_by_side_and_names_the_slowed_one(worker_reports):
    done = tfguard("report", "--wide", worker_reports / "reports")
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0] == "tfguard cluster report: 2 tasks (worker-0, worker-1)"
    table = done.stdout.split("\n\n")[1]
    rows = {line.split()[0]: line.split() for line in table.splitlines() if line.startswith("worker-")}
    assert [rows[name][1:3] for name in ("worker-0", "worker-1")] == [["chief", "40"], ["worker", "40"]]
    stragglers = [line for line in lines if line.startswith("  straggler:")]
    assert len(stragglers) == 1 and stragglers[0].startswith("  straggler: worker-1 spends ")
