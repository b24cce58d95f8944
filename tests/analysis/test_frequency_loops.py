"""Which loop a call runs every step of: inner plain loops, several step loops in one module (issue 40).

The analysis memoises per loop (its direct runs, nested step loops, rebound names): two loops of one module must
each get their own answer, so a wrong memo key fails here.
"""

from __future__ import annotations

import textwrap

from astroid import nodes

from tfguard.static.analysis.frequency import frequency
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.config import Settings
from tfguard.static.engine import check_source
from tfguard.static.parsing import parse_module

TWO_LOOPS = textwrap.dedent("""\
    import tensorflow as tf

    x = tf.placeholder(tf.float32)
    loss = tf.reduce_mean(x)
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    summary = tf.summary.scalar("loss", loss)
    writer = tf.summary.FileWriter("logs")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        for step in range(1000):
            sess.run(train_op, {x: 1.0})
            writer.add_summary(sess.run(summary, {x: 1.0}), step)
            values = sess.run([summary, summary], {x: 2.0})
            for value in values:
                writer.add_summary(value, step)
        for epoch in range(10):
            for batch in range(100):
                sess.run(train_op, {x: 1.0})
            saver.save(sess, "model")
            writer.add_summary(sess.run(summary, {x: 3.0}), epoch)
""")


def _analysis(source: str):
    module = ModuleAnalysis(parse_module(source, "m.py", False), "m.py", None)
    return module, frequency(module)


def _call(module, text: str, line: int) -> nodes.Call:
    return next(c for c in module.module.nodes_of_class(nodes.Call) if c.as_string() == text and c.lineno == line)


def _loop(module, line: int) -> nodes.For:
    return next(loop for loop in module.module.nodes_of_class(nodes.For) if loop.lineno == line)


def test_a_write_in_a_plain_inner_loop_runs_every_step_of_the_step_loop():
    module, steps = _analysis(TWO_LOOPS)
    write = _call(module, "writer.add_summary(value, step)", 15)
    assert steps.step_loop(write) is _loop(module, 10)
    assert steps.every_step_loop(write) is _loop(module, 10)


def test_each_of_two_loops_gets_its_own_answer():
    module, steps = _analysis(TWO_LOOPS)
    step_loop, epoch_loop, batch_loop = _loop(module, 10), _loop(module, 16), _loop(module, 17)
    first = _call(module, "writer.add_summary(sess.run(summary, {x: 1.0}), step)", 12)
    assert steps.every_step_loop(first) is step_loop
    # the epoch loop runs a step loop of its own: what it runs besides is once per epoch
    assert steps.step_loop(_call(module, "saver.save(sess, 'model')", 19)) is None
    assert steps.step_loop(_call(module, "writer.add_summary(sess.run(summary, {x: 3.0}), epoch)", 20)) is None
    assert steps.step_loop(_call(module, "sess.run(train_op, {x: 1.0})", 18)) is batch_loop
    assert [c.lineno for c in steps.direct_runs(step_loop)] == [11, 12, 13]
    assert [c.lineno for c in steps.direct_runs(epoch_loop)] == [20]
    assert "step" in steps.variant_names(step_loop) and "value" in steps.variant_names(step_loop)
    assert "epoch" in steps.variant_names(epoch_loop) and "step" not in steps.variant_names(epoch_loop)


def test_the_same_answers_in_the_other_order():
    # asked about the epoch loop first, the memo must not leak into the step loop's answers
    module, steps = _analysis(TWO_LOOPS)
    assert steps.step_loop(_call(module, "saver.save(sess, 'model')", 19)) is None
    assert steps.every_step_loop(_call(module, "writer.add_summary(sess.run(summary, {x: 1.0}), step)", 12)) is \
        _loop(module, 10)


def test_the_rules_report_the_step_loop_writes_and_not_the_epoch_loop_ones():
    findings = check_source(TWO_LOOPS, "m.py", Settings(select=("TFG201", "TFG202")))
    assert sorted((f.code, f.line) for f in findings) == [("TFG201", 12), ("TFG201", 15)]


ODDS = textwrap.dedent("""\
    import tensorflow as tf

    with tf.Session() as sess:
        for step in range(1000):
            sess.run(train_op)
            if step % 100 == 0: pass
            if step % 100 != 0: pass
            if step % 100: pass
            if not step % 100 == 0: pass
            if step % 2 == 0: pass
            if step % 100 == 0 and step > 10: pass
            if step % 100 == 0 or step % 7: pass
    """)


def test_how_often_a_condition_holds():
    module, steps = _analysis(ODDS)
    loop = _loop(module, 4)
    tests = [statement.test for statement in loop.body if isinstance(statement, nodes.If)]
    assert [steps.odds(test, loop) for test in tests] == [
        "rarely", "mostly", "mostly", "mostly", "unknown", "rarely", "mostly"]


def test_a_continue_in_the_branch_of_a_later_node_does_not_skip_the_nodes_after_the_branch():
    source = textwrap.dedent("""\
        import tensorflow as tf

        with tf.Session() as sess:
            for step in range(1000):
                sess.run(train_op)
                if step % 10 == 0:
                    continue
                writer.add_summary(sess.run(summary), step)
                if step % 5 == 0:
                    print(step)
                    continue
                    saver.save(sess, "model")
        """)
    module, steps = _analysis(source)
    loop = _loop(module, 4)
    write = _call(module, "writer.add_summary(sess.run(summary), step)", 8)
    assert len(steps.skipping_continues(write, loop)) == 1
    unreachable = _call(module, "saver.save(sess, 'model')", 12)
    # the `continue` right above it shares its branch: only the first one, on another branch, skips it
    assert len(steps.skipping_continues(unreachable, loop)) == 1
