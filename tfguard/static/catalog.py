"""Finding the rule catalog (``rules/`` in a checkout, ``tfguard/_catalog/`` when installed)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # tfguard/

#: Where the documentation site (``mkdocs.yml``'s ``site_url``) is published: SARIF's ``helpUri`` of each rule points
#: at its page there. ``docs-url`` in ``[tool.tfguard]`` or ``--docs-url`` replace it (a site built in house).
DEFAULT_DOCS_URL = "https://tfguard.readthedocs.io/en/latest/"


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


def rule_page_url(code: str, docs_url: str = "") -> Optional[str]:
    """Return the address of ``code``'s page on the docs site, ``<docs_url>rules/<CODE>/`` (MkDocs' page URLs;
    default :data:`DEFAULT_DOCS_URL`), or None when the code has no catalog page."""
    if rule_folder(code) is None:
        return None
    base = docs_url or DEFAULT_DOCS_URL
    return f"{base if base.endswith('/') else base + '/'}rules/{code}/"
