"""Fixtures shared by the test folders that drive the command line in-process, and the suite's markers.

Markers (see CONTRIBUTING.md, "Running the tests"):

- ``slow``: a test that takes seconds (a TensorFlow program or `python -m tfguard` in a child process, a benchmark's
  smoke run). ``pytest -m "not slow"`` is the quick subset while developing; under pytest-xdist the slow tests are
  handed out first, so that no worker is left with a long test at the end.
- ``timing``: a test whose verdict rests on real timing (a steady loop next to busy processes stays silent, a real
  slowdown is caught with its cause), so on how busy the machine is. Left out unless asked for: ``pytest -m timing
  -n 0`` (or ``--timing``) on a quiet machine; bench/slowdown_truth.py measures the same over many repeats.

Python 3.7 and pytest 7.4 import this file too (the TensorFlow 1.15 leg): no newer syntax here.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Callable, Tuple

import pytest

from tfguard.cli.main import main

MARKERS = {
    "slow": "takes seconds (a child process that imports TensorFlow, a whole run); deselect with -m 'not slow'",
    "timing": "its verdict rests on real timing, so on the machine's load; run only with -m timing or --timing",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--timing``: also run the tests marked ``timing`` (left out by default)."""
    parser.addoption("--timing", action="store_true", default=False,
                     help="also run the tests marked timing (real-timing verdicts; best with -n 0 on a quiet machine)")


def pytest_configure(config: pytest.Config) -> None:
    """Register the suite's markers; make an error inside a fix planner raise (in use it is reported on the
    finding), here and in the child processes the tests start, so that a fix that crashes fails its test."""
    os.environ.setdefault("TFGUARD_RAISE_FIX_ERRORS", "1")
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", "%s: %s" % (name, text))


def pytest_collection_modifyitems(config: pytest.Config, items: list) -> None:
    """Mark the tests of ``TF1_LEG`` ``tf1``; leave out the ``timing`` tests unless asked for (``--timing``, or a
    ``-m`` expression that names them); put the ``slow`` tests first (a stable sort: the same order in every xdist
    worker)."""
    for item in items:
        if item.nodeid.startswith(TF1_LEG):
            item.add_marker(pytest.mark.tf1)
    asked = config.getoption("--timing") or "timing" in (config.getoption("markexpr", "") or "")
    if not asked:
        left_out = [item for item in items if item.get_closest_marker("timing") is not None]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = [item for item in items if item.get_closest_marker("timing") is None]
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture
def empty_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder with an empty ``[tool.tfguard]`` table, made the working folder."""
    (tmp_path / "pyproject.toml").write_text("[tool.tfguard]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def write() -> Callable[..., Path]:
    """Write a dedented source file (parents created) under the working folder and return its path."""

    def _write(relpath: str, source: str = "", data: bytes = b"") -> Path:
        path = Path(relpath)
        path.parent.mkdir(parents=True, exist_ok=True)
        if data:
            path.write_bytes(data)
        else:
            path.write_text(textwrap.dedent(source).lstrip("\n"))
        return path

    return _write


@pytest.fixture
def run(capsys: pytest.CaptureFixture) -> Callable[..., Tuple[int, str, str]]:
    """Run ``main(args)`` in-process; return (exit status, stdout, stderr). tfguard never prints a traceback."""

    def _run(*args: str) -> Tuple[int, str, str]:
        status = main(list(args))
        out, err = capsys.readouterr()
        assert "Traceback" not in err
        return status, out, err

    return _run


#: What the TensorFlow 1.15 / Python 3.7 leg (tools/tf1_leg.sh, `pytest -m tf1`) runs besides the tests marked
#: `tf1` in their files: tests where TF 1.15 and 2.x differ (sessions, op tracebacks, run metadata, hooks, the
#: cluster, the plugin). Node-id prefixes; kept here, in one place, so that the test files stay as they are.
TF1_LEG = (
    "tests/runtime/test_frozen.py", "tests/runtime/test_hook.py",
    "tests/runtime/test_watch.py::test_saver_in_loop_is_top_growth_site",
    "tests/runtime/test_watch.py::test_seed_003_like_loop_shows_significant_slowdown",
    "tests/runtime/test_watch.py::test_merge_all_fetched_every_run",
    "tests/runtime/test_watch.py::test_saver_save_share_of_wall_time",
    "tests/runtime/test_watch.py::test_report_round_trips_through_json",
    "tests/runtime/test_growth_kinds.py", "tests/runtime/test_placement.py", "tests/runtime/test_devicewatch.py",
    "tests/runtime/test_watcher_memory.py",
    "tests/run/test_run_cli.py::test_module_mode", "tests/run/test_run_cli.py::test_fail_on_growth",
    "tests/run/test_run_cli.py::test_freeze_after_blocks_growth_naming_the_line",
    "tests/run/test_report_as_seen.py::test_freeze_after_names_the_mode_the_public_api_and_the_run",
    "tests/run/test_cluster.py", "tests/run/test_report_files.py", "tests/run/test_demo_run.py",
    "tests/run/test_guard_logdir.py",
    "tests/run/test_run_placement.py::test_placement_in_printed_report_and_json",
    "tests/run/test_healthy_programs.py::test_monitored_training_session_hooks_own_runs_are_not_steps",
    "tests/run/test_healthy_programs.py::test_mnist_style_leak_fails_on_its_line_with_a_readable_report",
    "tests/integrations/test_pytest_plugin.py::test_a_test_whose_graph_keeps_growing_fails_naming_the_test_and_the",
    "tests/integrations/test_pytest_plugin.py::test_xdist_workers_send_their_verdicts_to_the_controller",
)
