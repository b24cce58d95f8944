"""Multi-file fixtures under ``fixtures/projects/<name>/``: checked as a whole, findings equal the markers.

Each folder is a small project (driver scripts, star imports, classes passed in): calls are
followed across its files, so a finding in one file may come from code in another.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.catalog_paths import FIXTURES_DIR, checked_codes, relative
from tests.markers import read_markers
from tfguard.static.config import Settings
from tfguard.static.engine import check_paths

PROJECTS = sorted(path for path in (FIXTURES_DIR / "projects").iterdir() if path.is_dir())


def test_there_are_project_fixtures():
    assert len(PROJECTS) >= 2


@pytest.mark.parametrize("folder", PROJECTS, ids=lambda path: path.name)
def test_project_findings_match_its_markers(folder):
    result = check_paths([str(folder)], Settings(select=("ALL",)), jobs=1)
    assert result.errors == []
    codes = checked_codes()
    found = Counter((f.path, f.line, f.code) for f in result.findings if f.code in codes)
    expected: Counter = Counter()
    for path in sorted(folder.glob("*.py")):
        for (line, code), count in read_markers(path.read_text(encoding="utf-8")).expected.items():
            if code in codes:
                expected[(str(path), line, code)] += count
    missing = sorted((expected - found).items())
    unexpected = sorted((found - expected).items())
    assert (missing, unexpected) == ([], []), f"{relative(folder)}: (path, line, code) missing / unexpected"
