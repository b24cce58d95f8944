"""Every rule's ``bad.py`` either gets the fix recorded in tests/data/fixes/<CODE>.py, or its README says why not."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.catalog_paths import REPO_ROOT, relative, rule_folders
from tfguard.static.config import Settings
from tfguard.static.engine import check_source
from tfguard.static.fixes.availability import fix_line, fix_offers
from tfguard.static.fixes.fix_files import Fixer

EXPECTED = REPO_ROOT / "tests" / "data" / "fixes"
ALL_RULES = Settings(select=("ALL",))
FOLDERS = rule_folders()
#: Rule code -> (applicability, what the fix does), as each rule declares it.
AVAILABLE = {code: (offer.applicability, offer.what) for code, offer in fix_offers().items()}


def _code(folder: Path) -> str:
    return folder.name[:6]


def _fix_everything(path: Path):
    fixer = Fixer(ALL_RULES, lambda finding: finding.fix is not None)
    return fixer.plan_file(relative(path))


@pytest.fixture(autouse=True)
def _at_repo_root(monkeypatch):
    monkeypatch.chdir(REPO_ROOT)


@pytest.mark.parametrize("folder", [f for f in FOLDERS if _code(f) in AVAILABLE], ids=lambda f: f.name)
def test_bad_example_gets_the_expected_fix(folder):
    code = _code(folder)
    outcome = _fix_everything(folder / "bad.py")
    assert outcome.fixed == (EXPECTED / f"{code}.py").read_text(encoding="utf-8")
    compile(outcome.fixed, "fixed.py", "exec")
    assert outcome.before[code] > outcome.after[code], f"the fix removes no {code} finding"
    before = Counter((f.code, re.sub(r"\d+", "#", f.message))
                     for f in check_source(outcome.original, relative(folder / "bad.py"), ALL_RULES))
    after = Counter((f.code, re.sub(r"\d+", "#", f.message))
                    for f in check_source(outcome.fixed, relative(folder / "bad.py"), ALL_RULES))
    assert not after - before, "the fixed file reports something new"


@pytest.mark.parametrize("code", sorted(AVAILABLE))
def test_fixing_the_expected_output_again_changes_nothing(code, tmp_path):
    copy = tmp_path / f"{code}.py"
    copy.write_text((EXPECTED / f"{code}.py").read_text(encoding="utf-8"), encoding="utf-8")
    outcome = Fixer(ALL_RULES, lambda finding: finding.fix is not None).plan_file(str(copy))
    assert outcome.fixed == outcome.original


@pytest.mark.parametrize("folder", [f for f in FOLDERS if _code(f) not in AVAILABLE], ids=lambda f: f.name)
def test_rules_without_a_fix_fix_nothing_and_say_why(folder):
    code = _code(folder)
    outcome = _fix_everything(folder / "bad.py")
    assert outcome.before[code] == outcome.after[code]
    section = re.search(r"^## Fix\n(.*?)(?=^## )", (folder / "README.md").read_text(encoding="utf-8"), re.S | re.M)
    assert section and section.group(1).strip().startswith("None: ")
    assert fix_line(code) == "Fix: none"


@pytest.mark.parametrize("folder", [f for f in FOLDERS if _code(f) in AVAILABLE], ids=lambda f: f.name)
def test_readme_fix_section_matches_the_fix(folder):
    applicability = AVAILABLE[_code(folder)][0]
    section = re.search(r"^## Fix\n(.*?)(?=^## )", (folder / "README.md").read_text(encoding="utf-8"), re.S | re.M)
    assert section and section.group(1).strip().startswith(f"{applicability.capitalize()} (")
    assert fix_line(_code(folder)).startswith(f"Fix: {applicability} ")


def test_every_expected_output_belongs_to_a_rule_with_a_fix():
    assert sorted(path.stem for path in EXPECTED.glob("*.py")) == sorted(AVAILABLE)
