"""Fixtures for the speed tests: a project folder, the test-only rules of speed_rules.py, in-process runs."""

from __future__ import annotations

from pathlib import Path
from typing import Dict

import pytest
from speed_rules import Calls, define_rules

from tests.rule_support import registered


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
