"""Realistic training scripts under ``fixtures/``: their findings equal their ``# expect:`` markers.

Markers are compared on the codes of registered rules (and TFG000), so a
marker written for a rule that does not exist yet waits silently until the
rule lands.  A ``# todo-expect:`` marker records a known miss; once the
checker finds it, the test fails until the marker is promoted to ``# expect:``.
"""

from __future__ import annotations

import ast

import pytest

from tests.catalog_paths import checked_codes, fixture_files, relative
from tests.markers import finding_counts, read_markers, restrict
from tfguard.static.config import Settings
from tfguard.static.engine import check_source
from tfguard.static.registry import PARSE_ERROR_CODE

ALL_RULES = Settings(select=("ALL",))
FIXTURES = fixture_files()


def fixture_id(path):
    """Name a parametrized case after its file."""
    return path.name


def _check(path):
    source = path.read_text(encoding="utf-8")
    return source, finding_counts(check_source(source, relative(path), ALL_RULES))


def test_there_are_fixtures():
    assert len(FIXTURES) >= 8


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_id)
def test_fixture_parses_unless_it_expects_a_parse_error(path):
    source = path.read_text(encoding="utf-8")
    expects_parse_error = any(
        code == PARSE_ERROR_CODE for _, code in read_markers(source).expected
    )
    if expects_parse_error or path.name.startswith("python2_"):  # Python 2 fixtures are no Python 3
        with pytest.raises(SyntaxError):
            ast.parse(source)
    else:
        ast.parse(source, filename=str(path))


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_id)
def test_fixture_findings_match_its_markers(path):
    source, found = _check(path)
    codes = checked_codes()
    expected = restrict(read_markers(source).expected, codes)
    found = restrict(found, codes)
    missing = sorted((expected - found).items())
    unexpected = sorted((found - expected).items())
    assert (missing, unexpected) == ([], []), (
        f"{relative(path)}: (line, code) missing / unexpected"
    )


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_id)
def test_known_gaps_are_still_gaps(path):
    source, found = _check(path)
    todo = restrict(read_markers(source).todo, checked_codes())
    now_found = sorted(key for key in todo if found[key])
    assert now_found == [], (
        f"{relative(path)}: found now, promote todo-expect to expect at {now_found}"
    )
