"""Fixtures for the speed tests: a project folder, the test-only rules of speed_rules.py, in-process runs."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Callable, Dict, Tuple

import pytest
from speed_rules import Calls, define_rules

from tests.rule_support import registered
from tfguard.cli import main


@pytest.fixture
def speed_rules() -> Dict[str, type]:
    """Register TFG971 (counts its runs), TFG972 (reports the pid, off by default), TFG973 (crashes)."""
    Calls.count = 0
    with registered(define_rules) as rules:
        yield rules


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, speed_rules) -> Path:
    """A project folder with an empty ``[tool.tfguard]`` table, made the working folder."""
    (tmp_path / "pyproject.toml").write_text("[tool.tfguard]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def write() -> Callable[..., Path]:
    """Write a dedented source file (parents created) under the working folder and return its path."""

    def _write(relpath: str, source: str) -> Path:
        path = Path(relpath)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip("\n"))
        return path

    return _write


@pytest.fixture
def run(capsys: pytest.CaptureFixture) -> Callable[..., Tuple[int, str, str]]:
    """Run ``main(args)`` in-process; return (exit status, stdout, stderr)."""

    def _run(*args: str) -> Tuple[int, str, str]:
        status = main(list(args))
        out, err = capsys.readouterr()
        return status, out, err

    return _run
