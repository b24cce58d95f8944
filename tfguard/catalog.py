"""Finding the rule catalog (``rules/`` in a checkout, ``tfguard/_catalog/`` when installed) and the address of a
rule's page; shared by the checker and the runtime (standard library only)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

_PACKAGE_DIR = Path(__file__).resolve().parent  # tfguard/

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


#: The groups of the rule list (`tfguard rules`, the README table, the docs nav): a static rule by its code's hundreds
#: digit (a new code joins its family's group), every runtime diagnostic in the last. TF 1 graph code is sessions
#: and graphs; TF 2 code is eager code, tf.function and Keras.
RULE_GROUPS = (
    ("0", "checker", "The checker itself"),
    ("1", "tf1-graphs", "TF 1 graphs: ops, Savers, sessions built in the loop"),
    ("2", "costs", "Training costs, TF 1 and TF 2: summaries, checkpoints, runs, tf.data"),
    ("3", "tf1-devices", "TF 1 devices: session configs and GPU placement"),
    ("4", "tf2-functions", "TF 2 functions and costs: tf.function, Keras, eager steps"),
    ("", "runtime", "Runtime diagnostics: what `tfguard run` and the guard report"),
)


def rule_group(code: str, kind: str = "static") -> str:
    """Return the group key of ``code`` (``TFG102`` -> ``tf1-graphs``; ``kind="runtime"``: ``runtime``); a static
    code of no known family -> ``other``."""
    if kind == "runtime":
        return "runtime"
    for digit, key, _title in RULE_GROUPS:
        if digit and code[3:4] == digit:
            return key
    return "other"


def group_title(key: str) -> str:
    """Return the heading of a group of ``RULE_GROUPS`` (``other`` for a key of none)."""
    return {k: title for _digit, k, title in RULE_GROUPS}.get(key, "Other codes")
