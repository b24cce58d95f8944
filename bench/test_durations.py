"""Where the test suite's time goes: the slowest tests and the time per folder, with the machine's load.

Runs pytest (any arguments after ``--`` are passed on, e.g. ``-- -n 0`` or ``-- tests/runtime``) with a JUnit XML
report, or reads one written before (``--xml FILE``), and prints:

- the suite's wall time and the load average (1 min) before and after, since the machine may be shared;
- the slowest ``--top`` tests (setup, call and teardown together, as JUnit records them);
- per folder of tests/: the number of tests, the sum of their times and its share of the total. Under
  pytest-xdist the sum is spread over the workers, so compare shares, not sums with wall time.

- with ``--count-tf``: the child processes that imported TensorFlow, per folder and the tests that start the most
  (bench/tf_children/sitecustomize.py counts them), and the command lines that more than one test ran. A new
  interpreter that imports TensorFlow costs ~4 s on 2 cores, so this count is the suite's cost in a figure that does
  not depend on how busy the machine is: compare it before and after a change to the tests.

    python bench/test_durations.py [--top 30] [--xml FILE] [--count-tf] [--tf-log FILE] [-- PYTEST_ARGS...]

The records under bench/records/ are its output on the whole suite (``python bench/test_durations.py --count-tf``,
the README's test command with its defaults: ``-n auto --dist worksteal``).

Nothing is asserted: the figures are for reading (a timed assertion would fail on a busy machine).
"""

from __future__ import annotations

import argparse
import os
import re
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
    parser.add_argument("--count-tf", action="store_true",
                        help="count the child processes that import TensorFlow, per folder and per test")
    parser.add_argument("--tf-log", help="read this log of bench/tf_children (with --xml) or write it here")
    args = parser.parse_args(argv)
    tf_log = args.tf_log or (os.path.join(tempfile.mkdtemp(prefix="tfguard-tf-children-"), "children.log")
                             if args.count_tf else None)
    status = 0
    if args.xml:
        path = args.xml
        if args.count_tf and not args.tf_log:
            parser.error("--count-tf with --xml needs --tf-log FILE (the log of the run that wrote the report)")
    else:
        path = os.path.join(tempfile.mkdtemp(prefix="tfguard-durations-"), "junit.xml")
        before = load_average()
        start = time.perf_counter()
        env = dict(os.environ)
        if tf_log:
            if os.path.exists(tf_log):
                os.remove(tf_log)
            env["TFG_TF_CHILDREN_LOG"] = tf_log
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.join(ROOT, "bench", "tf_children"),
                                                              env.get("PYTHONPATH")]))
        status = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                  "--junitxml", path] + passed_on, cwd=ROOT, env=env)
        wall = time.perf_counter() - start
        print("\nwall time %.1f s; load average (1 min) %s before, %s after; %d CPUs" % (
            wall, _load_text(before), _load_text(load_average()), os.cpu_count() or 0))
        if not os.path.exists(path):
            return status or 1
    print(summarize(read_junit(path), args.top))
    if tf_log:
        print("\n" + tf_children(read_tf_log(tf_log) if os.path.exists(tf_log) else [], args.top))
    return status


def read_tf_log(path: str) -> List[Tuple[str, Tuple[str, ...]]]:
    """(test id, command line) of every child process in a log of bench/tf_children/sitecustomize.py."""
    import json

    children = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            test_id, _, command = line.rstrip("\n").partition("\t")
            children.append((test_id, tuple(json.loads(command))))
    return children


def _same_program(command: Sequence[str]) -> Tuple[str, ...]:
    """A command line with the test's own temporary folders left out, so that two tests' runs of one program
    compare equal."""
    return tuple(re.sub(r"/tmp/pytest-of-[^/]+/pytest-\d+/[^/]+/[^/]+", "<tmp>", part) for part in command)


def tf_children(children: Sequence[Tuple[str, Tuple[str, ...]]], top: int) -> str:
    """The child processes that imported TensorFlow: per folder, the tests that start the most, and the command
    lines more than one test ran, as text."""
    lines = ["%d child processes imported TensorFlow" % len(children), "", "per folder:"]
    per_folder: Dict[str, int] = defaultdict(int)
    per_test: Dict[str, int] = defaultdict(int)
    by_command: Dict[Tuple[str, ...], set] = defaultdict(set)
    for test_id, command in children:
        path = test_id.split("::")[0]
        per_folder[os.path.dirname(path) or path] += 1
        per_test[test_id] += 1
        by_command[_same_program(command)].add(test_id)
    for folder, count in sorted(per_folder.items(), key=lambda f: (-f[1], f[0])):
        lines.append("  %-22s %5d" % (folder, count))
    lines += ["", "tests that start the most (top %d):" % top]
    for test_id, count in sorted(per_test.items(), key=lambda t: (-t[1], t[0]))[:top]:
        lines.append("  %3d  %s" % (count, test_id))
    shared = [(command, tests) for command, tests in by_command.items() if len(tests) > 1]
    lines += ["", "command lines that more than one test ran: %d" % len(shared)]
    for command, tests in sorted(shared, key=lambda s: -len(s[1])):
        lines.append("  %s" % " ".join(part.replace(ROOT, ".") for part in command)[:160])
        lines += ["      %s" % test_id for test_id in sorted(tests)]
    return "\n".join(lines)


def _load_text(value: Optional[float]) -> str:
    return "?" if value is None else "%.2f" % value


if __name__ == "__main__":
    sys.exit(main())
