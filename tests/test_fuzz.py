"""A bounded, seeded fuzz run: generated programs never crash the checker, nor get TFG000 when CPython compiles them.

bench/fuzz.py runs the same harness for long runs (``--examples 5000`` and more).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("hypothesmith", reason="hypothesmith is not installed (it is in the test extra)")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from fuzz import FuzzReport, check_program, fuzz, tf_flavoured  # noqa: E402

EXAMPLES = 150  # each checked in two forms: 300 programs


@pytest.mark.slow
def test_generated_programs_are_checked_without_error():
    report = fuzz(EXAMPLES, seed=18)
    assert report.programs >= EXAMPLES  # hypothesis may stop early when it runs out of new programs
    assert report.valid > report.programs // 2
    assert report.problems() == [], report.summary()


def test_the_harness_sees_what_it_counts(monkeypatch):
    """Each counter moves on a program made to trip it (a harness that cannot fail would prove nothing)."""
    import fuzz as harness

    report = FuzzReport()
    broken = "import tensorflow as tf\nx = (1,\n"  # broken in Python 3 and 2 alike: TFG000 is right
    check_program("import", broken, report)
    assert (report.programs, report.valid, report.tfg000_on_valid) == (1, 0, [])

    monkeypatch.setattr(harness, "compiles", lambda program: True)  # pretend CPython took it
    check_program("import", broken, report)
    assert [problem.kind for problem in report.tfg000_on_valid] == ["TFG000 on valid code"]

    def explode(source, path):
        raise RuntimeError("boom")

    monkeypatch.setattr(harness, "check_source", explode)
    check_program("import", "x = 1\n", report)
    assert [problem.kind for problem in report.internal_errors] == ["internal error"]
    assert "RuntimeError: boom" in report.internal_errors[0].detail


def test_both_forms_are_valid_python_when_the_program_is():
    for source in ("x = 1\n", "def f():\n    '''doc\nstring'''\n    return 1\n", "", "if x:\n    pass"):
        for form, program in tf_flavoured(source):
            compile(program, form, "exec")
