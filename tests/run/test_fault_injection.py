"""The guard never harms the program (issue 30): every tfguard function a guarded program reaches is made to
raise in turn (tests/run/fault_injection.py finds them), and the program's stdout, files and exit status stay
its own; under --fail-on, tfguard's own failure exits with its own status. One process does both (TensorFlow
is loaded once, tests/run/fault_injection.py's second pass), since every run there is in-process anyway."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.once import once
from tests.run.conftest import REPO_ROOT

PROGRAM = REPO_ROOT / "tests" / "run" / "programs" / "restore_per_request.py"


def _injected(tmp_path_factory):
    """The summary of one fault-injection process for both tests (TensorFlow, the plain run and the search for
    the points done once, xdist workers sharing it): every point raising under plain `tfguard run`, then the
    Recorder.drain points under --fail-on growth (the second pass)."""
    def inject(_folder):
        env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), TF_CPP_MIN_LOG_LEVEL="3")
        done = subprocess.run([sys.executable, "-m", "tests.run.fault_injection", "--also-fail-on", "growth",
                               "--also-only", "Recorder.drain", str(PROGRAM), "2"], cwd=str(REPO_ROOT), env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    return once(tmp_path_factory, "fault injection restore_per_request.py 2", inject)[1]


def test_each_reached_guard_function_raising_leaves_the_program_its_own(tensorflow_installed, tmp_path_factory):
    summary = _injected(tmp_path_factory)
    results = summary["results"]
    points = {r["point"] for r in results}
    # The entry points the issue names are among those found (the list is found, not written down).
    for expected in ("SessionTap._call_begin", "SessionTap._call_end", "Recorder.drain", "Recorder.on_growth",
                     "GraphPatch._check_not_finalized", "SaverPatch.attach", "SessionWatcher._begin",
                     "SessionWatcher.end", "Guard.__exit__", "runner.run_verdict", "cli.run._report"):
        assert any(expected in point for point in points), expected
    assert sum(1 for r in results if r["fired"]) >= 0.95 * len(results)
    assert summary["expected_status"] == 0
    harmed = [r for r in results if r["fired"] and not (
        r["stdout_same"] and r["files_same"] and r["status"] == summary["expected_status"] and not r["traceback"])]
    assert not harmed, json.dumps(harmed, indent=1)[:4000]


def test_under_fail_on_tfguard_failing_exits_with_its_own_status(tensorflow_installed, tmp_path_factory):
    summary = _injected(tmp_path_factory)
    results = [r for r in summary["also_results"] if r["fired"]]
    assert results and all("Recorder.drain" in r["point"] for r in results)
    for result in results:
        assert result["stdout_same"] and result["files_same"] and not result["traceback"]
        assert result["status"] == 70  # safety.GUARD_FAILED_STATUS: the guard failed, not the program
        assert 1 <= result["warning_lines"] <= 3  # one line per session it stopped guarding (3 sessions)
