"""The house: the static checker, the runtime guard and the command line stay apart, and the runtime's stages stand
on each other, as docs/architecture.md says (its diagram and its "The runtime" block are read here)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Set

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGE = REPO_ROOT / "tfguard"
RUNTIME = PACKAGE / "runtime"
PAGE = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


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


def test_integrations_and_views_stand_on_the_runtime_only_as_the_page_says():
    for folder in ("integrations", "views"):
        line = next(line for line in PAGE.splitlines() if line.startswith("tfguard/%s/" % folder))
        block = PAGE[PAGE.index(line):].split("\ntfguard/", 1)[0]
        assert "stands on runtime/ only" in block, folder
    leaks = {name for folder in ("integrations", "views") for name in _imports_of(folder)
             if name.startswith(("tfguard.static", "tfguard.cli"))}
    assert not leaks
    above_runtime = {name for name in _imports_of("runtime") if name.startswith(("tfguard.integrations",
                                                                                 "tfguard.views"))}
    assert not above_runtime
    views_on_the_plugin = {name for name in _imports_of("views") if name.startswith("tfguard.integrations")}
    assert not views_on_the_plugin


def test_static_side_imports_neither_tensorflow_nor_the_runtime_nor_the_command_line():
    leaks = {name for name in _imports_of("static")
             if name.split(".")[0] == "tensorflow" or name.startswith(("tfguard.runtime", "tfguard.cli"))}
    assert not leaks


def test_output_formats_depend_on_the_result_not_on_the_engine():
    # A reporter formats a CheckResult (tfguard/static/finding.py); it never reaches into the engine that made it.
    leaks = {name for name in _imports_of("static/formats") if name.startswith("tfguard.static.engine")}
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


def _runtime_block() -> Dict[str, List[str]]:
    """The page's "The runtime" block: {"base": [modules], "stages": [folders, in order]}."""
    block = PAGE.split("<!-- diagram: runtime -->", 1)[1].split("```text", 1)[1].split("```", 1)[0]
    found = {}
    for line in block.strip().splitlines():
        key, _, value = line.partition(":")
        found[key.strip()] = [part.strip() for part in re.split(r",|->", value) if part.strip()]
    return found


def _module_of(path: Path) -> str:
    return ".".join(path.relative_to(REPO_ROOT).with_suffix("").parts)


def _runtime_imports(path: Path) -> Set[str]:
    """The tfguard.runtime modules and packages `path` imports, relative imports resolved (none are used)."""
    return {name for name in _imported_modules(path) if name.startswith("tfguard.runtime.")}


def _stage_of(name: str, stages: List[str]) -> int:
    """-1 for the base (tfguard.runtime.X), else the stage's index; names below a stage count as the stage."""
    part = name.split(".")[2]
    return stages.index(part) if part in stages else -1


def test_the_runtime_is_the_base_and_the_stages_the_page_draws():
    block = _runtime_block()
    base, stages = block["base"], block["stages"]
    top = sorted(p.name for p in RUNTIME.iterdir() if p.name != "__pycache__" and not p.name.endswith(".json"))
    assert sorted({p.stem for p in RUNTIME.glob("*.py")} - {"__init__"}) == sorted(base)
    assert sorted(p.name for p in RUNTIME.iterdir() if p.is_dir() and p.name != "__pycache__") == sorted(stages)
    assert len(top) <= 13, top  # modules and folders at the top of tfguard/runtime/, __init__.py included


def test_no_runtime_stage_imports_a_later_stage_and_the_base_imports_none():
    stages = _runtime_block()["stages"]
    crossings = []
    for path in RUNTIME.rglob("*.py"):
        own = _stage_of(_module_of(path), stages) if path.parent != RUNTIME else -1
        for name in _runtime_imports(path):
            target = _stage_of(name, stages)
            if target > own:
                crossings.append("%s imports %s" % (_module_of(path), name))
    assert not crossings, crossings


def test_each_runtime_code_string_is_written_in_at_most_two_modules_one_its_judge():
    """The code of a runtime diagnostic is its declaration's (judge/<name>.py); help texts may name it once more."""
    from tfguard.runtime.judge import all_diagnostics

    where: Dict[str, Set[str]] = {}
    for path in list(PACKAGE.rglob("*.py")):
        if "static" in path.relative_to(PACKAGE).parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                for code in re.findall(r"TFG9\d\d", node.value):
                    where.setdefault(code, set()).add(_module_of(path))
    for code, declared in all_diagnostics().items():
        judge = declared.judge.__module__
        assert judge in where.get(code, set()), code
        assert len(where[code]) <= 2, (code, sorted(where[code]))


def test_each_judge_module_is_named_after_its_diagnostic_and_on_the_page():
    from tfguard.runtime.judge import all_diagnostics

    for declared in all_diagnostics().values():
        name = declared.judge.__module__.rsplit(".", 1)[1]
        assert name == declared.name.replace("-", "_") and "`%s`" % name in PAGE, name


def test_function_level_imports_count_too():
    """A lazy import (inside a function) is an import: the stage and circle checks see it."""
    source = "def later():\n    from tfguard.runtime.run.guard import frozen\n    import tfguard.runtime.verdict\n"
    path = REPO_ROOT / "build" / "lazy_import_probe.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(source, encoding="utf-8")
    try:
        assert {"tfguard.runtime.run.guard", "tfguard.runtime.verdict"} <= set(_imported_modules(path))
    finally:
        path.unlink()


def _module_files() -> Dict[str, Path]:
    """Module name -> file, for every module and package of tfguard (a package is its __init__.py)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        name = _module_of(path)
        found[name[:-len(".__init__")] if name.endswith(".__init__") else name] = path
    return found


def _import_graph(prefixes) -> Dict[str, Set[str]]:
    """Module -> the modules (of those named with `prefixes`) it imports, at its top or in a function."""
    files = _module_files()
    graph: Dict[str, Set[str]] = {}
    for name, path in files.items():
        if not name.startswith(prefixes):
            continue
        graph[name] = {imported for imported in _imported_modules(path)
                       if imported in files and imported.startswith(prefixes) and imported != name}
    return graph


def _circles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """Each import circle found (depth-first), as the modules along it."""
    found, state, stack = [], {}, []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                found.append(stack[stack.index(target):] + [target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def test_no_import_circle_in_the_runtime_and_what_stands_on_it():
    """No runtime module, and no module of the views, the pytest plugin or the language server's runtime
    findings, imports its way back to itself (package faces included: a package's __init__ is a module)."""
    graph = _import_graph(("tfguard.runtime", "tfguard.views", "tfguard.integrations",
                           "tfguard.server.runtime_findings"))
    assert not _circles(graph)


def test_no_import_circle_on_the_static_side_and_the_command_line_lazy_imports_included():
    """No module of the checker, the command line or the language server imports its way back to itself, lazy
    imports included (a package's face counts: ``from tfguard.cli import adoption`` imports ``tfguard.cli``)."""
    circles = _circles(_import_graph(("tfguard.static", "tfguard.cli", "tfguard.server")))
    assert not circles, [" -> ".join(circle) for circle in circles]
