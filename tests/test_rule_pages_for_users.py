"""The rule pages are for users (issue 36 item 5): short (median at most 500 words, none over 800), Fix sections
that read as steps rather than one long paragraph, and no pointers into the repository's tests, fixtures or tools."""

from __future__ import annotations

import re
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "rules").glob("TFG*/README.md"))
INTERNAL = ("fixtures", "tests", "tools", "bench")
#: The longest paragraph a Fix section may have (words), and the most words a page may have.
FIX_PARAGRAPH_WORDS = 120
PAGE_WORDS = 800
MEDIAN_WORDS = 500


def _words(text: str) -> int:
    return len(text.split())


def _internal_file_names() -> set:
    """Names of the Python files under the internal folders (fixture programs, test and tool modules)."""
    names = set()
    for folder in INTERNAL:
        names.update(path.name for path in (ROOT / folder).rglob("*.py"))
    return names - {"bad.py", "good.py", "train.py", "__init__.py", "conftest.py"}


def test_the_pages_are_short():
    counts = {page.parent.name: _words(page.read_text(encoding="utf-8")) for page in PAGES}
    assert statistics.median(counts.values()) <= MEDIAN_WORDS
    assert {name: n for name, n in counts.items() if n > PAGE_WORDS} == {}


def test_no_page_points_into_the_tests_fixtures_or_tools():
    names = _internal_file_names()
    found = []
    for page in PAGES + [ROOT / "docs" / "checker" / "rule-details.md"]:  # and the page their details moved to
        text = page.read_text(encoding="utf-8")
        for folder in INTERNAL:
            if re.search(r"(?<![\w/.])%s/" % folder, text):
                found.append("%s: %s/" % (page.parent.name, folder))
        found += ["%s: %s" % (page.parent.name, name) for name in sorted(set(re.findall(r"[\w.-]+\.py\b", text)))
                  if name in names]
    assert found == []


def test_fix_sections_are_not_one_long_paragraph():
    long = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        fix = re.search(r"^## Fix\n(.*?)(?=^## |\Z)", text, flags=re.S | re.M)
        if fix is None:
            continue
        for paragraph in re.split(r"\n\s*\n|\n(?=\s*[-*] )", fix.group(1)):
            if _words(paragraph) > FIX_PARAGRAPH_WORDS:
                long.append("%s: %d words" % (page.parent.name, _words(paragraph)))
    assert long == []
