"""Ctrl-C at any moment of the ``tfguard`` console script's start-up: one ``tfguard: interrupted`` line and
status 130, never a traceback, also while the script imports its entry point.

The script is the one pip writes for the entry point pyproject.toml declares. SIGINT comes after delays spread
over the length of a whole run measured first, on the same machine and load; the test asserts on what each run
ended with, never on how long anything took.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.console import REPO_ROOT, without_site_noise, written_console_script

TRIES = 16
INTERRUPTED = "tfguard: interrupted\n"
#: Frames of these modules in a traceback mean tfguard's own start-up let Ctrl-C through.
OWN_CODE = [str(REPO_ROOT / "tfguard" / part) for part in ("cli", "static", "__main__.py")]

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGINT as a terminal sends it is POSIX")


def _started(script: Path, cwd: Path, env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(script), "check", "--no-cache", "."], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow  # 17 runs of the console script (about 20 s on 2 cores): start-up is the subject, so a child each
def test_ctrl_c_while_the_console_script_starts_up(tmp_path):
    script = written_console_script(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.py").write_text("import tensorflow as tf\nx = tf.constant(1)\n")
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    began = time.monotonic()
    whole = _started(script, project, env)
    out, err = whole.communicate(timeout=120)
    length = time.monotonic() - began
    assert (whole.returncode, err) == (0, "All checks passed (1 file).\n")

    outcomes = {"interrupted": 0, "finished": 0, "python start-up": 0}
    for attempt in range(TRIES):
        child = _started(script, project, env)
        time.sleep(length * attempt / TRIES)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=120)
        err = without_site_noise(err)
        assert not any(place in err for place in OWN_CODE), (attempt, err)
        if child.returncode == 130:
            assert (out, err) == ("", INTERRUPTED), attempt
            outcomes["interrupted"] += 1
        elif child.returncode == 0:  # the run was over before the signal came
            assert err == "All checks passed (1 file).\n", err
            outcomes["finished"] += 1
        else:  # Python itself was starting (site, the script's first lines): ended by the signal, or status 1
            assert child.returncode in (-signal.SIGINT, 1) and out == "", (child.returncode, err)
            outcomes["python start-up"] += 1
    assert outcomes["interrupted"] >= 1, outcomes
