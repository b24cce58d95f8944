"""Ctrl-C at any moment of a ``-j 2`` run: status 130, one line, no traceback, no hang, no worker left, cache valid.

The process group of a ``python -m tfguard check -j 2`` child gets SIGINT, as a
terminal sends it, after a spread of delays that covers start-up, the worker
processes starting, checking and writing the report.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "bench"))

from tf1_corpus import generate_corpus  # noqa: E402

from tests.console import without_site_noise  # noqa: E402

TRIES = 36
#: Delays spread over this many seconds; a whole run of the tree takes about a second on 2 cores.
SPREAD_S = 1.0
INTERRUPTED = "tfguard: interrupted\n"
#: A traceback frame in tfguard's own package (``.../tfguard/cli/main.py``).
_OWN_FRAME = re.compile(r'File "[^"]*[/\\]tfguard[/\\]')

pytestmark = pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups are POSIX")


def _command(*args: str) -> list:
    return [sys.executable, "-m", "tfguard", "check", "-j", "2", "--format", "json", *args, "."]


def _ctrl_c_as_in_a_terminal() -> None:
    """In the child before it starts Python: SIGINT handled by default, as a shell starts a command. A pytest-xdist
    worker ignores SIGINT, and a child that starts with it ignored never sees Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _gone(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return True
    return False


def _interrupt_after(delay: float, cwd: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    child = subprocess.Popen(_command(*args), cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True, preexec_fn=_ctrl_c_as_in_a_terminal)
    time.sleep(delay)
    os.killpg(child.pid, signal.SIGINT)
    try:
        out, err = child.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        pytest.fail(f"hung after Ctrl-C at {delay:.3f} s")
    for _ in range(50):  # a worker the run left behind keeps the group alive
        if _gone(child.pid):
            break
        time.sleep(0.1)
    else:
        os.killpg(child.pid, signal.SIGKILL)
        pytest.fail(f"a process outlived the run interrupted at {delay:.3f} s")
    return subprocess.CompletedProcess(child.args, child.returncode, out, without_site_noise(err))


@pytest.mark.slow
def test_ctrl_c_at_any_moment_of_a_parallel_run(tmp_path):
    tree = tmp_path / "tree"
    generate_corpus(str(tree), 300, seed=18)
    (tree / "pyproject.toml").write_text("[tool.tfguard]\n")
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    outcomes = {"interrupted": 0, "finished": 0, "python start-up": 0}
    for attempt in range(TRIES):
        delay = SPREAD_S * attempt / TRIES
        args = ("--no-cache",) if attempt % 2 else ()  # every other run reads and writes the cache
        done = _interrupt_after(delay, tree, env, *args)
        if done.returncode == 130:
            assert done.stderr.endswith(INTERRUPTED) and "Traceback" not in done.stderr, f"Ctrl-C at {delay:.3f} s"
            if done.stdout:  # the signal came while (or after) the report was written: what was written stands
                assert done.stdout.startswith("{"), f"Ctrl-C at {delay:.3f} s"
            else:
                assert done.stderr == INTERRUPTED, f"Ctrl-C at {delay:.3f} s"
            outcomes["interrupted"] += 1
        elif done.stdout:  # the run was over: its report is out; the signal came as Python shut down, or later
            assert done.returncode in (1, -signal.SIGINT), (delay, done.returncode, done.stderr)
            assert json.loads(done.stdout)["errors"] == [] and done.stderr.startswith("Found "), done.stderr
            outcomes["finished"] += 1
        else:
            # Python itself was still starting (runpy looking for tfguard, "Could not import runpy module"):
            # that is not tfguard's code, and the process ends by the signal (a shell reports 130) or with 1.
            assert done.returncode in (-signal.SIGINT, 1), (delay, done.returncode, done.stderr)
            # Python's own start-up may print a traceback through site's .pth files (an editable install's
            # finder is named after tfguard, and a busy machine lands more signals there): no frame of tfguard's own.
            assert not _OWN_FRAME.search(done.stderr) and "tfguard:" not in done.stderr and done.stdout == "", \
                f"Ctrl-C at {delay:.3f} s: {done.stderr}"
            outcomes["python start-up"] += 1
    assert outcomes["interrupted"] >= TRIES // 2, outcomes

    # The cache the interrupted runs wrote is valid: a warm run reports what a run without the cache does.
    cached = subprocess.run(_command(), cwd=tree, env=env, capture_output=True, text=True, timeout=300)
    fresh = subprocess.run(_command("--no-cache"), cwd=tree, env=env, capture_output=True, text=True, timeout=300)
    assert cached.returncode == fresh.returncode == 1
    assert json.loads(cached.stdout) == json.loads(fresh.stdout)


class _InterruptedWhileNamed:
    def __set_name__(self, owner, name):
        raise KeyboardInterrupt


def _create_a_class_when_ctrl_c_comes(*args, **kwargs):
    class Interrupted:  # Python 3.11 wraps the KeyboardInterrupt in "RuntimeError: Error calling __set_name__"
        attribute = _InterruptedWhileNamed()

    return Interrupted


def test_ctrl_c_that_python_wrapped_in_another_error_is_still_ctrl_c(empty_project, run, monkeypatch):
    from tfguard.cli import check
    from tfguard.static import engine

    try:
        _create_a_class_when_ctrl_c_comes()
    except BaseException as exc:  # noqa: BLE001 - whatever this Python makes of it
        assert engine.caused_by_interrupt(exc)
    assert not engine.caused_by_interrupt(RuntimeError("no"))

    Path("a.py").write_text("import tensorflow as tf\n")
    monkeypatch.setattr(engine, "check_bytes", _create_a_class_when_ctrl_c_comes)  # while a file is checked
    assert run("check", "--no-cache", "a.py") == (130, "", INTERRUPTED)
    monkeypatch.setattr(check, "check_configured", _create_a_class_when_ctrl_c_comes)  # anywhere else in the command
    assert run("check", "--no-cache", "a.py") == (130, "", INTERRUPTED)


class _InterruptedWhenCollected:
    def __del__(self):
        raise KeyboardInterrupt  # Python cannot raise from here: it reports it as "Exception ignored"


def test_ctrl_c_that_python_could_not_raise_still_ends_the_run(empty_project, run, monkeypatch):
    """Ctrl-C landing in an import lock's (or any) callback is lost to the program; the run still ends as
    interrupted, with one line and no "Exception ignored" traceback."""
    from tfguard.cli import check

    real_check_paths = check.check_configured

    def check_paths_hit_by_a_lost_ctrl_c(*args, **kwargs):
        _InterruptedWhenCollected()  # collected at once: its KeyboardInterrupt goes to sys.unraisablehook
        return real_check_paths(*args, **kwargs)

    Path("a.py").write_text("import tensorflow as tf\n")
    monkeypatch.setattr(check, "check_configured", check_paths_hit_by_a_lost_ctrl_c)
    status, _, err = run("check", "--no-cache", "a.py")
    assert (status, err.splitlines()[-1]) == (130, INTERRUPTED.strip()) and "Exception ignored" not in err
