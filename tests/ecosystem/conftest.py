"""Fixtures for the ecosystem tests: a throwaway project checked with the real rules."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def project(empty_project: Path) -> Path:
    """The shared empty project folder (tests/conftest.py), checked with the real rules."""
    return empty_project
