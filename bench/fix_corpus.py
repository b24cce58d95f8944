"""What ``--fix`` does to the project's runnable corpus, proven by running it: applied, equivalent, refused and why.

    python bench/fix_corpus.py [--json OUT]

The corpus is every program of ``tests/data/fix_programs`` and the training programs of ``tests/run/programs``
(with a few steps).  Each is copied three times: as written, after ``tfguard check --fix`` and after
``--fix --unsafe-fixes``; the three are run in one process (``tests/fixes/program_runner.py``: real TensorFlow,
graph mode, fixed seeds, every session under ``tfguard.watch``).  For each program the report gives the fixes
applied (safe, unsafe), whether the fixed program printed the same as the original (*equivalent*), whether its
graph still grows, and each finding left without a fix with its reason.  Needs TensorFlow.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from typing import Dict, List

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = os.path.join(ROOT, "tests", "fixes", "program_runner.py")
#: Folder -> {program: arguments}; a program not named runs with none.
CORPUS = {
    os.path.join(ROOT, "tests", "data", "fix_programs"): {},
    os.path.join(ROOT, "tests", "run", "programs"): {"steady_loop.py": "12", "mnist_style.py": "12"},
}


def _tfguard(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tfguard", *args], capture_output=True, text=True, cwd=ROOT,
                          check=False)


def _copy(work: str) -> Dict[str, List[str]]:
    """Copy the corpus into ``work/<variant>/``; return variant -> program specs (``path::args``)."""
    specs: Dict[str, List[str]] = {}
    for variant in ("original", "safe", "unsafe"):
        target = os.path.join(work, variant)
        os.makedirs(target)
        for folder, arguments in CORPUS.items():
            for name in sorted(os.listdir(folder)):
                if name.endswith(".py") and (not arguments or name in arguments):
                    shutil.copy(os.path.join(folder, name), target)
                    specs.setdefault(variant, []).append(f"{os.path.join(target, name)}::{arguments.get(name, '')}")
    return specs


def measure(work: str) -> List[dict]:
    """Fix and run the corpus in ``work``; return one row per program."""
    specs = _copy(work)
    checked = _tfguard("check", "--no-cache", "--exit-zero", "--format", "json", os.path.join(work, "original"))
    findings = json.loads(checked.stdout)["findings"]
    _tfguard("check", "--no-cache", "--fix", "--exit-zero", os.path.join(work, "safe"))
    _tfguard("check", "--no-cache", "--fix", "--unsafe-fixes", "--exit-zero", os.path.join(work, "unsafe"))
    output = os.path.join(work, "results.json")
    subprocess.run([sys.executable, RUNNER, output, *[s for v in specs.values() for s in v]], cwd=ROOT, check=True,
                   capture_output=True)
    with open(output, encoding="utf-8") as handle:
        results = json.load(handle)
    rows = []
    for spec in specs["original"]:
        path = spec.split("::")[0]
        name = os.path.basename(path)
        mine = [f for f in findings if os.path.basename(f["path"]) == name]
        original = results[spec]
        row = {"program": name, "findings": len(mine),
               "safe": sum(1 for f in mine if f["fix"] and f["fix"]["applicability"] == "safe"),
               "unsafe": sum(1 for f in mine if f["fix"] and f["fix"]["applicability"] == "unsafe"),
               "refused": Counter(f["no_fix"] for f in mine if f["fix"] is None and f["code"] in fix_codes()),
               "original_grows": bool(original["repeated"]), "error": bool(original["error"])}
        for variant in ("safe", "unsafe"):
            fixed_spec = spec.replace(os.sep + "original" + os.sep, os.sep + variant + os.sep)
            fixed = results[fixed_spec]
            changed = _read(fixed_spec) != _read(spec)
            row[variant + "_changed"] = changed
            row[variant + "_equivalent"] = fixed["stdout"] == original["stdout"] and not fixed["error"]
            row[variant + "_grows"] = bool(fixed["repeated"])
            row[variant + "_error"] = bool(fixed["error"])
        rows.append(row)
    return rows


def fix_codes() -> frozenset:
    """The codes whose findings can have a fix: the rules that declare one (``Rule.fix``)."""
    from tfguard.static.fixes.availability import fix_offers

    return frozenset(fix_offers())


def _read(spec: str) -> str:
    with open(spec.split("::")[0], encoding="utf-8") as handle:
        return handle.read()


def render(rows: List[dict]) -> str:
    """Return the report: one line per program, the totals, and the reasons for refused fixes."""
    lines = ["| program | findings | safe fixes | unsafe fixes | refused | --fix: equivalent / still grows "
             "| --unsafe-fixes: same output / still grows |", "|---|---|---|---|---|---|---|"]
    for row in rows:
        safe = ("same" if row["safe_equivalent"] else "DIFFERENT") + (" / grows" if row["safe_grows"] else " / -")
        unsafe = ("same" if row["unsafe_equivalent"] else "changed") + (" / grows" if row["unsafe_grows"] else " / -")
        lines.append(f"| {row['program']} | {row['findings']} | {row['safe']} | {row['unsafe']} | "
                     f"{sum(row['refused'].values())} | {safe if row['safe_changed'] else 'untouched'} | "
                     f"{unsafe if row['unsafe_changed'] else 'untouched'} |")
    fixed = [r for r in rows if r["safe_changed"]]
    lines.append("")
    lines.append(f"programs: {len(rows)}; safe fixes: {sum(r['safe'] for r in rows)} in {len(fixed)} programs, "
                 f"equivalent when run: {sum(r['safe_equivalent'] for r in fixed)}/{len(fixed)}, "
                 f"still growing: {sum(r['safe_grows'] for r in fixed)}; unsafe fixes: "
                 f"{sum(r['unsafe'] for r in rows)}, programs whose output they change: "
                 f"{sum(not r['unsafe_equivalent'] for r in rows if r['unsafe_changed'])}; "
                 f"crashes after a fix: {sum(r['safe_error'] or r['unsafe_error'] for r in rows)}")
    reasons = Counter()
    for row in rows:
        reasons.update(row["refused"])
    lines.append(f"refused: {sum(reasons.values())}")
    lines.extend(f"  {count} x {reason}" for reason, count in reasons.most_common())
    return "\n".join(lines)


def main() -> int:
    """Run the benchmark and print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="also write the rows as JSON to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        rows = measure(work)
    print(render(rows))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump([{**r, "refused": dict(r["refused"])} for r in rows], handle, indent=1)
    failed = [r["program"] for r in rows if r["safe_changed"] and not r["safe_equivalent"]]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
