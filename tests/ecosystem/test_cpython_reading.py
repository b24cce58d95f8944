"""Every file Python reads is read: the bytes CPython accepts in source are accepted, those it refuses refused.

CPython decodes the tokens it uses, never a comment's text: a file declaring utf-8 with GBK bytes in its
comments compiles (a textbook's exercises), and must be checked, not TFG000. A binary file named ``.py``
is "binary file"; a syntax error in a file that never mentions TensorFlow is TFG000, as ruff reports it.
"""

from __future__ import annotations

import pytest

from tfguard.static.engine import check_bytes
from tfguard.static.parsing import ParseFailure, decode_source

GBK = "你好，世界".encode("gbk")  # not valid UTF-8
LOOP = (b"import tensorflow as tf\nsess = tf.Session()\nfor step in range(100):\n"
        b"    x = tf.reduce_sum(tf.ones([3]))\n    sess.run(x)\n")

#: (name, bytes): each is judged by CPython's compile() in the test, never by a table written here.
SAMPLES = [
    ("utf-8 cookie, GBK in a comment line", b"# -*- coding: utf-8 -*-\n# " + GBK + b"\n" + LOOP),
    ("utf-8 cookie, GBK after code", b"# coding=utf-8\n" + LOOP + b"x = 1  # " + GBK + b"\n"),
    ("no cookie, GBK on line 1", b"# " + GBK + b"\n" + LOOP),
    ("no cookie, GBK on line 2", b"#!/usr/bin/env python\n# " + GBK + b"\n" + LOOP),
    ("latin-1 cookie on line 2", b"# " + GBK + b"\n# coding: latin-1\n" + LOOP),
    ("GBK in a string", b"# coding: utf-8\n" + LOOP + b"s = '" + GBK + b"'\n"),
    ("GBK in a name", b"# coding: utf-8\n" + LOOP + GBK + b" = 1\n"),
    ("GBK in a docstring", b'"""' + GBK + b'"""\n' + LOOP),
    ("gbk cookie, GBK in a string", b"# coding: gbk\n" + LOOP + b"s = '" + GBK + b"'\n"),
    ("BOM and a latin-1 cookie", b"\xef\xbb\xbf# coding: latin-1\n" + LOOP),
    ("BOM, GBK in a comment", b"\xef\xbb\xbf# " + GBK + b"\n" + LOOP),
    ("lone continuation byte in a comment", b"# coding: utf-8\n" + LOOP + b"# \x80\xff\n"),
]


def _cpython_compiles(data: bytes) -> bool:
    try:
        compile(data, "<sample>", "exec", dont_inherit=True)
    except SyntaxError:
        return False
    return True


@pytest.mark.parametrize("name, data", SAMPLES, ids=[name for name, _ in SAMPLES])
def test_tfguard_reads_what_cpython_compiles_and_refuses_what_it_refuses(name, data):
    codes = [f.code for f in check_bytes(data, "sample.py").findings]
    if _cpython_compiles(data):
        assert "TFG000" not in codes and "TFG102" in codes  # read and checked: the loop's op is found
    else:
        assert codes == ["TFG000"]


def test_the_refused_byte_is_the_one_reported():
    data = b"# coding: utf-8\n# " + GBK + b" (a comment: CPython never decodes it)\ns = 'ok " + GBK + b"'\n"
    with pytest.raises(ParseFailure) as failure:
        decode_source(data)
    assert (failure.value.line, failure.value.column) == (3, 9)
    assert str(failure.value).startswith("invalid utf-8 byte sequence")


def test_a_commented_file_keeps_its_columns_and_comments_are_replaced_only():
    data = b"# coding: utf-8\nx = 1  # " + GBK + b"\n"
    assert decode_source(data) == "# coding: utf-8\nx = 1  # " + GBK.decode("utf-8", "replace") + "\n"


@pytest.mark.parametrize("data", [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", b"import tensorflow\n\x00\xff\xfe\n",
                                  "import tensorflow as tf\n".encode("utf-16")])
def test_a_binary_file_named_py_is_binary_not_an_encoding_problem(data):
    findings = check_bytes(data, "image.py").findings
    assert [f.code for f in findings] == ["TFG000"]
    assert "binary file" in findings[0].message and "encoding" not in findings[0].message


@pytest.mark.parametrize("data, line", [(b"def f(:\n    pass\n", 1), (b"x = 1\nif x\n    y = 2\n", 2)])
def test_a_syntax_error_in_a_file_without_tensorflow_is_tfg000(data, line):
    findings = check_bytes(data, "util.py").findings
    assert [(f.code, f.line) for f in findings] == [("TFG000", line)]


@pytest.mark.parametrize("data", [b"x = 1\n", b"print 'a Python 2 file'\n", b"# tfguard: noqa\ndef f(:\n",
                                  b"def f(:  # noqa: TFG000\n    pass\n", b"# " + GBK + b"\nx = 1\n"])
def test_a_file_without_tensorflow_that_compiles_or_is_silenced_passes(data):
    assert check_bytes(data, "util.py").findings == ()
