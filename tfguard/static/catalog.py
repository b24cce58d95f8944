"""Finding the rule catalog (``rules/`` in a checkout, ``tfguard/_catalog/`` when installed)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # tfguard/


def catalog_dir() -> Optional[Path]:
    """Return the catalog folder: the installed copy first, else the checkout's ``rules/``; None if neither."""
    for candidate in (_PACKAGE_DIR / "_catalog", _PACKAGE_DIR.parent / "rules"):
        if candidate.is_dir():
            return candidate
    return None


def rule_folder(code: str) -> Optional[Path]:
    """Return the catalog folder ``<CODE>-<name>`` of ``code``, or None when it has none."""
    root = catalog_dir()
    if root is None:
        return None
    matches = sorted(p for p in root.glob(f"{code}-*") if p.is_dir())
    return matches[0] if matches else None


def rule_readme(code: str) -> Optional[str]:
    """Return the text of the catalog README of ``code``, or None when it has none."""
    folder = rule_folder(code)
    if folder is None:
        return None
    readme = folder / "README.md"
    return readme.read_text(encoding="utf-8") if readme.is_file() else None
