"""What the TF 2 rules (TFG4xx) add to ``tfguard check``: CPU time with and without them, in one process.

Usage::

    python bench/tf2_rules_cost.py                  # 200 generated TF1 files (bench/tf1_corpus.py)
    python bench/tf2_rules_cost.py --extra DIR      # and the .py files under DIR (TF 2 code, say)

Each round checks every file with all rules and with ``--ignore TFG4`` (parsing included, as ``tfguard check``
does), alternating; the minimum of the rounds is reported, so a busy machine inflates both sides alike.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tf1_corpus import generate_corpus  # noqa: E402

from tfguard.static.config import Settings  # noqa: E402
from tfguard.static.engine import check_source  # noqa: E402


def main(argv=None) -> int:
    """Measure and print the cost of the TFG4xx rules."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200, help="generated TF1 files (default 200)")
    parser.add_argument("--extra", help="a folder whose .py files are checked too")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each side (default 3)")
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="tfguard-tf2-cost-")
    paths = [p for p in generate_corpus(folder, files=args.files) if p.endswith(".py")]
    if args.extra:
        paths += sorted(glob.glob(os.path.join(args.extra, "**", "*.py"), recursive=True))
    texts = []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        if "tensorflow" in text:
            texts.append((path, text))
    sides = {"all rules": Settings(select=("ALL",)), "without TFG4": Settings(select=("ALL",), ignore=("TFG4",))}

    def run(settings) -> float:
        start = time.process_time()
        for path, text in texts:
            check_source(text, path, settings)
        return time.process_time() - start

    for settings in sides.values():
        run(settings)  # imports and first-use caches
    best = {name: min(run(settings) for _ in range(args.rounds)) for name, settings in sides.items()}
    with_tf2, without = best["all rules"], best["without TFG4"]
    print(f"{len(texts)} files: {with_tf2:.2f} s CPU with all rules, {without:.2f} s without TFG4 "
          f"({100 * (with_tf2 / without - 1):+.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
