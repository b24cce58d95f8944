"""Every link a user follows is true: README's, pyproject.toml's and each SARIF rule's land on a file of the repository.

While no documentation site is published (``PUBLISHED_DOCS_URL`` empty), nothing may point at one; once it is set,
pyproject.toml's and mkdocs.yml's addresses must be it.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlparse

from tfguard.catalog import PUBLISHED_DOCS_URL
from tfguard.static.formats.sarif import rule_descriptors

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)|<(https?://[^>]+)>")

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib


def _links(page: Path) -> list:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)  # code blocks hold no links
    return [inline or bare for inline, bare in LINK.findall(text)]


def test_every_link_in_readme_lands_on_a_file_of_the_repository():
    broken = []
    for target in _links(ROOT / "README.md"):
        path = target.split("#", 1)[0]
        if urlparse(target).scheme:
            broken.append(target)  # README names no outside page: its pages are the repository's
        elif path and not (ROOT / path).exists():
            broken.append(target)
    assert broken == []


def test_pyproject_names_no_address_but_the_published_site():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    urls = project.get("urls", {})
    if not PUBLISHED_DOCS_URL:
        assert urls == {}, "no site is published: pyproject.toml's [project.urls] would be dead links"
    else:
        assert urls.get("Documentation") == PUBLISHED_DOCS_URL
        assert all(url.startswith(PUBLISHED_DOCS_URL) for url in urls.values())


def test_every_sarif_help_link_lands_on_a_rule_page_of_the_repository():
    for rule in rule_descriptors():
        uri = rule["helpUri"]
        if PUBLISHED_DOCS_URL:
            assert uri == f"{PUBLISHED_DOCS_URL}rules/{rule['id']}/"
            continue
        parsed = urlparse(uri)
        assert parsed.scheme == "file", uri
        page = Path(unquote(parsed.path))
        assert page.is_file() and page.name == "README.md" and page.parent.name.startswith(rule["id"] + "-"), uri
        assert (ROOT / "rules" / page.parent.name / "README.md").is_file(), uri


def test_the_published_address_is_one_setting():
    """Only catalog.py spells out a docs-site address; the rest read PUBLISHED_DOCS_URL."""
    spelled = []
    for path in sorted((ROOT / "tfguard").rglob("*.py")):
        if path == ROOT / "tfguard" / "catalog.py":
            continue
        if re.search(r"readthedocs\.io|https://tfguard\.", path.read_text(encoding="utf-8")):
            spelled.append(str(path.relative_to(ROOT)))
    for name in ("README.md", "pyproject.toml", "mkdocs.yml", "CHANGELOG.md"):
        if "readthedocs.io" in (ROOT / name).read_text(encoding="utf-8"):
            spelled.append(name)
    assert spelled == []


def test_no_code_span_in_a_table_shows_an_escaped_bar():
    """In a Markdown table, `a\\|b` inside backticks renders the backslash too (MkDocs, GitHub): write it otherwise."""
    shown = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith("|") and re.search(r"`[^`]*\\\|[^`]*`", line):
                shown.append("%s:%d" % (page.relative_to(ROOT), number))
    assert shown == []


def test_the_output_formats_page_explains_the_json_fields_it_points_to():
    text = (ROOT / "docs" / "checker" / "output-formats.md").read_text(encoding="utf-8")
    assert "(see above)" not in text and "## The JSON report" in text and "(#the-json-report)" in text


def test_the_modules_and_names_the_config_comments_point_at_exist():
    import importlib

    for name in ("pyproject.toml", "mkdocs.yml"):
        text = (ROOT / name).read_text(encoding="utf-8")
        for path in re.findall(r"\btfguard/[\w/]+\.py\b", text):
            assert (ROOT / path).is_file(), f"{name} names {path}, which does not exist"
        for module, attribute in re.findall(r"\b(tfguard(?:\.\w+)*)\.([A-Z_]{3,})\b", text):
            assert hasattr(importlib.import_module(module), attribute), f"{name} names {module}.{attribute}"
