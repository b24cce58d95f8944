"""``tfguard server`` as a process: exit statuses, the missing-dependency line, the latency bench's smoke run."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server.conftest import HAVE_PYGLS, SERVER_COMMAND

needs_pygls = pytest.mark.skipif(not HAVE_PYGLS, reason="pygls is not installed (pip install '.[server]')")

BENCH = Path(__file__).resolve().parents[2] / "bench" / "server_latency.py"


def _bench_module():
    spec = importlib.util.spec_from_file_location("server_latency", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _started(tmp_path: Path):
    client = _bench_module().StdioClient(SERVER_COMMAND, cwd=str(tmp_path))
    result = client.request("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(),
                                           "capabilities": {}})
    client.notify("initialized", {})
    return client, result


@needs_pygls
def test_shutdown_then_exit_ends_the_process_with_status_0(tmp_path: Path):
    client, result = _started(tmp_path)
    assert result["serverInfo"]["name"] == "tfguard"
    assert client.close() == 0


@needs_pygls
def test_exit_without_shutdown_is_status_1(tmp_path: Path):
    client, _ = _started(tmp_path)
    client.notify("exit", None)
    assert client.process.wait(timeout=60) == 1


@pytest.mark.skipif(sys.version_info < (3, 9), reason="on Python 3.8 the line says Python 3.9 is needed")
def test_without_pygls_one_line_says_what_to_install():
    hide = "import sys; sys.modules['pygls'] = None; from tfguard.cli.main import main; sys.exit(main(['server']))"
    done = subprocess.run([sys.executable, "-c", hide], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("tfguard: error: tfguard server needs pygls 2: pip install 'pygls>=2' (in a checkout: "
                           "pip install '.[server]')\n")


@needs_pygls
@pytest.mark.slow
def test_the_latency_bench_runs_end_to_end():
    done = subprocess.run([sys.executable, str(BENCH), "--lines", "120", "--rounds", "1"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr  # it also checks the findings and the server's exit status
    assert re.fullmatch(r"file: \d+ lines, 1 rounds\ntfguard check process: median \d+\.\d{3} s\n"
                        r"server, diagnostics after an edit: median \d+\.\d{3} s\n"
                        r"ratio \(server edit / check process\): \d+\.\d\d\n", done.stdout), done.stdout


def test_the_latency_bench_rejects_bad_counts():
    done = subprocess.run([sys.executable, str(BENCH), "--rounds", "0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.strip() == "error: --lines must be at least 50 and --rounds positive"
