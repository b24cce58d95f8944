"""A mutation sample of one module: apply small AST mutants one at a time, run the given tests, count survivors.

    python tools/mutation_sample.py tfguard/static/fixes/hoist.py --sample 60 -- tests/fixes/test_hoist_cases.py ...

Mutants (as mutmut makes them, strings left alone): a comparison flipped (``==``/``!=``, ``<``/``>=``, ``in``/
``not in``, ``is``/``is not``), ``and``/``or`` swapped, a ``not`` dropped, an ``if`` test negated, ``True``/
``False`` swapped, an int constant plus one, a ``return value`` made ``return None``.  ``--sample N`` picks N of
them with a fixed seed (``--seed``), so two runs on two versions of the module compare like with like only when
their mutants are the same: give the mutation score with the count.  Each mutant is written over the module (the
original is put back at the end, also on Ctrl-C) and the tests run with ``pytest -x -q -n 0``; a mutant is killed
when they fail.  Run it on a copy of the tree, not one you are editing.  Prints one line per surviving mutant and
the score; ``--json`` writes every mutant's result, and ``--rerun`` that file runs only its survivors (after new tests).
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import random
import subprocess
import sys
from typing import Iterator, List, Tuple

FLIPS = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt,
         ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}


def _docstrings(tree: ast.AST) -> set:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def mutation_points(tree: ast.AST) -> Iterator[Tuple[int, str]]:
    """Yield (index of the node in ``ast.walk`` order, what the mutant does) for every mutant of ``tree``."""
    skip = _docstrings(tree)
    for index, node in enumerate(ast.walk(tree)):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Compare):
            for position, op in enumerate(node.ops):
                if type(op) in FLIPS:
                    yield index, f"line {line}: comparison {position} {type(op).__name__} -> {FLIPS[type(op)].__name__}"
        elif isinstance(node, ast.BoolOp):
            yield index, f"line {line}: {type(node.op).__name__} -> {'Or' if isinstance(node.op, ast.And) else 'And'}"
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield index, f"line {line}: `not` dropped"
        elif isinstance(node, ast.If):
            yield index, f"line {line}: `if` test negated"
        elif isinstance(node, ast.Constant) and id(node) not in skip:
            if isinstance(node.value, bool):
                yield index, f"line {line}: {node.value} -> {not node.value}"
            elif isinstance(node.value, int):
                yield index, f"line {line}: {node.value} -> {node.value + 1}"
        elif isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            yield index, f"line {line}: `return ...` -> `return None`"


def mutate(tree: ast.AST, index: int, what: str) -> str:
    """Return the source of ``tree`` with the mutant at ``index`` applied."""
    tree = copy.deepcopy(tree)
    node = list(ast.walk(tree))[index]
    if isinstance(node, ast.Compare):
        position = int(what.split("comparison ")[1].split()[0])
        node.ops[position] = FLIPS[type(node.ops[position])]()
    elif isinstance(node, ast.BoolOp):
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif isinstance(node, ast.UnaryOp):
        node.op = ast.UAdd()  # `+x` keeps the operand's truth value: `not` dropped
        node.operand = ast.Call(ast.Name("bool", ast.Load()), [node.operand], [])
    elif isinstance(node, ast.If):
        node.test = ast.UnaryOp(ast.Not(), node.test)
    elif isinstance(node, ast.Constant):
        node.value = (not node.value) if isinstance(node.value, bool) else node.value + 1
    elif isinstance(node, ast.Return):
        node.value = ast.Constant(None)
    return ast.unparse(ast.fix_missing_locations(tree))


def _run(tests: List[str]) -> bool:
    """Whether the tests fail (the mutant is killed)."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-n", "0", "-p", "no:cacheprovider", *tests],
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    return done.returncode != 0


def main(argv=None) -> int:
    """Run the sample; exit 0 (the score is the result, not a verdict)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module", help="the module to mutate (a path under the current folder)")
    parser.add_argument("tests", nargs="+", help="the test files or node ids to run against each mutant")
    parser.add_argument("--sample", type=int, default=0, help="how many mutants to try (default: all)")
    parser.add_argument("--seed", type=int, default=40, help="the sample's seed (default 40)")
    parser.add_argument("--json", help="write every mutant's result to this file")
    parser.add_argument("--rerun", metavar="JSON", help="only the mutants an earlier --json run (same module, "
                        "--sample and --seed) left alive: after new tests, the score of the same sample")
    parser.add_argument("--extra", nargs="+", default=[],
                        help="tests run on the mutants the given tests leave alive: the score with them too")
    args = parser.parse_args(argv)
    with open(args.module, encoding="utf-8") as handle:
        original = handle.read()
    tree = ast.parse(original)
    points: List[Tuple[int, str]] = list(mutation_points(tree))
    chosen = sorted(random.Random(args.seed).sample(points, args.sample)) if 0 < args.sample < len(points) else points
    sampled = len(chosen)
    if args.rerun:
        with open(args.rerun, encoding="utf-8") as handle:
            alive = {r["mutant"] for r in json.load(handle) if not r["killed_with_extra"]}
        chosen = [(index, what) for index, what in chosen if what in alive]
        print(f"rerunning {len(chosen)} of {sampled} mutants (the others were killed before)", flush=True)
    results = []
    try:
        for index, what in chosen:
            with open(args.module, "w", encoding="utf-8") as handle:
                handle.write(mutate(tree, index, what))
            killed = _run(args.tests)
            extra = killed
            if not killed and args.extra:
                extra = _run(args.extra)
            results.append({"mutant": what, "killed": killed, "killed_with_extra": extra})
            if not extra:
                print(f"survived: {what}", flush=True)
    finally:
        with open(args.module, "w", encoding="utf-8") as handle:
            handle.write(original)
    for key, label in (("killed", "the tests"), ("killed_with_extra", "with --extra")):
        if key == "killed_with_extra" and not args.extra:
            continue
        total = sampled if args.rerun else len(results)
        killed = sum(r[key] for r in results) + total - len(results)
        print(f"{args.module} ({label}): {killed} of {total} mutants killed "
              f"({100 * killed / max(1, total):.0f}%), {total - killed} survived "
              f"({len(points)} mutants in all, seed {args.seed})")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
