"""The house: the static checker, the runtime guard and the command line stay apart as README's Architecture says."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Iterator, Set

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGE = REPO_ROOT / "tfguard"


def _imported_modules(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def _imports_of(folder: str) -> Set[str]:
    return {name for path in (PACKAGE / folder).rglob("*.py") for name in _imported_modules(path)}


def test_runtime_imports_nothing_from_the_static_side_or_the_command_line():
    leaks = {name for name in _imports_of("runtime") if name.startswith(("tfguard.static", "tfguard.cli"))}
    assert not leaks


def test_integrations_and_reports_stand_on_the_runtime_not_on_the_static_side():
    leaks = {name for folder in ("integrations", "reports") for name in _imports_of(folder)
             if name.startswith("tfguard.static")}
    assert not leaks
    above_runtime = {name for name in _imports_of("runtime") if name.startswith(("tfguard.integrations",
                                                                                 "tfguard.reports"))}
    assert not above_runtime
    reports_on_the_plugin = {name for name in _imports_of("reports") if name.startswith("tfguard.integrations")}
    assert not reports_on_the_plugin


def test_static_side_imports_neither_tensorflow_nor_the_runtime_nor_the_command_line():
    leaks = {name for name in _imports_of("static")
             if name.split(".")[0] == "tensorflow" or name.startswith(("tfguard.runtime", "tfguard.cli"))}
    assert not leaks


def test_the_language_server_stands_on_the_static_side_and_only_its_command_imports_it():
    assert not {name for name in _imports_of("server") if name.startswith(("tfguard.cli", "tfguard.integrations"))}
    importers = {path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py")
                 if not path.is_relative_to(PACKAGE / "server")
                 and any(name.startswith("tfguard.server") for name in _imported_modules(path))}
    assert importers == {"cli/server.py"}


def test_commands_import_no_other_command():
    commands = {"check", "rules", "run", "report", "demo", "server"}
    for command in commands:
        imported = set(_imported_modules(PACKAGE / "cli" / f"{command}.py"))
        others = {f"tfguard.cli.{other}" for other in commands - {command}} | {"tfguard.cli.main"}
        assert not imported & others, command


def test_checking_the_fixtures_loads_no_tensorflow_and_no_runtime_module():
    code = ("import sys\nfrom tfguard import check_paths\n"
            "result = check_paths([%r], jobs=1)\n"
            "assert result.findings\n"
            "print(sorted(m for m in sys.modules\n"
            "             if m.split('.')[0] == 'tensorflow' or m.startswith('tfguard.runtime')))"
            % str(REPO_ROOT / "fixtures"))
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
