"""``tfguard check --add-noqa``: a noqa comment on every finding's line, so that the next check passes."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import TF


def test_add_noqa_silences_every_finding_and_merges_with_the_comments_there(project, write, run):
    write("a.py", TF
          + "bad()\n"
          + "bad(); meh()  # why it is so\n"
          + "bad(); meh()  # noqa: TFG902\n"
          + "meh()  # NOQA:TFG901\n"
          + "x = [bad(),\n     meh()]\n")
    write("b.py", TF + "bad()\r\nmeh()\r\n")
    status, _, first = run("check", "a.py", "b.py")
    assert status == 1
    status, out, err = run("check", "--add-noqa", ".")
    assert (status, out) == (0, "")
    assert err.splitlines()[-1] == "Added 9 noqa directives."
    assert Path("a.py").read_text().splitlines()[1:] == [
        "bad()  # noqa: TFG901",
        "bad(); meh()  # why it is so  # noqa: TFG901, TFG902",
        "bad(); meh()  # noqa: TFG902, TFG901",
        "meh()  # NOQA:TFG901, TFG902",
        "x = [bad(),  # noqa: TFG901",
        "     meh()]  # noqa: TFG902"]
    assert Path("b.py").read_bytes() == (TF + "bad()  # noqa: TFG901\r\nmeh()  # noqa: TFG902\r\n").encode()
    assert run("check", ".")[:2] == (0, "")
    assert run("check", "--add-noqa", ".")[2].splitlines()[-1] == "Added 0 noqa directives."


def test_a_line_that_cannot_take_a_comment_is_left_and_named(project, write, run):
    source = TF + 'bad(x="""one\ntwo""")\ny = bad() + \\\n    1\n'
    write("a.py", source)
    status, _, err = run("check", "--add-noqa", "a.py")
    assert status == 0 and Path("a.py").read_text() == source
    assert "a.py:2: no noqa added: the line ends inside a string that goes on to the next line" in err
    assert "a.py:4: no noqa added: the line ends in a backslash" in err
    assert err.splitlines()[-1] == "Added 0 noqa directives."


def test_add_noqa_goes_with_no_option_that_reports_or_fixes(project, write, run):
    write("a.py", TF + "bad()\n")
    for option in ("--fix", "--diff", "--statistics"):
        status, out, err = run("check", "--add-noqa", option, "a.py")
        assert (status, out) == (2, "")
        assert err.startswith(f"tfguard: error: --add-noqa cannot be combined with {option}")
    assert Path("a.py").read_text() == TF + "bad()\n"
