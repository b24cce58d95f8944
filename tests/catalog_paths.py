"""Where the rule catalog and the fixture scripts live, and which codes are checked today."""

from __future__ import annotations

from pathlib import Path

from tfguard.static.registry import PARSE_ERROR_CODE, PARSE_ERROR_NAME, all_rules

REPO_ROOT = Path(__file__).resolve().parent.parent
RULES_DIR = REPO_ROOT / "rules"
FIXTURES_DIR = REPO_ROOT / "fixtures"


def rule_folders() -> list[Path]:
    """Return the static rules' catalog folders, ``rules/<CODE>-<name>/``, sorted (not TFG000's page)."""
    return sorted(path for path in RULES_DIR.iterdir()
                  if path.is_dir() and path not in runtime_folders() and path != parse_error_folder())


def parse_error_folder() -> Path:
    """Return the page of the built-in TFG000 parse error, ``rules/TFG000-parse-error/``: README.md only."""
    return RULES_DIR / f"{PARSE_ERROR_CODE}-{PARSE_ERROR_NAME}"


def runtime_folders() -> list[Path]:
    """Return the pages of the runtime diagnostics (TFG901-TFG909), ``rules/<CODE>-<name>/``: README.md only."""
    from tfguard.runtime.judge import all_diagnostics

    return sorted(path for path in RULES_DIR.iterdir() if path.is_dir() and path.name[:6] in all_diagnostics())


def fixture_files() -> list[Path]:
    """Return the fixture scripts, ``fixtures/*.py``, sorted."""
    return sorted(FIXTURES_DIR.glob("*.py"))


def checked_codes() -> frozenset[str]:
    """Return the codes that markers are compared on: every registered rule, and TFG000.

    A marker for a rule that does not exist yet is ignored until the rule is
    registered; from then on the marker must be right.
    """
    return frozenset({PARSE_ERROR_CODE, *all_rules()})


def relative(path: Path) -> str:
    """Return ``path`` relative to the repository root, in POSIX form."""
    return path.relative_to(REPO_ROOT).as_posix()
