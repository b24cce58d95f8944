"""Every line a finding's text names is the finding's own line or in its chain (issue 44).

A message that says "`tf.Session()` at line 10" names a line a SARIF viewer, an editor or a scorer can only
place through the JSON ``chain``: this runs every rule's ``bad.py`` and ``good.py``, every fixture script and
every fixture project through the checker and holds each finding to it.  The header of the loop a finding
is in ("the loop at line 12") is the finding's context, not a line to change, and is left out of the chain:
it would add a ``via`` line to nearly every finding.
"""

from __future__ import annotations

import re

import pytest

from tests.catalog_paths import FIXTURES_DIR, fixture_files, relative, rule_folders
from tfguard.static.config import Settings
from tfguard.static.engine import check_paths, check_source

ALL_RULES = Settings(select=("ALL",))
_LOOP_HEADER = re.compile(r"\b(?:loop|comprehension) at line \d+")
_LINES = re.compile(r"\blines? (\d+(?:(?:, and |, | and | or )\d+)*)")
_FILE_LINE = re.compile(r"[\w./-]+\.py:(\d+)")
SCRIPTS = [path for folder in rule_folders() for path in sorted(folder.glob("*.py"))] + fixture_files()
PROJECTS = sorted(path for path in (FIXTURES_DIR / "projects").iterdir() if path.is_dir())


def named_lines(text: str) -> set:
    """Return the line numbers ``text`` names ("line 12", "lines 3, 4 and 9", "other.py:7"), loop headers aside."""
    text = _LOOP_HEADER.sub("", text)
    lines = {int(number) for match in _LINES.finditer(text) for number in re.findall(r"\d+", match.group(1))}
    return lines | {int(match.group(1)) for match in _FILE_LINE.finditer(text)}


def unplaced(findings) -> list:
    """Return (path, line, code, missing lines) for each finding naming a line it does not carry."""
    out = []
    for finding in findings:
        carried = {finding.line} | {link.line for link in finding.chain}
        missing = named_lines(f"{finding.headline} {finding.help}") - carried
        if missing:
            out.append((finding.path, finding.line, finding.code, sorted(missing)))
    return out


def test_named_lines_reads_the_forms_messages_use():
    text = ("`x` (line 33: `a`, counted up at line 36) in the loop at line 5, the sessions at lines 23 and 71, "
            "(and lines 56, 57, …) at pkg/agent.py:12")
    assert named_lines(text) == {33, 36, 23, 71, 56, 57, 12}


def test_a_finding_missing_a_named_line_is_caught():
    from tfguard.static.finding import Finding

    finding = Finding("a.py", 4, 1, 4, 2, "TFG301", "x", "error", "but `tf.Session()` at line 10 is made", "")
    assert unplaced([finding]) == [("a.py", 4, "TFG301", [10])]


@pytest.mark.parametrize("path", SCRIPTS, ids=relative)
def test_every_line_a_finding_names_is_in_its_chain(path):
    findings = check_source(path.read_text(encoding="utf-8"), relative(path), ALL_RULES)
    assert unplaced(findings) == []


@pytest.mark.parametrize("folder", PROJECTS, ids=lambda path: path.name)
def test_every_line_a_project_finding_names_is_in_its_chain(folder):
    assert unplaced(check_paths([str(folder)], ALL_RULES, jobs=1).findings) == []
