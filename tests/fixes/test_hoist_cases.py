"""The hoist planner's conditions, case by case: what makes a hoist safe, unsafe, or no fix at all."""

from __future__ import annotations

import textwrap

import pytest

from tfguard.static.config import Settings
from tfguard.static.engine import check_source
from tfguard.static.fixes.fix_files import Fixer

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


# -- the purity check of a helper: each way a helper does more than build makes the hoist of its call unsafe ---------

HELPER = """\
import tensorflow as tf

counter = 0

DEFINITION

t = tf.placeholder(tf.float32)
with tf.Session() as sess:
    for step in range(1000):
        sess.run(metric(t))
"""


@pytest.mark.parametrize("definition", [
    "def metric(t):\n    return tf.reduce_mean(t)",
    'def metric(t):\n    """The mean."""\n    return tf.reduce_mean(t)',
    "def metric(t):\n    m = tf.reduce_mean(t)\n    return m * 2.0",
])
def test_a_helper_that_only_builds_stateless_ops_is_a_safe_hoist(definition):
    finding = _only(HELPER.replace("DEFINITION", definition), "TFG102")
    assert finding.fix.applicability == "safe", finding.fix.message
    assert finding.fix.edits[0].content == "    metric_op = metric(t)\n"


@pytest.mark.parametrize("definition", [
    "@staticmethod\ndef metric(t):\n    return tf.reduce_mean(t)",  # a decorator may do anything
    "def metric(t):\n    tf.reduce_mean(t)\n    return tf.reduce_mean(t)",  # a statement that is no assignment
    "def metric(t):\n    global counter\n    counter = 1\n    return tf.reduce_mean(t)",  # rebinds a global
    "def metric(t):\n    a, b = t, t\n    return tf.reduce_mean(a)",  # unpacks: not a plain name
    "def metric(t):\n    f = lambda: t\n    return tf.reduce_mean(f())",  # a lambda
    "def metric(t):\n    return tf.reduce_mean(t + tf.random_normal([1]))",  # a random draw
    "def metric(t):\n    return tf.reduce_mean(t * float(input()))",  # calls something impure
    "def inner(t):\n    return tf.reduce_mean(t)\n\n\ndef metric(t):\n    return inner(t) * 2.0",  # a helper's helper
])
def test_a_helper_that_does_more_than_build_is_an_unsafe_hoist(definition):
    finding = _only(HELPER.replace("DEFINITION", definition), "TFG102")
    assert finding.fix is not None and finding.fix.applicability == "unsafe", finding.no_fix
    assert "`metric()` then runs once, before the loop" in finding.fix.message


@pytest.mark.parametrize("definition", [
    "def metric(t):\n    t.name_hint = 1\n    return tf.reduce_mean(t)",  # stores an attribute of its argument
    "def metric(t):\n    return",  # returns nothing
    "def metric(t):\n    if t is None:\n        return tf.reduce_mean(t)\n    return tf.reduce_max(t)",  # a branch
])
def test_a_helper_without_one_plain_return_of_ops_is_not_a_pure_builder(definition):
    findings = _findings(HELPER.replace("DEFINITION", definition), "TFG102")
    assert all(f.fix is None or f.fix.applicability == "unsafe" for f in findings)


def test_a_method_or_a_helper_of_another_file_gets_no_fix_and_says_why():
    source = """\
        import tensorflow as tf

        class Model:
            def metric(self, t):
                return tf.reduce_mean(t)

        model = Model()
        t = tf.placeholder(tf.float32)
        with tf.Session() as sess:
            for step in range(1000):
                sess.run(model.metric(t))
    """
    finding = _only(source, "TFG102")
    assert finding.fix is None and "the fix belongs in the method" in finding.no_fix


# -- one Saver before the loop gets max_to_keep=None only when every per-iteration Saver saved once ---------------

SAVER = """\
import tensorflow as tf

w = tf.Variable(1.0)
with tf.Session() as sess:
    for epoch in range(1000):
        saver = tf.train.Saver(ARGS)
        saver.save(sess, "model", global_step=epoch)
"""


@pytest.mark.parametrize("args, call", [
    ("", "tf.train.Saver(max_to_keep=None)"),
    ("max_to_keep=3", "tf.train.Saver(max_to_keep=None)"),
    ("[w]", "tf.train.Saver([w], max_to_keep=None)"),
    ("var_list=[w], max_to_keep=2, sharded=True", "tf.train.Saver(var_list=[w], max_to_keep=None, sharded=True)"),
])
def test_a_saver_that_saved_once_per_iteration_keeps_every_file(args, call):
    finding = _only(SAVER.replace("ARGS", args), "TFG101")
    assert finding.fix.applicability == "safe", finding.fix.message
    assert finding.fix.edits[0].content == f"    saver = {call}\n"
    assert "max_to_keep=None" in finding.fix.message


@pytest.mark.parametrize("source", [
    SAVER.replace("ARGS", "") + "print(saver.last_checkpoints)\n",  # read after the loop
    SAVER.replace("ARGS", "").replace('saver.save(sess, "model", global_step=epoch)',
                                      'saver.save(sess, "model", global_step=epoch)\n'
                                      '        saver.save(sess, "best")'),  # two saves per Saver
    SAVER.replace("ARGS", "").replace('        saver.save(sess, "model", global_step=epoch)',
                                      '        for part in range(2):\n'
                                      '            saver.save(sess, "model", global_step=part)'),  # saves in a loop
    SAVER.replace("ARGS", "").replace('saver.save(sess, "model", global_step=epoch)',
                                      'saver.save(sess, "model", global_step=epoch)\n'
                                      '        print(saver.last_checkpoints)'),  # another use
    SAVER.replace("ARGS", "**options"),  # keywords tfguard cannot read
    SAVER.replace("ARGS", "*lists"),  # arguments tfguard cannot read
    SAVER.replace("ARGS", "saver_def=definition"),  # a SaverDef decides
    SAVER.replace("ARGS", "[w],\n            max_to_keep=3"),  # over two lines
])
def test_a_saver_whose_files_would_differ_keeps_its_max_to_keep_and_is_unsafe(source):
    finding = _only(source, "TFG101")
    assert finding.fix is not None and finding.fix.applicability == "unsafe"
    assert "max_to_keep=None" not in "".join(edit.content for edit in finding.fix.edits)
    assert "deletes older ones" in finding.fix.message


# -- a build under an `if` of the loop: guarded --------------------------------------------------------------------

def test_a_summary_under_an_if_of_the_loop_says_it_would_exist_on_every_step():
    source = """\
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        writer = tf.summary.FileWriter("logs")
        with tf.Session() as sess:
            for step in range(1000):
                if step % 10 == 0:
                    summary = tf.summary.scalar("x", x)
                    writer.add_summary(sess.run(summary, {x: 1.0}), step)
    """
    finding = _only(source, "TFG107")
    assert finding.fix.applicability == "unsafe"
    assert "would exist even on iterations that skipped it" in finding.fix.message


def test_an_unguarded_summary_does_not_say_so():
    source = """\
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        with tf.Session() as sess:
            for step in range(1000):
                summary = tf.summary.scalar("x", x)
                print(sess.run(summary, {x: 1.0}))
    """
    finding = _only(source, "TFG107")
    assert "would exist even on iterations" not in finding.fix.message


def test_a_guarded_statement_whose_name_is_bound_elsewhere_is_named_not_moved(tmp_path):
    source = """\
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        mean = None
        with tf.Session() as sess:
            for step in range(1000):
                if step % 10 == 0:
                    mean = tf.reduce_mean(x)
                    print(sess.run(mean, {x: 1.0}))
            print(mean)
    """
    fixed = _fixed(tmp_path, source)
    assert "    reduce_mean_op = tf.reduce_mean(x)\n    for step in range(1000):" in fixed
    assert "            mean = reduce_mean_op\n" in fixed


def test_a_guarded_statement_bound_once_moves_whole(tmp_path):
    source = """\
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        with tf.Session() as sess:
            for step in range(1000):
                if step % 10 == 0:
                    mean = tf.reduce_mean(x)
                    print(sess.run(mean, {x: 1.0}))
    """
    fixed = _fixed(tmp_path, source)
    assert "    mean = tf.reduce_mean(x)\n    for step in range(1000):\n        if step % 10 == 0:\n" in fixed


def test_an_op_under_a_try_of_the_loop_is_unsafe_and_says_so():
    source = """\
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        with tf.Session() as sess:
            for step in range(1000):
                try:
                    print(sess.run(tf.reduce_mean(x), {x: 1.0}))
                except ValueError:
                    pass
    """
    finding = _only(source, "TFG102")
    assert finding.fix.applicability == "unsafe"
    assert "`try` block" in finding.fix.message


def test_an_op_in_the_else_of_a_loop_inside_the_session_loop_is_guarded(tmp_path):
    source = """\
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        mean = None
        with tf.Session() as sess:
            for step in range(1000):
                for part in range(2):
                    pass
                else:
                    mean = tf.reduce_mean(x)
                print(sess.run(mean, {x: 1.0}))
            print(mean)
    """
    fixed = _fixed(tmp_path, source)
    assert "mean = reduce_mean_op" in fixed  # guarded and bound twice: named, not moved


def test_one_plan_moves_a_build_above_the_outermost_loop_it_does_not_depend_on():
    # the runner's later passes would move it again: the plan itself must name the outer loop
    source = """\
        import tensorflow as tf

        logits = tf.placeholder(tf.float32, [None, 2])
        with tf.Session() as sess:
            for epoch in range(30):
                for step in range(100):
                    sess.run(tf.argmax(logits, 1))
                    sess.run(tf.reduce_sum(logits) * epoch)
    """
    moved, kept = sorted(_findings(source, "TFG102"), key=lambda f: f.column)
    assert moved.fix.edits[0].line == 5 and "before the loop at line 5" in moved.fix.message
    assert kept.fix.edits[0].line == 6 and "before the loop at line 6" in kept.fix.message


def test_one_plan_moves_a_pure_helper_call_above_the_innermost_loop_only():
    source = """\
        import tensorflow as tf

        def metric(t):
            return tf.reduce_mean(t)

        t = tf.placeholder(tf.float32)
        with tf.Session() as sess:
            for epoch in range(30):
                for step in range(100):
                    sess.run(metric(t))
    """
    finding = _only(source, "TFG102")
    assert finding.fix.applicability == "safe"
    assert finding.fix.edits[0].line == 9


@pytest.mark.parametrize("saver", ["tf.train.Saver([w])", "tf.train.Saver(var_list=[w])"])
def test_a_saver_of_an_explicit_list_reads_no_collection_while_the_loop_creates_variables(saver):
    source = f"""\
        import tensorflow as tf

        w = tf.Variable(1.0)
        with tf.Session() as sess:
            for step in range(1000):
                v = tf.get_variable('v', [1])
                saver = {saver}
                saver.save(sess, "model")
    """
    finding = _only(source, "TFG101")
    assert finding.fix is not None, finding.no_fix
    without = _only(source.replace(saver, "tf.train.Saver()"), "TFG101")
    assert without.fix is None and "collections" in without.no_fix
