"""A real parameter-server cluster on 127.0.0.1 (1 ps + 2 workers, one process each, all stopped by the test),
each task under `tfguard run --json-dir`, then `tfguard report DIR` side by side.

The cluster spec names 127.0.0.1 only, so every connection stays on the loopback; TensorFlow's gRPC server itself
listens on all interfaces (it hard-codes 0.0.0.0/[::]), on ephemeral ports, for the seconds the test runs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from tests.once import once
from tests.run.conftest import REPO_ROOT, busiest, tfguard

LAUNCHER = REPO_ROOT / "tests" / "run" / "programs" / "cluster_launcher.py"
STEPS = 15
#: The straggler's pause after each step: well above the chief's step, a checkpoint save included.
PAUSE_S = 0.1


@pytest.fixture(scope="module")
def cluster_reports(tmp_path_factory, tensorflow_installed):
    """Run the cluster once this session (one TensorFlow import: the tasks are forked from the launcher; xdist
    workers share it through tests/once.py); return the reports folder and the hook's report. The launcher stops
    its tasks itself; past the timeout its whole process group is killed."""
    def run(folder):
        env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), TF_CPP_MIN_LOG_LEVEL="3")
        env.pop("TF_CONFIG", None)
        launcher = subprocess.Popen([sys.executable, str(LAUNCHER), str(folder / "reports"), str(folder),
                                     str(STEPS), str(PAUSE_S)], env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = launcher.communicate(timeout=280)
        finally:
            if launcher.poll() is None:
                os.killpg(launcher.pid, signal.SIGKILL)
                launcher.wait(timeout=60)
        assert launcher.returncode == 0, out + err
        assert "statuses: ps 0, worker-0 0, worker-1 0" in out
        assert out.count("done worker") == 2

    folder, _ = once(tmp_path_factory, "test_cluster.py cluster_launcher.py %d %s" % (STEPS, PAUSE_S), run)
    return folder / "reports", folder / "hook" / "worker-1.json"


@pytest.mark.slow
def test_each_task_names_its_report_by_task(cluster_reports):
    reports, _ = cluster_reports
    assert sorted(os.listdir(reports)) == ["ps-0.json", "worker-0.json", "worker-1.json"]
    ps = json.loads((reports / "ps-0.json").read_text())
    assert ps["task"] == {"job": "ps", "index": 0, "chief": False, "cluster_jobs": ["ps", "worker"],
                          "source": "tf.distribute.Server"}  # TF1 flags, no TF_CONFIG: named from its Server
    assert "mode" not in ps  # a ps runs no session
    chief = busiest(json.loads((reports / "worker-0.json").read_text()))
    assert chief["task"] == {"job": "worker", "index": 0, "chief": True, "cluster_jobs": ["ps", "worker"],
                             "source": "TF_CONFIG"}
    assert chief["saves"] >= STEPS  # its CheckpointSaverHook, every global step
    worker = busiest(json.loads((reports / "worker-1.json").read_text()))
    assert worker["task"]["chief"] is False and worker["saves"] == 0


@pytest.mark.slow
def test_report_puts_the_workers_side_by_side_and_flags_the_straggler_and_the_chief(cluster_reports):
    reports, _ = cluster_reports
    done = tfguard("report", "--wide", reports)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "tfguard cluster report: 3 tasks (ps-0, worker-0, worker-1)"
    rows = {line.split()[0]: line.split() for line in lines[:7] if line.startswith(("ps-", "worker-"))}
    assert rows["ps-0"][1] == "ps" and rows["ps-0"][-3:] == ["no", "TensorFlow", "session"]
    assert rows["worker-0"][1] == "chief" and rows["worker-1"][1] == "worker"
    assert int(rows["worker-1"][2]) >= STEPS
    assert "  straggler: worker-1 steps take " in done.stdout
    assert "straggler: worker-0" not in done.stdout
    assert "  costly chief: worker-0's hooks took " in done.stdout
    files = tfguard("report", reports / "worker-0.json", reports / "worker-1.json")
    by_glob = tfguard("report", str(reports / "worker-*.json"))
    assert files.stdout.splitlines()[0] == "tfguard cluster report: 2 tasks (worker-0, worker-1)"
    assert files.stdout == by_glob.stdout
    assert "straggler: worker-1" in files.stdout


def test_a_guard_hook_report_saved_by_hand_sits_beside_the_run_reports(cluster_reports):
    """README's recipe: GuardHook in MonitoredTrainingSession's hooks, its report saved as worker-<index>.json."""
    reports, hook_report = cluster_reports
    saved = json.loads(hook_report.read_text())
    assert "task" not in saved and saved["mode"] == "hook"
    assert saved["runs"] == STEPS  # the hook sees the loop's runs only, not the session's own set-up runs
    assert busiest(json.loads((reports / "worker-1.json").read_text()))["runs"] >= STEPS
    done = tfguard("report", reports / "worker-0.json", hook_report)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "tfguard cluster report: 2 tasks (worker-0, worker-1)"
    assert "  straggler: worker-1 steps take " in done.stdout
