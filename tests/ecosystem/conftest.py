"""Fixtures for the ecosystem tests: a throwaway project checked with the real rules."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder with an empty ``[tool.tfguard]`` table, made the working folder."""
    (tmp_path / "pyproject.toml").write_text("[tool.tfguard]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path
