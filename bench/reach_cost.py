"""What reaching more of a repository costs: Python 3 check time against an older tfguard, and Python 2 conversion.

    python bench/reach_cost.py --before /path/to/older/tfguard/checkout [--files 600] [--runs 3]

Generates a corpus of TF1 files (``bench/tf1_corpus.py``, Python 3 only), then runs
``tfguard check --no-cache -j 1`` on it with this checkout and with the one given by ``--before``,
alternating, and prints the user CPU time of each run (less disturbed by other jobs of a shared machine
than wall time) and the number of findings, which must be equal.  Then times the line-for-line Python 2
conversion of the bundled Python 2 fixture.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from tf1_corpus import generate_corpus  # noqa: E402


def timed_check(checkout: Path, corpus: str) -> tuple:
    """Run ``tfguard check`` from ``checkout`` on ``corpus``; return (user CPU seconds, findings)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    env = dict(os.environ, PYTHONPATH=str(checkout))
    done = subprocess.run(
        [sys.executable, "-m", "tfguard", "check", "--no-cache", "-j", "1", "--format", "json", "."],
        cwd=corpus, env=env, capture_output=True, text=True,
    )
    used = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
    findings = json.loads(done.stdout)["findings"]
    return used, sorted((f["path"], f["line"], f["code"]) for f in findings)


def main() -> int:
    """Print the figures; exit 1 when the two versions disagree on the corpus."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, type=Path, help="checkout of the tfguard to compare with")
    parser.add_argument("--files", type=int, default=600, help="corpus size passed to the generator")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tfguard-reach-") as folder:
        corpus = os.path.join(folder, "corpus")
        generate_corpus(corpus, args.files, seed=args.seed)
        count = sum(1 for _ in Path(corpus).rglob("*.py"))
        print(f"corpus: {count} files (Python 3), tfguard check --no-cache -j 1, user CPU seconds")
        times = {"before": [], "after": []}
        results = {}
        for _ in range(args.runs):
            for label, checkout in (("before", args.before), ("after", REPO)):
                used, findings = timed_check(checkout, corpus)
                times[label].append(used)
                results[label] = findings
        for label in ("before", "after"):
            runs = "  ".join(f"{t:.2f} s" for t in times[label])
            print(f"{label:<7} {runs}   ({len(results[label])} findings)")
        median = {label: sorted(values)[len(values) // 2] for label, values in times.items()}
        print(f"after / before, medians: {median['after'] / median['before']:.3f}")
    from tfguard.static.python2 import convert

    source = (REPO / "fixtures" / "python2_legacy_trainer.py").read_text(encoding="utf-8")
    started = time.perf_counter()
    convert(source)
    first = time.perf_counter() - started
    started = time.perf_counter()
    for _ in range(20):
        convert(source)
    each = (time.perf_counter() - started) / 20
    lines = source.count("\n")
    print(f"python 2 conversion of fixtures/python2_legacy_trainer.py ({lines} lines): first {first * 1000:.0f} ms "
          f"(loads fissix and its grammar), then {each * 1000:.1f} ms each")
    return 0 if results["before"] == results["after"] else 1


if __name__ == "__main__":
    sys.exit(main())
