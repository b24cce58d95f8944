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
def project(empty_project: Path, speed_rules) -> Path:
    """The shared empty project folder, with this folder's test rules registered."""
    return empty_project
