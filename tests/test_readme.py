"""README.md and the docs site stay true to the code: the rule table comes from the registry."""

import re
from pathlib import Path

from tfguard.cli.rules import rule_rows, rules_markdown

README = Path(__file__).resolve().parent.parent / "README.md"
DOCS = README.parent / "docs"


def readme_text() -> str:
    return README.read_text(encoding="utf-8")


def test_rule_table_matches_the_registry():
    match = re.search(r"<!-- rules-table:start[^>]*-->\n(.*?)<!-- rules-table:end -->", readme_text(), re.S)
    assert match, "README.md lost its rules-table markers"
    assert match.group(1).strip() == rules_markdown(rule_rows()), (
        "README rule table is stale: paste the output of `python -m tfguard rules --format markdown`"
    )


def test_readme_starts_with_a_virtual_environment_then_two_setup_commands():
    text = readme_text()
    block = re.search(r"## Set up\n\n(?:[^`#][^\n]*\n)*\n?(?:<!-- commands -->\n)?```console\n(.*?)```", text, re.S)
    assert block, "README.md must open with a '## Set up' console block"
    venv, *commands = [line for line in block.group(1).splitlines() if line.strip()]
    assert venv.startswith("python3 -m venv .venv && . .venv/bin/activate")  # Debian's Python refuses pip install
    assert len(commands) == 2
    assert commands[0].startswith('pip install ".[demo]" && tfguard demo')
    assert commands[1] == 'pip install ".[test]" && pytest && tools/tf1_leg.sh'
    assert text.index("## Set up") < text.index("## Rules")


def test_readme_leaves_the_contributor_material_to_contributing():
    setup = readme_text().split("## Set up", 1)[1].split("\n## ", 1)[0]
    assert ".ci/run" not in setup and "tf1_leg.sh" not in setup.split("```", 2)[2]
    assert "protobuf<3.21" in setup
    contributing = (README.parent / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert ".ci/run" in contributing and "tools/tf1_leg.sh" in contributing


def test_every_command_line_option_is_documented():
    import argparse

    from tfguard.cli.main import build_parser

    parser = build_parser()
    subcommands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    text = readme_text() + "".join(page.read_text(encoding="utf-8") for page in sorted(DOCS.rglob("*.md")))
    missing = []
    for name, sub in subcommands.choices.items():
        for action in sub._actions:
            for option in action.option_strings:
                if option.startswith("--") and option != "--help" and f"`{option}" not in text:
                    missing.append(f"tfguard {name} {option}")
    assert not missing, f"neither README.md nor docs/ mention: {missing}"


def test_the_test_dependencies_contributing_lists_are_those_of_the_test_extra():
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    project = tomllib.loads((README.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extra = project["optional-dependencies"]
    wanted = [re.split(r"[<>=!~;\[ ]", requirement)[0] for requirement in extra["test"]]
    contributing = (README.parent / "CONTRIBUTING.md").read_text(encoding="utf-8")
    listed = re.search(r"the `test` extra of `pyproject.toml`: ([^)]*)\)", contributing.replace("\n", " "))
    assert listed, "CONTRIBUTING's set-up names the test extra"
    assert [name.strip() for name in listed.group(1).split(",")] == wanted


def test_readme_is_a_landing_page_with_the_licence():
    text = readme_text()
    assert len(text.splitlines()) < 300, "README.md is the landing page: move details into docs/"
    assert "## Licence" in text and "[Apache License 2.0](LICENSE)" in text
    assert (README.parent / "LICENSE").read_text(encoding="utf-8").split()[:4] == ["Apache", "License", "Version",
                                                                                  "2.0,"]
    for page in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (README.parent / page).is_file(), f"README links to a missing page: {page}"
