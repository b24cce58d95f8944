"""The rule catalog: one ``rules/<CODE>-<name>/`` folder per registered rule, linted by its own rule.

Each folder holds ``README.md`` (ruff's doc template plus "Seen in"),
``bad.py`` whose offending lines carry ``# expect:`` markers, and ``good.py``
which no rule may flag.
"""

from __future__ import annotations

import ast
import re

import pytest

from tests.catalog_paths import checked_codes, parse_error_folder, relative, rule_folders
from tests.markers import finding_counts, read_markers, restrict
from tfguard.static.config import Settings
from tfguard.static.engine import check_source
from tfguard.static.registry import all_rules

FOLDER_RE = re.compile(r"(?P<code>TFG\d{3})-(?P<name>[a-z0-9]+(?:-[a-z0-9]+)*)")
REQUIRED_SECTIONS = [
    "## What it does",
    "## Why is this bad?",
    "## Example",
    "## Use instead",
    "## Fix",
    "## Seen in",
]
ALL_RULES = Settings(select=("ALL",))

FOLDERS = rule_folders()


def folder_id(folder):
    """Name a parametrized case after its folder."""
    return folder.name


def test_every_registered_rule_has_a_catalog_folder():
    folders = {folder.name for folder in FOLDERS}
    missing = sorted(
        rule.catalog_slug()
        for rule in all_rules().values()
        if rule.catalog_slug() not in folders
    )
    assert missing == [], f"rules without a rules/<CODE>-<name>/ folder: {missing}"


def test_every_catalog_folder_belongs_to_a_registered_rule():
    slugs = {rule.catalog_slug() for rule in all_rules().values()}
    orphans = sorted(folder.name for folder in FOLDERS if folder.name not in slugs)
    assert orphans == [], (
        f"catalog folders that match no registered rule (code and name): {orphans}"
    )


def test_the_parse_error_has_a_page_in_the_rules_template():
    """TFG000 is no registered rule, but SARIF, `tfguard rule TFG000` and the docs site link to its page."""
    folder = parse_error_folder()
    assert sorted(path.name for path in folder.iterdir()) == ["README.md"]
    text = (folder / "README.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "# TFG000 parse-error"
    assert [line for line in lines if line.startswith("## ")] == REQUIRED_SECTIONS[:4]
    for block in re.findall(r"```python\n(.*?)```", text, flags=re.S)[1:]:
        ast.parse(block)
    with pytest.raises(SyntaxError):  # the example is what TFG000 reports
        ast.parse(re.findall(r"```python\n(.*?)```", text, flags=re.S)[0])


@pytest.mark.parametrize("folder", FOLDERS, ids=folder_id)
def test_folder_is_complete(folder):
    assert FOLDER_RE.fullmatch(folder.name), (
        f"{folder.name} is not named <CODE>-<kebab-name>"
    )
    assert sorted(path.name for path in folder.iterdir()) == [
        "README.md",
        "bad.py",
        "good.py",
    ]


@pytest.mark.parametrize("folder", FOLDERS, ids=folder_id)
def test_readme_follows_the_template(folder):
    code, name = FOLDER_RE.fullmatch(folder.name).group("code", "name")
    lines = (folder / "README.md").read_text(encoding="utf-8").splitlines()
    assert lines[0] == f"# {code} {name}"
    summary = next(line for line in lines[1:] if line.strip())
    assert not summary.startswith("#") and summary.rstrip().endswith("."), (
        "a one-sentence summary follows the title"
    )
    headings = [line.rstrip() for line in lines if line.startswith("## ")]
    assert headings == REQUIRED_SECTIONS


@pytest.mark.parametrize("folder", FOLDERS, ids=folder_id)
def test_readme_examples_are_python_blocks_and_reports_are_cited(folder):
    text = (folder / "README.md").read_text(encoding="utf-8")
    sections = dict(
        re.findall(r"^## (.+?)\n(.*?)(?=^## |\Z)", text, flags=re.DOTALL | re.MULTILINE)
    )
    for title in ("Example", "Use instead"):
        blocks = re.findall(r"```python\n(.*?)```", sections[title], flags=re.DOTALL)
        assert blocks, f"## {title} has no ```python block"
        for block in blocks:
            ast.parse(block)
    assert re.search(r"https?://", sections["Seen in"]), "## Seen in cites no public report"
    assert "shared/" not in text, "cite public sources: users have no shared/ folder"


@pytest.mark.parametrize("folder", FOLDERS, ids=folder_id)
def test_examples_are_python3(folder):
    for name in ("bad.py", "good.py"):
        ast.parse(
            (folder / name).read_text(encoding="utf-8"), filename=str(folder / name)
        )


@pytest.mark.parametrize("folder", FOLDERS, ids=folder_id)
def test_bad_example_demonstrates_its_own_rule(folder):
    code = FOLDER_RE.fullmatch(folder.name).group("code")
    markers = read_markers((folder / "bad.py").read_text(encoding="utf-8"))
    assert any(marked == code for _, marked in markers.expected), (
        f"bad.py marks no {code} finding"
    )
    assert not markers.todo, (
        "bad.py states what the rule does today: no todo-expect markers"
    )


@pytest.mark.parametrize("folder", FOLDERS, ids=folder_id)
def test_bad_example_findings_match_its_markers(folder):
    code = FOLDER_RE.fullmatch(folder.name).group("code")
    assert code in all_rules(), f"{code} is not registered"
    path = folder / "bad.py"
    source = path.read_text(encoding="utf-8")
    codes = checked_codes()
    found = restrict(
        finding_counts(check_source(source, relative(path), ALL_RULES)), codes
    )
    expected = restrict(read_markers(source).expected, codes)
    assert sorted(found.items()) == sorted(expected.items())


@pytest.mark.parametrize("folder", FOLDERS, ids=folder_id)
def test_good_example_has_no_finding(folder):
    code = FOLDER_RE.fullmatch(folder.name).group("code")
    assert code in all_rules(), f"{code} is not registered"
    path = folder / "good.py"
    source = path.read_text(encoding="utf-8")
    markers = read_markers(source)
    assert not markers.expected and not markers.todo, "good.py carries no markers"
    findings = check_source(source, relative(path), ALL_RULES)
    assert [f"{f.line}: {f.code} {f.message}" for f in findings] == []
