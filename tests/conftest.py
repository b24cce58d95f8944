"""Fixtures shared by the test folders that drive the command line in-process."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Callable, Tuple

import pytest

from tfguard.cli import main


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
