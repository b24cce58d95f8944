"""The fix trial: small TF1 programs run before and after ``tfguard check --fix``, printed values and files compared.

    python bench/fix_trial.py [FOLDER] [--json OUT] [--python PYTHON]

``FOLDER`` (default ``tests/data/fix_trial``) holds one program per file, each written in the shapes of real TF1
code (loops that count with a named variable, fixed seeds, TF 2.x through ``tensorflow.compat.v1``).  Each program
is copied into its own folder three times: as written, after ``tfguard check --fix`` and after ``--fix
--unsafe-fixes``.  The copies run one after another in one child process (TensorFlow imported once), each in its
own folder as working directory, with Python's, NumPy's and TensorFlow's seeds set to 0 and a fresh default graph.
What is compared: everything the program printed, whether it raised, and every file it left in its folder:
checkpoint data and index files byte for byte, the ``checkpoint`` state file without its timestamps, event files
by their summaries (step, tag, value; wall times and the graph left out), other files byte for byte.  ``.meta``
files are compared by name only: the graph they hold is what a fix changes.

Each program is classed, for ``--fix`` and for ``--unsafe-fixes``:

- **fixed, equivalent**: its text changed, no finding of a rule with a fix is left, and it printed and wrote the
  same;
- **partly fixed**: as above, but findings are left (their reasons are listed);
- **changed**: it printed or wrote something else;
- **broken**: it raised where the original did not;
- **not fixed**: its text did not change; the reasons are the findings' ``no_fix`` (or "only an unsafe fix").

``--python`` runs the programs with another interpreter (the TF 1.15 / Python 3.7 leg's, say:
``--python ~/.cache/tfguard-tf115-*/bin/python``); tfguard itself runs with this one.  The trial exits 1 when a
``--fix`` program is changed or broken, or a finding has neither a fix nor a reason.
Needs TensorFlow.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from typing import Dict, List

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = os.path.join(ROOT, "tests", "data", "fix_trial")
VARIANTS = ("original", "safe", "unsafe")
OPTIONS = {"safe": ("--fix",), "unsafe": ("--fix", "--unsafe-fixes")}
#: The reason a planner gives when it names none (refusal.UNPLANNED): counted as "no reason".
UNPLANNED = "tfguard found no edit it could make here"


def _tfguard(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tfguard", *args], capture_output=True, text=True, cwd=ROOT,
                          check=False)


def _findings(folder: str) -> Dict[str, List[dict]]:
    """Program name -> its findings, as ``tfguard check --format json`` gives them."""
    done = _tfguard("check", "--no-cache", "--exit-zero", "--format", "json", folder)
    found: Dict[str, List[dict]] = {}
    for finding in json.loads(done.stdout)["findings"]:
        found.setdefault(os.path.basename(finding["path"]), []).append(finding)
    return found


# -- running (in the child process) ---------------------------------------------------------------------------

def _outputs(folder: str, program: str) -> Dict[str, object]:
    """What the program left in its folder, each file reduced to what a fix must keep."""
    import tensorflow as tensorflow

    files: Dict[str, object] = {}
    for here, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            path = os.path.join(here, name)
            key = os.path.relpath(path, folder)
            if key == program:
                continue
            if name.startswith("events.out.tfevents."):
                records = []
                for event in tensorflow.compat.v1.train.summary_iterator(path):
                    if event.HasField("summary"):
                        for value in event.summary.value:
                            records.append([event.step, value.tag, value.SerializeToString().hex()])
                files[os.path.join(os.path.dirname(key), "events.out.tfevents.*")] = records
            elif name == "checkpoint":
                with open(path, encoding="utf-8") as handle:
                    files[key] = [line for line in handle.read().splitlines() if "timestamp" not in line]
            elif name.endswith(".meta"):
                files[key] = "(a graph)"
            else:
                with open(path, "rb") as handle:
                    files[key] = hashlib.sha256(handle.read()).hexdigest()
    return files


def run_programs(output: str, paths: List[str]) -> int:
    """Run each program in its own folder, in this process; write what each printed, raised and wrote."""
    import contextlib
    import io
    import random
    import runpy
    import traceback
    import warnings

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np
    import tensorflow as tensorflow

    tf = tensorflow.compat.v1
    tf.disable_eager_execution()
    tf.logging.set_verbosity(tf.logging.ERROR)
    warnings.simplefilter("ignore")
    results = {}
    start = os.getcwd()
    for path in paths:
        folder, program = os.path.split(path)
        os.chdir(folder)
        sys.argv = [path]
        tf.reset_default_graph()
        random.seed(0)
        np.random.seed(0)
        tf.set_random_seed(0)
        captured, error = io.StringIO(), ""
        try:
            with contextlib.redirect_stdout(captured):
                runpy.run_path(path, run_name="__main__")
        except BaseException as exc:  # noqa: BLE001 - the program's failure is the result
            error = f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__
            if not isinstance(exc, (SyntaxError, SystemExit)):
                error += "\n" + traceback.format_exc(limit=-2)
        os.chdir(start)
        results[path] = {"stdout": captured.getvalue(), "error": error, "files": _outputs(folder, program)}
    with open(output, "w", encoding="utf-8") as handle:
        json.dump(results, handle, indent=1)
    return 0


# -- the trial ------------------------------------------------------------------------------------------------

def _copy(source: str, work: str) -> List[str]:
    names = sorted(n for n in os.listdir(source) if n.endswith(".py"))
    for variant in VARIANTS:
        for name in names:
            folder = os.path.join(work, variant, name[:-3])
            os.makedirs(folder)
            shutil.copy(os.path.join(source, name), folder)
    return names


def _reasons(findings: List[dict], variant: str) -> List[str]:
    """Why findings are left: their ``no_fix``, or the unsafe fix ``--fix`` does not apply."""
    reasons = []
    for finding in findings:
        fix = finding.get("fix")
        if fix and fix["applicability"] == "unsafe" and variant == "safe":
            reasons.append(f"{finding['code']}: only an unsafe fix ({fix['message']})")
        elif not fix:
            reasons.append(f"{finding['code']}: {finding.get('no_fix') or 'NO REASON GIVEN'}")
    return reasons


def _text(work: str, variant: str, name: str) -> str:
    with open(os.path.join(work, variant, name[:-3], name), encoding="utf-8", errors="replace") as handle:
        return handle.read()


def measure(source: str, work: str, python: str = sys.executable) -> List[dict]:
    """Fix and run every program of ``source`` in ``work``; return one row per program."""
    names = _copy(source, work)
    before = _findings(os.path.join(work, "original"))
    after = {}
    for variant, options in OPTIONS.items():
        _tfguard("check", "--no-cache", "--exit-zero", "--quiet", *options, os.path.join(work, variant))
        after[variant] = _findings(os.path.join(work, variant))
    paths = [os.path.join(work, v, n[:-3], n) for v in VARIANTS for n in names]
    results_file = os.path.join(work, "results.json")
    subprocess.run([python, os.path.abspath(__file__), "--run", results_file, *paths], cwd=ROOT, check=True)
    with open(results_file, encoding="utf-8") as handle:
        results = json.load(handle)
    rows = []
    for name in names:
        original = results[os.path.join(work, "original", name[:-3], name)]
        mine = before.get(name, [])
        row = {"program": name, "findings": [f["code"] for f in mine],
               "no_reason": sum(1 for f in mine if not f.get("fix") and f.get("no_fix") in (None, "", UNPLANNED)),
               "original_error": original["error"]}
        for variant in OPTIONS:
            fixed = results[os.path.join(work, variant, name[:-3], name)]
            left = after[variant].get(name, [])
            if _text(work, variant, name) == _text(work, "original", name):
                verdict, why = "not fixed", _reasons(mine, variant)
            elif fixed["error"] and not original["error"]:
                verdict, why = "broken", [fixed["error"].splitlines()[0]]
            elif fixed["stdout"] != original["stdout"] or fixed["files"] != original["files"]:
                what = [part for part, differs in (("printed", fixed["stdout"] != original["stdout"]),
                                                   ("files", fixed["files"] != original["files"])) if differs]
                verdict, why = "changed", [" and ".join(what) + " differ"]
            elif left:
                verdict, why = "partly fixed", _reasons(left, variant)
            else:
                verdict, why = "fixed, equivalent", []
            row[variant] = {"verdict": verdict, "why": why}
        rows.append(row)
    return rows


def render(rows: List[dict]) -> str:
    """The report: one line per program, the totals per variant, and the reasons programs are not fixed."""
    lines = ["| program | findings | --fix | --unsafe-fixes |", "|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['program']} | {' '.join(row['findings']) or '-'} | {row['safe']['verdict']} | "
                     f"{row['unsafe']['verdict']} |")
    lines.append("")
    for variant, label in (("safe", "--fix"), ("unsafe", "--fix --unsafe-fixes")):
        counts = Counter(row[variant]["verdict"] for row in rows)
        order = ("fixed, equivalent", "partly fixed", "changed", "broken", "not fixed")
        lines.append(f"{label}: " + ", ".join(f"{counts[v]} {v}" for v in order) + f" (of {len(rows)})")
    lines.append(f"findings with neither a fix nor a reason: {sum(row['no_reason'] for row in rows)}")
    lines.append("")
    lines.append("why a program is not fixed (or changed) by --fix:")
    for row in rows:
        if row["safe"]["verdict"] != "fixed, equivalent":
            for why in dict.fromkeys(row["safe"]["why"]):
                lines.append(f"  {row['program']}: {why}")
    lines.append("")
    lines.append("what --unsafe-fixes changes or breaks:")
    for row in rows:
        if row["unsafe"]["verdict"] in ("changed", "broken"):
            lines.append(f"  {row['program']}: {'; '.join(row['unsafe']['why'])}")
    return "\n".join(lines)


def main(argv=None) -> int:
    """Run the trial and print the report."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--run"]:
        return run_programs(argv[1], argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=DEFAULT, help="the programs (default: tests/data/fix_trial)")
    parser.add_argument("--json", help="also write the rows as JSON to this file")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that runs the programs")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.folder):
        parser.error(f"not a folder: {args.folder}")
    with tempfile.TemporaryDirectory() as work:
        rows = measure(os.path.abspath(args.folder), work, args.python)
    print(render(rows))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=1)
    bad = [r for r in rows if r["safe"]["verdict"] in ("changed", "broken") or r["no_reason"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
