"""The marker reader that the catalog and fixture tests rely on."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.markers import read_markers, restrict

SOURCE = """\
import tensorflow as tf
saver = tf.train.Saver()  # expect: TFG101
op = tf.group(tf.assign(a, 1), tf.assign(b, 2))  # expect: TFG102, TFG108, TFG108
x = tf.constant(1)  # todo-expect: TFG102
y = 2  # a comment that mentions expect without a colon
"""


def test_expect_markers_are_counted_per_line_and_code():
    markers = read_markers(SOURCE)
    assert markers.expected == Counter(
        {(2, "TFG101"): 1, (3, "TFG102"): 1, (3, "TFG108"): 2}
    )


def test_todo_markers_are_kept_apart_from_expect_markers():
    markers = read_markers(SOURCE)
    assert markers.todo == Counter({(4, "TFG102"): 1})
    assert (4, "TFG102") not in markers.expected


@pytest.mark.parametrize(
    "line",
    ["x = 1  # expect: TFG10", "x = 1  # expect:", "x = 1  # todo-expect: TFG101,"],
)
def test_malformed_marker_is_an_error(line):
    with pytest.raises(ValueError, match="line 1: malformed marker code"):
        read_markers(line + "\n")


def test_a_line_may_carry_an_expect_and_a_todo_marker():
    markers = read_markers("d = d.map(f)  # expect: TFG204  # todo-expect: TFG903\n")
    assert markers.expected == Counter({(1, "TFG204"): 1})
    assert markers.todo == Counter({(1, "TFG903"): 1})


def test_restrict_keeps_only_the_given_codes():
    counts = Counter({(1, "TFG101"): 1, (2, "TFG201"): 1})
    assert restrict(counts, {"TFG101"}) == Counter({(1, "TFG101"): 1})
