"""pyproject.toml ships every package and the rule catalog (rules/ as tfguard/_catalog)."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

REPO_ROOT = Path(__file__).resolve().parents[2]


def setuptools_table() -> dict:
    with open(REPO_ROOT / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)["tool"]["setuptools"]


def test_every_package_folder_is_listed():
    on_disk = {
        ".".join(init.parent.relative_to(REPO_ROOT).parts)
        for init in (REPO_ROOT / "tfguard").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    listed = set(setuptools_table()["packages"])
    assert on_disk - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"


def test_rule_catalog_ships_as_package_data():
    table = setuptools_table()
    assert table["package-dir"]["tfguard._catalog"] == "rules"
    assert "tfguard._catalog" in table["packages"]
    assert table["package-data"]["tfguard._catalog"] == ["**/*"]
    assert (REPO_ROOT / "rules").is_dir()
