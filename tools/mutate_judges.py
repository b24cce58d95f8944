"""Mutation testing of the runtime's judgement: does a test fail when a judge's code is changed?

    python tools/mutate_judges.py [--module tfguard/runtime/judge/slowdown.py ...] [--limit N] [--seed S]
                                  [--tests tests/runtime/test_retracing.py ...]

Each mutant changes one thing in one judge module (a comparison flipped or made strict, `and` for `or`, a
number nudged, `True` for `False`, an argument of a call dropped, a string emptied) and runs the fast synthetic
tests of the judgement (TESTS: milliseconds each, no TensorFlow). A mutant *lives* when every test still passes.
Mutants run in a forked child of one warm process: the mutated module is executed again in place and every name
other modules imported from it is rebound, so a mutant costs the tests' time only. Prints the score and each
living mutant (file:line, what changed); some living ones may be equivalent (a change that cannot change any
result), which only reading them tells.
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib
import os
import random
import sys
from pathlib import Path
from typing import Iterator, List, Tuple

REPO = Path(__file__).resolve().parent.parent
JUDGE = REPO / "tfguard" / "runtime" / "judge"
MODULES = sorted(str(p.relative_to(REPO)) for p in JUDGE.glob("*.py") if p.name != "__init__.py")
TESTS = ["tests/runtime/test_verdicts.py", "tests/runtime/test_verdict_texts.py", "tests/runtime/test_summary_cost.py",
         "tests/runtime/test_document_schema.py", "tests/runtime/test_judges.py", "tests/runtime/test_retracing.py",
         "tests/runtime/test_retracing_causes.py"]
_FLIP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
         ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
_ARITH = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Div}
Mutant = Tuple[int, str, ast.Module]


def _docstring_ids(tree: ast.Module) -> set:
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body
            and isinstance(node.body[0], ast.Expr)}


def mutants(source: str) -> Iterator[Mutant]:
    """(line, what changed, mutated tree) for every mutation point of one module."""
    tree = ast.parse(source)
    docs = _docstring_ids(tree)
    points = [node for node in ast.walk(tree)]
    for index, node in enumerate(points):
        changes: List[Tuple[str, object]] = []
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in _FLIP:
                    changes.append(("%s -> %s" % (type(op).__name__, _FLIP[type(op)].__name__), ("op", i)))
        elif isinstance(node, ast.BoolOp):
            changes.append(("%s -> other" % type(node.op).__name__, "boolop"))
        elif isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
            changes.append(("%s -> %s" % (type(node.op).__name__, _ARITH[type(node.op)].__name__), "binop"))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            changes.append(("not dropped", "not"))
        elif isinstance(node, ast.Constant) and id(node) not in docs:
            if isinstance(node.value, bool):
                changes.append(("%r -> %r" % (node.value, not node.value), "bool"))
            elif isinstance(node.value, (int, float)):
                changes.append(("%r -> %r" % (node.value, node.value + 1), "number"))
            elif isinstance(node.value, str) and node.value and not node.value.startswith("TFG"):
                changes.append(("string %r emptied" % node.value[:30], "string"))
        elif isinstance(node, ast.Call) and node.keywords:
            for i, keyword in enumerate(node.keywords):
                if keyword.arg is not None:
                    changes.append(("keyword %s= dropped" % keyword.arg, ("keyword", i)))
        elif isinstance(node, ast.Call) and len(node.args) > 1:
            for i in range(len(node.args)):
                if not isinstance(node.args[i], ast.Starred):
                    changes.append(("argument %d dropped" % (i + 1), ("arg", i)))
        for what, how in changes:
            mutated = copy.deepcopy(tree)
            target = [n for n in ast.walk(mutated)][index]
            _apply(target, how)
            yield getattr(node, "lineno", 0), what, mutated


def _apply(node: ast.AST, how: object) -> None:
    if isinstance(how, tuple) and how[0] == "op":
        node.ops[how[1]] = _FLIP[type(node.ops[how[1]])]()
    elif isinstance(how, tuple) and how[0] == "keyword":
        del node.keywords[how[1]]
    elif isinstance(how, tuple) and how[0] == "arg":
        del node.args[how[1]]
    elif how == "boolop":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif how == "binop":
        node.op = _ARITH[type(node.op)]()
    elif how == "not":
        node.op = ast.UAdd()  # `+x` for `not x`: truthiness kept, negation gone
    elif how == "bool":
        node.value = not node.value
    elif how == "number":
        node.value = node.value + 1
    elif how == "string":
        node.value = ""


def _module_name(path: str) -> str:
    return path[:-3].replace("/", ".")


def run_mutant(path: str, tree: ast.Module, tests: List[str]) -> bool:
    """Whether the tests kill the mutant (True: some test failed), in a forked child of this warm process."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            import pytest

            module = sys.modules[_module_name(path)]
            old = dict(vars(module))
            exec(compile(ast.fix_missing_locations(tree), str(REPO / path), "exec"), vars(module))
            new = vars(module)
            swapped = {id(value): new[name] for name, value in old.items() if name in new and new[name] is not value}
            for other in list(sys.modules.values()):
                name = getattr(other, "__name__", "") or ""
                if other is module or not name.startswith(("tfguard", "tests")):
                    continue
                for attr, value in list(vars(other).items()):
                    if id(value) in swapped:
                        setattr(other, attr, swapped[id(value)])
            sys.stdout = sys.stderr = open(os.devnull, "w")
            code = pytest.main(["-q", "-x", "-n", "0", "-p", "no:cacheprovider", "-p", "no:randomly"] + tests)
        except BaseException:
            code = 1
        os._exit(0 if code == 0 else 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) != 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", action="append", help="a judge module (default: all of tfguard/runtime/judge)")
    parser.add_argument("--limit", type=int, default=0, help="a random sample of this many mutants (0: all)")
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--tests", nargs="+", help="the test files to run against each mutant (default: TESTS, the "
                        "synthetic tests of every judge)")
    parser.add_argument("--rerun", metavar="OUTPUT", help="only the mutants an earlier run printed as living (its "
                        "output, same modules, --limit and --seed): after new tests, the score of the same sample")
    args = parser.parse_args()
    os.chdir(REPO)
    sys.path.insert(0, str(REPO))
    tests = [t for t in (args.tests or TESTS) if os.path.exists(t)]
    for path in args.module or MODULES:
        importlib.import_module(_module_name(path))
    import pytest  # noqa: F401 - warm before forking
    for test in tests:
        importlib.import_module(test[:-3].replace("/", "."))
    every = [(path, line, what, tree) for path in (args.module or MODULES)
             for line, what, tree in mutants((REPO / path).read_text(encoding="utf-8"))]
    sampled = len(every)
    if args.limit and args.limit < len(every):
        every = random.Random(args.seed).sample(every, args.limit)
        every.sort(key=lambda m: (m[0], m[1]))
    if args.rerun:
        with open(args.rerun, encoding="utf-8") as handle:
            before = {line.split(None, 1)[1].strip() for line in handle if line.startswith("lived ")}
        sampled = len(every)
        every = [m for m in every if "%s:%d  %s" % (m[0], m[1], m[2]) in before]
        print("rerunning %d of %d mutants (the others were killed before)" % (len(every), sampled))
    lived = []
    for path, line, what, tree in every:
        if not run_mutant(path, tree, tests):
            lived.append("%s:%d  %s" % (path, line, what))
            print("lived  %s:%d  %s" % (path, line, what), flush=True)
    total = sampled if args.rerun else len(every)
    killed = total - len(lived)
    share = 100.0 * killed / max(1, total)
    print("%d mutants, %d killed, %d lived (%.0f%% killed)" % (total, killed, len(lived), share))
    return 0


if __name__ == "__main__":
    sys.exit(main())
