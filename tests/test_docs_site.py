"""The documentation site builds with `mkdocs build --strict` (a broken link or a missing page fails), has a page per
rule, and SARIF's helpUri links land on those pages."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tfguard.catalog import PUBLISHED_DOCS_URL
from tfguard.cli.rules import rule_rows
from tfguard.static.formats.sarif import rule_descriptors

pytest.importorskip("mkdocs", reason="mkdocs is not installed: pip install \".[docs]\" (the test extra has it)")
pytest.importorskip("material", reason="mkdocs-material is not installed: pip install \".[docs]\"")

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=600,
                          env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr
    return folder


def test_every_code_has_a_page(site):
    missing = [row["code"] for row in rule_rows() if not (site / "rules" / row["code"] / "index.html").is_file()]
    assert missing == []


def test_sarif_help_links_to_a_site_land_on_the_site_s_pages(site):
    base = PUBLISHED_DOCS_URL or "https://docs.example.com/tfguard/"  # a site built in house: --docs-url
    for rule in rule_descriptors(base):
        uri = rule["helpUri"]
        assert uri.startswith(base)
        page = site / uri[len(base):] / "index.html"
        assert page.is_file(), uri
        assert f"{rule['id']} {rule['name']}" in page.read_text(encoding="utf-8")


def test_the_site_address_is_the_published_one_or_none():
    config = (REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    if PUBLISHED_DOCS_URL:
        assert f"\nsite_url: {PUBLISHED_DOCS_URL}\n" in config
    else:
        assert "\nsite_url:" not in config


def test_the_rule_table_and_the_changelog_are_on_the_site(site):
    table = (site / "rules" / "index.html").read_text(encoding="utf-8")
    assert all(f'href="../TFG{code[3:]}/"' in table or f'href="{code}/"' in table
               for code in (row["code"] for row in rule_rows()))
    assert (site / "changelog" / "index.html").is_file() and (site / "getting-started" / "index.html").is_file()


def test_console_blocks_wrap_instead_of_hiding_their_ends(site):
    """Output lines (a finding is 150 columns and more) wrap on the site instead of being cut at the right edge."""
    home = (site / "getting-started" / "index.html").read_text(encoding="utf-8")
    assert "stylesheets/extra.css" in home and "language-console" in home
    css = (site / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    assert ".language-console pre > code" in css and "white-space: pre-wrap" in css
