"""Fixtures for the speed tests: a project folder, the test-only rules of speed_rules.py, in-process runs."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Callable, Dict, Tuple

import pytest
from speed_rules import Calls, define_rules

from tfguard.cli import main
from tfguard.registry import all_rules


@pytest.fixture
def speed_rules() -> Dict[str, type]:
    """Register TFG971 (counts its runs), TFG972 (reports the pid, off by default), TFG973 (crashes)."""
    all_rules.cache_clear()
    classes = define_rules()
    all_rules.cache_clear()
    Calls.count = 0
    try:
        yield {cls.code: cls for cls in classes}
    finally:
        for cls in classes:
            cls.code = ""  # the registry skips a subclass without a code of its own
        all_rules.cache_clear()


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
