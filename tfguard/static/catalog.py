"""Finding the rule catalog (``rules/`` in a checkout, ``tfguard/_catalog/`` when installed)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # tfguard/

#: THE setting to change when the documentation site is published: its base address, e.g.
#: ``"https://tfguard.example.org/latest/"`` (then also put it as ``site_url`` in mkdocs.yml and as
#: ``Documentation`` in pyproject.toml's ``[project.urls]``; tests/test_links.py checks that they agree). Empty while
#: no site is published: a rule's link (SARIF's ``helpUri``, the editor's) is then the ``file://`` address of its page
#: that ships with tfguard. ``docs-url`` in ``[tool.tfguard]`` or ``--docs-url`` replace it (a site built in house).
PUBLISHED_DOCS_URL = ""


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
    """Return the address of ``code``'s page: ``<docs_url>rules/<CODE>/`` on a docs site (MkDocs' page URLs;
    ``docs_url`` defaults to :data:`PUBLISHED_DOCS_URL`), else, while no site is published, the ``file://`` URI of
    the rule's ``README.md`` in the catalog that ships with tfguard; None when the code has no catalog page."""
    folder = rule_folder(code)
    if folder is None:
        return None
    base = docs_url or PUBLISHED_DOCS_URL
    if not base:
        return (folder / "README.md").resolve().as_uri()
    return f"{base if base.endswith('/') else base + '/'}rules/{code}/"
