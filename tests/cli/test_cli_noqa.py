"""Suppression comments seen through the command line."""

from __future__ import annotations

from cli_helpers import TF, located


def test_noqa_comments(project, write, run_json):
    write(
        "a.py",
        TF
        + "bad()  # noqa\n"
        + "bad()  # noqa: TFG901\n"
        + "bad()  # noqa: TFG902\n"
        + "bad(); meh()  # NOQA:TFG902\n"
        + "bad(); meh()  # noqa: TFG901, TFG902\n"
        + "bad()\n",
    )
    status, document = run_json("a.py")
    assert status == 1
    assert located(document) == [("a.py", 4, "TFG901"), ("a.py", 5, "TFG901"), ("a.py", 7, "TFG901")]


def test_file_level_noqa_skips_the_whole_file(project, write, run_json):
    write("a.py", TF + "bad()\n# tfguard: noqa\nmeh()\n")
    write("b.py", TF + "bad()\n")
    status, document = run_json(".")
    assert status == 1
    assert located(document) == [("b.py", 2, "TFG901")]
