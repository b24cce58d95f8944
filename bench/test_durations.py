"""Where the test suite's time goes: the slowest tests and the time per folder, with the machine's load.

Runs pytest (any arguments after ``--`` are passed on, e.g. ``-- -n 0`` or ``-- tests/runtime``) with a JUnit XML
report, or reads one written before (``--xml FILE``), and prints:

- the suite's wall time and the load average (1 min) before and after, since the machine may be shared;
- the slowest ``--top`` tests (setup, call and teardown together, as JUnit records them);
- per folder of tests/: the number of tests, the sum of their times and its share of the total. Under
  pytest-xdist the sum is spread over the workers, so compare shares, not sums with wall time.

    python bench/test_durations.py [--top 30] [--xml FILE] [-- PYTEST_ARGS...]

Nothing is asserted: the figures are for reading (a timed assertion would fail on a busy machine).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from typing import Dict, List, Optional, Sequence, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_average() -> Optional[float]:
    """The 1-minute load average, or None where the platform has none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def read_junit(path: str) -> List[Tuple[str, str, float, str]]:
    """(test id, folder, seconds, outcome) of every test case in a JUnit XML report."""
    cases = []
    for case in ElementTree.parse(path).iter("testcase"):
        classname, name = case.get("classname", ""), case.get("name", "")
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
            elif child.tag == "skipped" and outcome == "passed":
                outcome = "skipped"
        cases.append((classname + "::" + name, folder_of(classname), float(case.get("time", 0.0)), outcome))
    return cases


def folder_of(classname: str) -> str:
    """The folder of tests/ a JUnit classname (``tests.run.test_cli.TestX``) lives in: the longest prefix of its
    dotted parts that is a folder of the checkout."""
    parts = classname.split(".")
    folder = parts[0]
    for end in range(len(parts), 0, -1):
        if os.path.isdir(os.path.join(ROOT, *parts[:end])):
            folder = "/".join(parts[:end])
            break
    return folder


def summarize(cases: Sequence[Tuple[str, str, float, str]], top: int) -> str:
    """The slowest `top` tests and the per-folder table, as text."""
    lines = []
    total = sum(seconds for _, _, seconds, _ in cases) or 1e-9
    outcomes: Dict[str, int] = defaultdict(int)
    for _, _, _, outcome in cases:
        outcomes[outcome] += 1
    lines.append("%d tests (%s); sum of test times %.1f s" % (
        len(cases), ", ".join("%d %s" % (n, o) for o, n in sorted(outcomes.items())), total))
    lines.append("")
    lines.append("slowest %d tests:" % top)
    for test_id, _, seconds, outcome in sorted(cases, key=lambda c: -c[2])[:top]:
        lines.append("  %7.2f s  %s%s" % (seconds, test_id, "" if outcome == "passed" else "  [%s]" % outcome))
    lines.append("")
    lines.append("per folder:")
    folders: Dict[str, List[float]] = defaultdict(list)
    for _, folder, seconds, _ in cases:
        folders[folder].append(seconds)
    for folder, times in sorted(folders.items(), key=lambda f: -sum(f[1])):
        lines.append("  %-22s %5d tests %8.1f s %5.1f%%" % (folder, len(times), sum(times), 100 * sum(times) / total))
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the suite (or read a report) and print where its time went; exits with pytest's status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    passed_on: List[str] = []
    if "--" in argv:
        passed_on = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=30, help="how many of the slowest tests to list")
    parser.add_argument("--xml", help="read this JUnit XML report instead of running pytest")
    args = parser.parse_args(argv)
    status = 0
    if args.xml:
        path = args.xml
    else:
        path = os.path.join(tempfile.mkdtemp(prefix="tfguard-durations-"), "junit.xml")
        before = load_average()
        start = time.perf_counter()
        status = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                  "--junitxml", path] + passed_on, cwd=ROOT)
        wall = time.perf_counter() - start
        print("\nwall time %.1f s; load average (1 min) %s before, %s after; %d CPUs" % (
            wall, _load_text(before), _load_text(load_average()), os.cpu_count() or 0))
        if not os.path.exists(path):
            return status or 1
    print(summarize(read_junit(path), args.top))
    return status


def _load_text(value: Optional[float]) -> str:
    return "?" if value is None else "%.2f" % value


if __name__ == "__main__":
    sys.exit(main())
