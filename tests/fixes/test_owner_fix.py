"""An op a method builds per call from what ``__init__`` stored is built once, at the end of ``__init__``."""

from __future__ import annotations

import pytest

from tfguard.static.config import Settings
from tfguard.static.engine import check_source

MODEL = """\
import tensorflow as tf


class Model:
    def __init__(self):
        self.x = tf.placeholder(tf.float32, [None, 2])
        self.logits = self.x * 2.0
INIT_MORE
    def predict(self, sess, batch):
        return sess.run(BUILD, {self.x: batch})
MORE

model = Model()
with tf.Session() as sess:
    for step in range(1000):
        print(model.predict(sess, data))
"""


def _finding(build="tf.argmax(self.logits, 1)", more="", init_more=""):
    source = MODEL.replace("BUILD", build).replace("INIT_MORE\n", init_more).replace("MORE\n", more)
    found = [f for f in check_source(source, "t.py", Settings(select=("TFG102",)))]
    assert len(found) == 1, found
    return found[0]


def test_the_op_is_built_once_at_the_end_of_init():
    finding = _finding()
    assert finding.fix.applicability == "safe", finding.fix.message
    insert, use = finding.fix.edits
    assert (insert.line, insert.content) == (8, "        self.argmax_op = tf.argmax(self.logits, 1)\n")
    assert use.content == "self.argmax_op"


@pytest.mark.parametrize("build, more, init_more, why", [
    ("tf.argmax(self.logits, 1)", "\n    def retrain(self):\n        self.logits = self.x * 3.0\n", "",
     "stored elsewhere too"),
    ("tf.argmax(self.logits, 1)", "\n\nclass Bigger(Model):\n    pass\n", "", "derives from `Model`"),
    ("tf.argmax(self.logits, 1)", "", "        if self.x is None:\n            return\n", "may return before"),
    ("tf.argmax(self.logits * batch, 1)", "", "", "reads `batch`"),
    ("tf.nn.dropout(self.logits, 0.5)", "", "", "holds state"),
    ("tf.argmax(self.logits, len(self.names))", "", "", "calls `len`"),
    ("tf.argmax(tf.constant([[1.0]]), 1)", "", "", "reads no attribute"),
    ("tf.argmax(self.later, 1)", "", "", "not stored by `__init__` itself"),
])
def test_no_fix_when_init_could_not_build_the_same_op(build, more, init_more, why):
    finding = _finding(build, more, init_more)
    assert finding.fix is None, finding.fix
    assert "the fix belongs in the method" in finding.no_fix and why in finding.no_fix
