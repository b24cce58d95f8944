"""The hoist planner's conditions, case by case: what makes a hoist safe, unsafe, or no fix at all."""

from __future__ import annotations

import textwrap

import pytest

from tfguard.static.config import Settings
from tfguard.static.engine import check_source
from tfguard.static.fixes.runner import Fixer

ALL = Settings(select=("ALL",))


def _findings(source: str, code: str):
    return [f for f in check_source(textwrap.dedent(source), "t.py", ALL) if f.code == code]


def _only(source: str, code: str):
    found = _findings(source, code)
    assert len(found) == 1, found
    return found[0]


def _fixed(tmp_path, source: str, unsafe: bool = False) -> str:
    path = tmp_path / "t.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    fixer = Fixer(ALL, lambda f: f.fix is not None and (unsafe or f.fix.applicability == "safe"))
    return fixer.plan_file(str(path)).fixed


SCOPED = """\
    import tensorflow as tf

    x = tf.placeholder(tf.float32, [None, 2])
    with tf.Session() as sess:
        for step in range(1000):
            {header}
                mean = tf.reduce_mean(x)
            print(sess.run(mean, {{x: data}}))
"""


@pytest.mark.parametrize("header", [
    'with tf.name_scope("metrics"):', 'with tf.device("/cpu:0"):', 'with tf.variable_scope("eval"):',
    'with tf.name_scope("a"), tf.device("/cpu:0"):',
])
def test_an_op_under_a_name_or_device_scope_moves_with_its_scope_safely(tmp_path, header):
    finding = _only(SCOPED.format(header=header), "TFG102")
    assert finding.fix.applicability == "safe", finding.fix.message
    fixed = _fixed(tmp_path, SCOPED.format(header=header))
    assert f"    {header}\n        reduce_mean_op = tf.reduce_mean(x)\n    for step in range(1000):" in fixed


@pytest.mark.parametrize("header", [
    'with tf.name_scope("metrics") as scope:',  # the scope's name may be used
    'with tf.device("/gpu:%d" % step):',  # placed by the loop's counter
    'with open("log.txt") as handle:',  # not a scope
    'with tf.control_dependencies([x]):',  # not only a name or a place
])
def test_other_with_blocks_keep_the_hoist_unsafe(header):
    finding = _only(SCOPED.format(header=header), "TFG102")
    assert finding.fix is None or finding.fix.applicability == "unsafe"
    if finding.fix is not None:
        assert "`with` block" in finding.fix.message


def test_a_scope_inside_a_try_of_the_loop_stays_unsafe():
    source = """\
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None, 2])
        with tf.Session() as sess:
            for step in range(1000):
                try:
                    with tf.name_scope("m"):
                        mean = tf.reduce_mean(x)
                except ValueError:
                    continue
                print(sess.run(mean, {x: data}))
    """
    finding = _only(source, "TFG102")
    assert finding.fix is not None and finding.fix.applicability == "unsafe"
    assert "`try` block" in finding.fix.message


def test_a_one_line_with_block_is_not_copied():
    source = SCOPED.format(header='with tf.name_scope("m"): mean = tf.reduce_mean(x)').replace(
        "                mean = tf.reduce_mean(x)\n", "")
    finding = _only(source, "TFG102")
    assert finding.fix is None or finding.fix.applicability == "unsafe"
