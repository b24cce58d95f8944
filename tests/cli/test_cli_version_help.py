"""`tfguard -V` names the installed version; bare `tfguard` prints the help (on stderr, status 2, as ruff does)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tfguard
from tests.console import tfguard_script
from tfguard.cli.main import installed_version, main

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version_flag_prints_the_version(flag, capsys):
    assert main([flag]) == 0
    assert capsys.readouterr().out == f"tfguard {installed_version()}\n"


def test_the_version_is_the_project_s_in_every_place():
    with open(REPO_ROOT / "pyproject.toml", "rb") as handle:
        declared = tomllib.load(handle)["project"]["version"]
    assert tfguard.__version__ == declared
    assert installed_version() == declared


def test_version_falls_back_to_the_package_attribute(monkeypatch):
    import importlib.metadata

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    monkeypatch.setattr(tfguard, "__version__", "9.9.9")
    assert installed_version() == "9.9.9"


def test_bare_tfguard_prints_the_help_and_exits_2(tmp_path):
    done = tfguard_script(cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("usage: tfguard ")
    for command in ("check", "rules", "rule", "run", "report", "demo", "pre-commit-config", "server"):
        assert f"\n    {command} " in done.stderr or f"\n    {command}\n" in done.stderr, command
    assert "-V, --version" in done.stderr
