"""Terminal escape sequences and bidi marks in file names, in the code a message quotes, and in the run report's
names reach neither the terminal nor the page raw: `check` (every text output) and the runtime report show them as
escapes (tfguard/printable.py)."""

from __future__ import annotations

import json

import pytest

from tests.runtime.html_documents import run_document
from tfguard.printable import printable, printable_line
from tfguard.runtime.output.formats import FORMATS
from tfguard.runtime.output.html.page import render_report
from tfguard.runtime.verdict import RunVerdict

CLEAR, TITLE, RLO, LRI = "\x1b[2J", "\x1b]0;pwned\x07", "\u202e", "\u2066"
HOSTILE = CLEAR + TITLE + RLO + LRI + "\r\x9b"
RAW = ("\x1b", "\x07", "\u202e", "\u2066", "\r", "\x9b")
SOURCE = """\
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 4])
with tf.Session() as sess:
    for step in range(100):
        sess.run(tf.reduce_mean(x, name="%s"))
""" % HOSTILE.replace("\r", "")  # a carriage return would end the line for Python


def _clean(text: str) -> bool:
    return not any(char in text for char in RAW)


def test_printable_escapes_controls_and_bidi_marks_and_keeps_the_rest():
    assert printable("a\x1b[2Jb\u202ec\td\ne \u00e9\u4e2d") == "a\\x1b[2Jb\\u202ec\td\ne \u00e9\u4e2d"
    assert printable_line("a\tb\nc\x00") == "a\\tb\\nc\\x00"


@pytest.mark.parametrize("fmt", ["text", "full", "concise", "grouped", "pylint", "table", "github", "junit",
                                 "json", "sarif", "gitlab"])
def test_every_check_output_shows_them_escaped(empty_project, write, run, fmt):
    name = "tr%sain%s.py" % (CLEAR, RLO)
    write(name, SOURCE)
    status, out, err = run("check", "--no-cache", "--output-format", fmt, name)
    assert status == 1 and _clean(out) and _clean(err), repr(out)
    if fmt in ("json", "sarif", "gitlab"):
        json.loads(out)  # JSON escapes the control characters (\u001b); bidi marks as \u202e
    else:
        assert "\\x1b[2J" in out and "\\u202e" in out


def test_the_full_format_escapes_the_quoted_source_line(empty_project, write, run):
    write("train.py", SOURCE)
    _, out, _ = run("check", "--no-cache", "--output-format", "full", "--color", "always", "train.py")
    assert 'name="\\x1b[2J\\x1b]0;pwned\\x07\\u202e\\u2066\\x9b"' in out and "TFG102" in out
    assert out.count("\x1b") == out.count("\x1b[")  # only tfguard's own colour codes are raw


def _hostile_document():
    document = run_document(200)
    site = document["sessions"][0]["growth_sites"][0]
    site["path"] = "tr" + HOSTILE + "ain.py"
    site["code"] = "loss = tf.reduce_mean(x, name='%s')" % HOSTILE
    document["diagnostics"][0]["headline"] += HOSTILE
    document["command"] = ["train" + HOSTILE + ".py"]
    return document


def _hostile_run():
    return RunVerdict.from_document(_hostile_document())


def test_the_run_report_text_shows_them_escaped():
    text = FORMATS["text"].render(_hostile_run(), 0)
    assert _clean(text) and "\\x1b[2J" in text and "\\u202e" in text


def test_the_run_page_shows_them_escaped_never_raw():
    html = render_report(_hostile_run())
    assert _clean(html) and "\\x1b[2J" in html and "\\u202e" in html


def test_tfguard_report_prints_them_escaped(tmp_path, run):
    (tmp_path / "doc.json").write_text(json.dumps(_hostile_document()), encoding="utf-8")
    status, out, err = run("report", str(tmp_path / "doc.json"), "--html", str(tmp_path / "page.html"))
    assert status == 0 and _clean(out) and _clean(err)
    assert _clean((tmp_path / "page.html").read_text(encoding="utf-8"))
