"""An op built from a Python value the loop changes is built once from a placeholder the run feeds (issue 40)."""

from __future__ import annotations

import textwrap

import pytest

from tfguard.static.config import Settings
from tfguard.static.engine import check_source
from tfguard.static.fixes.fix_files import Fixer

ALL = Settings(select=("ALL",))
PROGRAM = """\
import numpy as np
import tensorflow as tf

logits = tf.constant([1.0, 2.0])
lr = tf.Variable(0.1)
x = tf.placeholder(tf.float32, [2])
with tf.Session() as sess:
    for epoch in range(1000):
        temperature = 1.0 / (1 + epoch)
        {line}
"""


def _finding(line: str):
    found = [f for f in check_source(PROGRAM.format(line=line), "t.py", ALL) if f.line == 10]
    assert len(found) == 1, found
    return found[0]


def _fixed(tmp_path, line: str) -> str:
    path = tmp_path / "t.py"
    path.write_text(PROGRAM.format(line=line), encoding="utf-8")
    return Fixer(ALL, lambda f: f.fix is not None and f.fix.applicability == "safe").plan_file(str(path)).fixed


def test_an_operand_the_loop_computes_is_fed_through_a_placeholder(tmp_path):
    line = "print(sess.run(tf.nn.softmax(logits / temperature)))"
    assert _finding(line).fix.applicability == "safe"
    fixed = _fixed(tmp_path, line)
    assert ("    temperature_ph = tf.placeholder(logits.dtype.base_dtype, [])\n"
            "    softmax_op = tf.nn.softmax(logits / temperature_ph)\n    for epoch in range(1000):\n") in fixed
    assert "print(sess.run(softmax_op, feed_dict={temperature_ph: temperature}))" in fixed


def test_the_value_joins_a_feed_dict_literal(tmp_path):
    fixed = _fixed(tmp_path, "print(sess.run(x * (epoch + 1), {x: [1.0, 2.0]}))")
    assert "    value_ph = tf.placeholder(x.dtype.base_dtype, [])\n    product = x * (value_ph)\n" in fixed
    assert "print(sess.run(product, {value_ph: epoch + 1, x: [1.0, 2.0]}))" in fixed


def test_an_assign_whose_result_is_used_feeds_the_variable_shaped_placeholder(tmp_path):
    fixed = _fixed(tmp_path, "print(sess.run(tf.assign(lr, 0.5 ** epoch)))")
    assert "    value_ph = tf.placeholder(lr.dtype.base_dtype, lr.get_shape())\n" in fixed
    assert "    assign_op = tf.assign(lr, value_ph)\n" in fixed
    assert "print(sess.run(assign_op, feed_dict={value_ph: 0.5 ** epoch}))" in fixed


@pytest.mark.parametrize("line, why", [
    ("print(sess.run(tf.argmax(logits, epoch % 2)))", "a placeholder carries only"),  # not an arithmetic operand
    ("print(sess.run(tf.nn.softmax(logits / temperature), feed))", "not a dict"),  # a feed it cannot extend
    ("print(sess.run(logits * np.ones(2) * epoch))", "a placeholder carries only"),  # NumPy array: shape unknown
    ("print(sess.run(logits * tf.constant(float(epoch))))", "changes inside the loop"),  # a tensor of the loop
])
def test_no_feed_fix_when_a_placeholder_cannot_carry_the_value(line, why):
    finding = _finding(line)
    assert finding.fix is None or finding.fix.applicability == "unsafe" or "Feed" not in finding.fix.message, \
        finding.fix
    if finding.fix is None:
        assert why in finding.no_fix


def test_a_value_tfguard_cannot_read_makes_the_feed_unsafe():
    source = PROGRAM.replace("temperature = 1.0 / (1 + epoch)", "temperature = schedule(epoch)")
    found = [f for f in check_source(source.format(line="print(sess.run(logits * temperature))"), "t.py", ALL)
             if f.line == 10]
    assert found[0].fix.applicability == "unsafe"
    assert "cannot tell that `temperature` is a Python number" in found[0].fix.message


def test_the_feed_is_not_offered_under_a_with_block():
    source = PROGRAM.format(line="with open('log') as log:\n            print(sess.run(logits * temperature))")
    found = [f for f in check_source(source, "t.py", ALL) if f.code == "TFG102"]
    assert all(f.fix is None for f in found)


def test_fixing_twice_changes_nothing(tmp_path):
    first = _fixed(tmp_path, "print(sess.run(tf.nn.softmax(logits / temperature)))")
    path = tmp_path / "again.py"
    path.write_text(first, encoding="utf-8")
    assert Fixer(ALL, lambda f: f.fix is not None).plan_file(str(path)).fixed == first
    compile(textwrap.dedent(first), "t.py", "exec")


SCRIPT = """\
import tensorflow as tf

logits = tf.constant([1.0, 2.0])
temperature = 1.0


class Schedule:
    def __init__(self):
        self.temperature = 2.0

    def step(self):
        self.temperature *= STEP


def anneal(epoch):
    global temperature
    temperature = 1.0 / (1 + epoch)


sched = Schedule()
with tf.Session() as sess:
    for epoch in range(1000):
        anneal(ARGUMENT)
        sched.step()
        print(sess.run(logits / temperature), sess.run(logits * sched.temperature))
"""


def _fixes_of(source):
    return sorted((f.line, f.column, f.fix.applicability if f.fix else None)
                  for f in check_source(source, "t.py", ALL) if f.code == "TFG102")


def test_a_global_a_helper_rebinds_and_an_attribute_a_method_scales_are_proven_numbers():
    assert [fix for _, _, fix in _fixes_of(SCRIPT.replace("STEP", "0.5").replace("ARGUMENT", "epoch"))] == [
        "safe", "safe"]


@pytest.mark.parametrize("step, argument, which", [
    ("tf.constant(0.5)", "epoch", 1),  # the attribute is once a tensor
    ("0.5", "float(input())", 0),  # the helper is once called with a value tfguard cannot read
    ("0.5", "*[epoch]", 0),  # arguments tfguard cannot match
])
def test_a_value_once_not_a_number_makes_that_feed_unsafe(step, argument, which):
    fixes = [fix for fix in _fixes_of(SCRIPT.replace("STEP", step).replace("ARGUMENT", argument)) if fix[0] == 25]
    assert len(fixes) == 2 and fixes[which][2] != "safe" and fixes[1 - which][2] == "safe", fixes


def test_a_library_function_s_parameter_proves_nothing():
    # no code runs at the top: another module may import `anneal` and pass it anything
    body = SCRIPT.replace("STEP", "0.5").replace("ARGUMENT", "epoch")
    head, loop = body.split("sched = Schedule()\n")
    library = head + "def train():\n    sched = Schedule()\n" + textwrap.indent(loop, "    ")
    assert [fix for _, _, fix in _fixes_of(library)] == ["unsafe", "safe"]  # the attribute is still proven
