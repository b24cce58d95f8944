"""Fuzz the checker with generated programs: no internal error, no TFG000 on valid code, no file over 10 s.

Usage::

    python bench/fuzz.py                        # 5,000 generated programs, each checked in two forms
    python bench/fuzz.py --examples 200 --seed 3
    python bench/fuzz.py --save DIR             # also write every failing program to DIR

Programs come from hypothesmith (``from_grammar`` and ``from_node``: any
syntax Python has), each checked in two TF-flavoured forms: after
``import tensorflow as tf`` (so the checker analyses it at all), and inside the
body of a ``for`` loop that calls ``sess.run`` (so it is a session loop and
every rule looks at it).  A run counts the programs checked, those CPython
compiles, internal errors (the checker raised), TFG000 findings on code
CPython compiles, and programs that took over :data:`SLOW_SECONDS`; it exits 1
when any of the last three is not 0.  tests/test_fuzz.py runs a few hundred
with a fixed seed.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
import time
import traceback
import warnings
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(BENCH_DIR))

from tfguard.static.engine import check_source  # noqa: E402

#: A program that takes longer than this to check is reported.
SLOW_SECONDS = 10.0

TF_IMPORT = "import tensorflow as tf\n"
LOOP_HEAD = "import tensorflow as tf\ntrain_op = tf.no_op()\nsess = tf.Session()\nfor step in range(10):\n"
LOOP_TAIL = "    sess.run(train_op)\n"


def tf_flavoured(source: str) -> List[Tuple[str, str]]:
    """Return (form, program) pairs: the source after ``import tensorflow``, and as the body of a session loop."""
    forms = [("import", TF_IMPORT + source)]
    body = textwrap.indent(source, "    ") if source.strip() else ""
    forms.append(("session-loop", LOOP_HEAD + body + ("\n" if body and not body.endswith("\n") else "") + LOOP_TAIL))
    return forms


def compiles(program: str) -> bool:
    """Return whether CPython compiles ``program`` (its warnings silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(program, "<fuzz>", "exec")
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return False
    return True


@dataclass
class Problem:
    """One program the checker mishandled."""

    kind: str
    form: str
    program: str
    detail: str


@dataclass
class FuzzReport:
    """The counts of one fuzz run and the programs behind each problem."""

    programs: int = 0
    valid: int = 0
    with_findings: int = 0
    internal_errors: List[Problem] = field(default_factory=list)
    tfg000_on_valid: List[Problem] = field(default_factory=list)
    slow: List[Problem] = field(default_factory=list)
    slowest_s: float = 0.0
    seconds: float = 0.0

    def problems(self) -> List[Problem]:
        """Return every problem, internal errors first."""
        return [*self.internal_errors, *self.tfg000_on_valid, *self.slow]

    def summary(self) -> str:
        """Return the counts as a few lines of text."""
        return "\n".join([
            f"programs checked          {self.programs} ({self.valid} compile in CPython, "
            f"{self.with_findings} with findings)",
            f"internal errors           {len(self.internal_errors)}",
            f"TFG000 on valid code      {len(self.tfg000_on_valid)}",
            f"over {SLOW_SECONDS:.0f} s                 {len(self.slow)} (slowest {self.slowest_s:.2f} s)",
            f"wall time                 {self.seconds:.0f} s",
        ])


def check_program(form: str, program: str, report: FuzzReport) -> None:
    """Check one program and record what went wrong, if anything."""
    valid = compiles(program)
    report.programs += 1
    report.valid += valid
    started = time.perf_counter()
    try:
        findings = check_source(program, "fuzz.py")
    except Exception:  # noqa: BLE001 - what the fuzzer is looking for
        report.internal_errors.append(Problem("internal error", form, program, traceback.format_exc(limit=-3)))
        return
    finally:
        elapsed = time.perf_counter() - started
        report.slowest_s = max(report.slowest_s, elapsed)
        if elapsed > SLOW_SECONDS:
            report.slow.append(Problem("slow", form, program, f"{elapsed:.1f} s"))
    report.with_findings += bool(findings)
    if valid:
        for finding in findings:
            if finding.code == "TFG000":
                report.tfg000_on_valid.append(Problem("TFG000 on valid code", form, program, finding.message))
                break


def fuzz(examples: int, seed: int, report: Optional[FuzzReport] = None) -> FuzzReport:
    """Check ``examples`` hypothesmith programs (each in both forms) drawn with ``seed``; return the report."""
    import hypothesmith
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st

    report = report or FuzzReport()
    started = time.perf_counter()
    warnings.simplefilter("ignore", SyntaxWarning)  # hypothesmith compiles what it generates: "is" with a literal...

    @hypothesis_seed(seed)
    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck),
              phases=("generate",))
    @given(st.one_of(hypothesmith.from_grammar(), hypothesmith.from_node()))
    def run(source: str) -> None:
        for form, program in tf_flavoured(source):
            check_program(form, program, report)

    run()
    report.seconds = time.perf_counter() - started
    return report


def main(argv: Optional[List[str]] = None) -> int:
    """Run the fuzzer from the command line; exit 1 when the checker mishandled a program."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--examples", type=int, default=5000, help="generated programs (each checked twice)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", metavar="DIR", help="write every failing program to DIR")
    args = parser.parse_args(argv)
    report = fuzz(args.examples, args.seed)
    print(report.summary())
    for index, problem in enumerate(report.problems()):
        print(f"\n-- {problem.kind} ({problem.form}): {problem.detail.strip().splitlines()[-1]}")
        if args.save:
            os.makedirs(args.save, exist_ok=True)
            with open(os.path.join(args.save, f"{index:04d}-{problem.form}.py"), "w", encoding="utf-8") as handle:
                handle.write(problem.program)
    return 1 if report.problems() else 0


if __name__ == "__main__":
    raise SystemExit(main())
