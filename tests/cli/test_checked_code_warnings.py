"""The checked code's own warnings (``SyntaxWarning: "is" with a literal``...) never reach the user's terminal,
whether tfguard parses the file, plans a fix (which compiles the fixed text) or records a baseline."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: Compiling these lines warns in every supported Python ("is" with a literal; an invalid escape sequence).
WARNS = 'step = 1\nif step is 1:\n    pass\npattern = "\\d+"\n'


@pytest.mark.parametrize("args", [
    ("--no-cache",),
    ("--no-cache", "--diff"),
    ("--no-cache", "--fix"),
    ("--no-cache", "--write-baseline", "baseline.json"),
    ("--no-cache", "--py2", "on"),
])
def test_no_warning_of_the_checked_code_leaks(empty_project, run, args):
    bad = (REPO / "rules" / "TFG103-initializer-in-session-loop" / "bad.py").read_text()
    Path("train.py").write_text(bad + WARNS)
    Path("old.py").write_text('import tensorflow as tf\nprint "python 2"\n' + WARNS)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.warns(SyntaxWarning):  # the lines do warn when compiled outside tfguard
            compile(WARNS, "<probe>", "exec")
        caught.clear()
        status, _, err = run("check", *args, ".")
    assert status in (0, 1) and "Warning" not in err, err
    assert [str(w.message) for w in caught] == []
