"""TFG108 with a changing value: fed to the variable's initializer (no op, not the deprecated ``load``)."""

from __future__ import annotations

import textwrap

import pytest

from tfguard.static.config import Settings
from tfguard.static.engine import check_source

HEADER = textwrap.dedent("""\
    import numpy as np
    import tensorflow.compat.v1 as tf

    BASE = 0.5
    SCALE, OFFSET = 0.1, tf.constant(1.0)
    lr = tf.Variable(0.1, trainable=False)
    other = make_variable()
    with tf.Session() as sess:
        for step in range(100):
            decayed = BASE * 0.9 ** (step // 10)
            {line}
""")


def _fix(line: str):
    findings = [f for f in check_source(HEADER.format(line=line), "t.py", Settings(select=("TFG108",)))
                if f.line == 11]
    assert len(findings) == 1
    return findings[0].fix


@pytest.mark.parametrize("line, value", [
    ("sess.run(tf.assign(lr, decayed))", "decayed"),
    ("sess.run(lr.assign(float(step) / 100))", "float(step) / 100"),
    ("sess.run(tf.assign(lr, np.float32(step)))", "np.float32(step)"),
    ("sess.run(tf.assign(lr, -step))", "-step"),
    ("sess.run(tf.assign(lr, SCALE * step))", "SCALE * step"),
])
def test_a_python_value_is_fed_to_the_initializer_safely(line, value):
    fix = _fix(line)
    assert fix.applicability == "safe", fix.message
    assert fix.edits[0].content == f"sess.run(lr.initializer, {{lr.initializer.inputs[1]: {value}}})"
    assert "load(" not in fix.edits[0].content


@pytest.mark.parametrize("line, why", [
    ("sess.run(tf.assign(lr, some_value(step)))", "`some_value(step)` is a Python or NumPy value"),
    ("sess.run(tf.assign(other, 0.1 * step))", "`other` is a `tf.Variable`"),
    ("sess.run(tf.assign(lr, str(step)))", "`str(step)` is a Python or NumPy value"),
    ("sess.run(tf.assign(lr, [step] * 3))", "`[step] * 3` is a Python or NumPy value"),
    ("sess.run(tf.assign(lr, step * unknown))", "`step * unknown` is a Python or NumPy value"),
])
def test_a_value_not_proven_python_is_an_unsafe_fix_saying_why(line, why):
    fix = _fix(line)
    assert fix.applicability == "unsafe"
    assert why in fix.message


def test_a_rebound_builtin_proves_nothing():
    source = HEADER.replace("BASE = 0.5", "BASE = 0.5\nfloat = tf.constant").format(
        line="sess.run(tf.assign(lr, float(step)))")
    (finding,) = [f for f in check_source(source, "t.py", Settings(select=("TFG108",))) if f.line == 12]
    assert finding.fix is None or finding.fix.applicability == "unsafe"


def test_a_partitioned_get_variable_is_unsafe():
    source = HEADER.replace("lr = tf.Variable(0.1, trainable=False)",
                            "lr = tf.get_variable('lr', [], partitioner=None)").format(
        line="sess.run(tf.assign(lr, 0.5 * step))")
    (finding,) = [f for f in check_source(source, "t.py", Settings(select=("TFG108",))) if f.line == 11]
    assert finding.fix.applicability == "unsafe"


def test_a_result_that_is_used_gets_no_feed_fix():
    fix = _fix("print(sess.run(tf.assign(lr, decayed)))")
    assert fix is None or "initializer" not in fix.message
