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


def test_the_wheel_carries_the_licence(tmp_path):
    """What a company's licence check reads: ``License: Apache-2.0`` in the wheel's METADATA and the LICENSE text
    in its ``.dist-info`` (built with the running environment's setuptools, as ``--no-build-isolation`` does)."""
    import shutil
    import subprocess
    import zipfile

    # A copy, so that setuptools' build/ and egg-info folders land in the scratch folder, not in the checkout.
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO_ROOT / name, source / name)
    for folder in ("tfguard", "rules"):
        shutil.copytree(REPO_ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                           "-w", str(tmp_path / "dist"), str(source)], capture_output=True, text=True, timeout=600,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (wheel,) = (tmp_path / "dist").glob("tfguard-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = next(name.split("/")[0] for name in names if name.endswith(".dist-info/METADATA"))
        metadata = archive.read(f"{info}/METADATA").decode("utf-8")
        assert "tfguard/runtime/output/run-report.schema.json" in names  # the run document's JSON Schema
        licence = next(name for name in names if name.startswith(f"{info}/") and name.endswith("LICENSE"))
        assert archive.read(licence) == (REPO_ROOT / "LICENSE").read_bytes()
    headers = metadata.split("\n\n", 1)[0].splitlines()
    assert "License: Apache-2.0" in headers or "License-Expression: Apache-2.0" in headers
    assert "Apache License" in (REPO_ROOT / "LICENSE").read_text(encoding="utf-8").splitlines()[1]
