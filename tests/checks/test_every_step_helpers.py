"""Every step through helpers: writes, saves and runs a step loop reaches through the functions it calls."""

from __future__ import annotations

import os
import textwrap

import pytest

import tfguard
from tfguard import check_paths
from tfguard.static.config import Settings


def found(source: str, select: str = "ALL") -> list:
    """Return the (line, code, chain lines) of the findings of ``source``."""
    findings = tfguard.check_source(textwrap.dedent(source), "snippet.py", Settings(select=(select,)))
    return [(f.line, f.code, [link.line for link in f.chain]) for f in findings]


ISSUE_EXAMPLE = """\
    import tensorflow as tf

    x = tf.Variable(0.0)
    bump = tf.assign_add(x, 1.0)
    summ = tf.summary.histogram("x", x)
    with tf.Session() as sess:
        writer = tf.summary.FileWriter("/tmp/logs")
        sess.run(tf.global_variables_initializer())

        def one_step(i):
            _, s = sess.run([bump, summ])
            writer.add_summary(s, i)

        for i in range(10000):
            one_step(i)          # TFG201 here, via line 12
    """


def test_a_helper_that_writes_on_every_call_writes_on_every_step():
    assert found(ISSUE_EXAMPLE) == [(15, "TFG201", [12])]


def test_scalar_summaries_written_by_a_helper_are_exempt_as_a_direct_write_is():
    # one definition of scalar-only, at a direct write and behind a helper (issue 32, item 16)
    assert found(ISSUE_EXAMPLE.replace("tf.summary.histogram", "tf.summary.scalar")) == []


def test_a_guard_on_the_step_parameter_inside_the_helper_still_guards():
    assert found(ISSUE_EXAMPLE.replace(
        "        writer.add_summary(s, i)", "        if i % 100 == 0:\n                writer.add_summary(s, i)"
    )) == []


def test_an_early_return_on_the_step_inside_the_helper_guards():
    assert found(ISSUE_EXAMPLE.replace(
        "        writer.add_summary(s, i)",
        "        if i % 100:\n                return\n            writer.add_summary(s, i)",
    )) == []


def test_a_module_level_flag_inside_the_helper_is_no_guard():
    source = ISSUE_EXAMPLE.replace(
        "        writer.add_summary(s, i)", "        if VERBOSE:\n                writer.add_summary(s, i)"
    ).replace("x = tf.Variable(0.0)", "VERBOSE = True\n    x = tf.Variable(0.0)")
    assert found(source) == [(17, "TFG201", [14])]


SAVES = textwrap.dedent("""\
    import tensorflow as tf
    loss = tf.constant(1.0)
    train = tf.train.AdamOptimizer().minimize(loss)

    class Trainer(object):
        def __init__(self, sess):
            self.sess = sess
            self.saver = tf.train.Saver()

        def checkpoint(self):
            self.saver.save(self.sess, "/tmp/model")

        def maybe_checkpoint(self, step):
            if step % 1000 == 0:
                self.saver.save(self.sess, "/tmp/model")

        def step(self):
            return self.sess.run(train)

    with tf.Session() as sess:
        trainer = Trainer(sess)
        for step in range(100000):
            trainer.step()
    """)


def test_a_method_that_saves_on_every_call_saves_on_every_step():
    assert found(SAVES + "        trainer.checkpoint()\n", "TFG202") == [(24, "TFG202", [11])]


def test_a_method_that_saves_under_a_step_guard_is_silent():
    assert found(SAVES + "        trainer.maybe_checkpoint(step)\n", "TFG202") == []


def test_a_helper_that_runs_then_another_run_is_split():
    # the chain holds the earlier run the message names ("after `trainer.step()` at line 23"), issue 44
    assert found(SAVES + "        print(sess.run(loss))\n", "TFG203") == [(24, "TFG203", [23])]


def test_a_run_then_a_helper_that_runs_is_split_with_the_chain():
    source = SAVES.replace("        trainer.step()\n", "        print(sess.run(loss))\n        trainer.step()\n")
    assert found(source, "TFG203") == [(24, "TFG203", [18, 23])]  # the helper's run, then the earlier run


def test_hidden_runs_global_step_counts_and_says_it_reads_a_variable():
    source = textwrap.dedent("""\
        import tensorflow as tf
        gs = tf.train.get_or_create_global_step()
        loss = tf.constant(1.0)
        train = tf.train.AdamOptimizer().minimize(loss, global_step=gs)
        with tf.Session() as sess:
            for _ in range(1000):
                sess.run([train, gs])
                step = tf.train.global_step(sess, gs)
        """)
    (finding,) = tfguard.check_source(source, "gs.py", Settings(select=("TFG203",)))
    assert finding.line == 8
    assert "forward pass" not in finding.message and "round trip" in finding.message


def test_a_global_step_read_feeding_the_next_run_is_not_split():
    assert found("""\
        import tensorflow as tf
        gs = tf.train.get_or_create_global_step()
        lr = tf.placeholder(tf.float32, [])
        train = tf.train.GradientDescentOptimizer(lr).minimize(tf.constant(1.0), global_step=gs)
        with tf.Session() as sess:
            for _ in range(1000):
                step = tf.train.global_step(sess, gs)
                sess.run(train, {lr: 0.1 / (1 + step)})
        """, "TFG203") == []


def test_a_comprehension_of_runs_is_a_nested_step_loop():
    assert found("""\
        import tensorflow as tf
        loss = tf.constant(1.0)
        train = tf.train.AdamOptimizer().minimize(loss)
        with tf.Session() as sess:
            for epoch in range(100):
                losses = [sess.run([train, loss], {}) for _ in range(100)]
                print(sess.run(loss))
        """, "TFG2") == []


def test_two_runs_in_a_row_without_a_comprehension_are_split():
    assert found("""\
        import tensorflow as tf
        loss = tf.constant(1.0)
        train = tf.train.AdamOptimizer().minimize(loss)
        with tf.Session() as sess:
            for epoch in range(100):
                sess.run([train, loss])
                print(sess.run(loss))
        """, "TFG2") == [(7, "TFG203", [6])]  # with the earlier run the message names


@pytest.mark.parametrize("line, expected", [
    ("w.add_summary(s, step)", [(7, "TFG201", [])]),
    ("t.eval({x: 1.0})", [(7, "TFG203", [])]),
    ("t.eval(feed_dict={x: 1.0})", [(7, "TFG203", [])]),
    ("t.eval()", []),
    ("w.add_summary()", []),
])
def test_unknown_receivers_in_a_file_that_imports_tensorflow(line, expected):
    source = f"""\
        import tensorflow as tf
        from vendor.lib import w, t
        x = tf.placeholder(tf.float32, [])
        merged = tf.summary.merge_all()
        with tf.Session() as sess:
            for step in range(100):
                s = sess.run(merged, {{x: 1.0}}); {line}
        """
    assert found(source, "TFG2") == expected


def test_across_modules_with_the_chain(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "logs.py").write_text(textwrap.dedent("""\
        import tensorflow as tf
        writer = tf.summary.FileWriter("/tmp/logs")

        def log(summary, step):
            record(summary, step)

        def record(summary, step):
            writer.add_summary(summary, step)
        """))
    (tmp_path / "train.py").write_text(textwrap.dedent("""\
        import tensorflow as tf
        from logs import log
        merged = tf.summary.merge_all()
        with tf.Session() as sess:
            for step in range(100):
                log(sess.run(merged), step)
        """))
    result = check_paths([str(tmp_path / "train.py")], settings=Settings(select=("TFG201",)))
    assert [(f.line, [(os.path.basename(c.path), c.line, c.function) for c in f.chain]) for f in result.findings] == [
        (6, [("logs.py", 5, "log"), ("logs.py", 8, "record")])
    ]


SEVERAL = """\
    import tensorflow as tf

    def reload_and_eval(path):
        sess = tf.Session()
        tf.train.import_meta_graph(path + ".meta")
        return sess

    def add_summaries(x):
        tf.summary.scalar("a", x)
        tf.summary.histogram("b", tf.reduce_mean(x))

    x = tf.constant(1.0)
    with tf.Session() as s:
        for step in range(100):
            s.run(x)
    """


def test_one_call_reaching_several_problems_reports_each():
    assert found(SEVERAL + "        reload_and_eval('/tmp/m')\n", "TFG1") == [
        (16, "TFG104", [5]), (16, "TFG105", [4])]


def test_two_sites_of_one_rule_behind_one_call_are_both_in_the_chain():
    (finding,) = tfguard.check_source(
        textwrap.dedent(SEVERAL) + "        add_summaries(x)\n", "s.py", Settings(select=("TFG1",)))
    assert (finding.line, finding.code, [link.line for link in finding.chain]) == (16, "TFG107", [9, 10])
    assert "1 more such call" in finding.message


def test_a_helper_with_one_problem_reports_it_once():
    assert found(SEVERAL.replace("        tf.train.import_meta_graph(path + \".meta\")\n", "")
                 + "        reload_and_eval('/tmp/m')\n", "TFG1") == [(15, "TFG105", [4])]


def test_a_module_level_counter_changed_in_the_loop_guards_inside_the_helper():
    assert found("""\
        import tensorflow as tf
        merged = tf.summary.merge_all()
        writer = tf.summary.FileWriter("/tmp/logs")
        sess = tf.Session()
        step = 0

        def log():
            if step % 100 == 0:
                writer.add_summary(sess.run(merged), step)

        for batch in range(1000):
            sess.run(merged)
            step += 1
            log()
        """, "TFG201") == []


def test_every_write_of_every_branch_of_a_helper_is_listed():
    from tests.catalog_paths import FIXTURES_DIR
    from tests.rule_support import check_file

    findings = [f for f in check_file(str(FIXTURES_DIR / "train_step_every_branch_writes.py")) if f.code == "TFG201"]
    assert len(findings) == 1
    assert "`writer.add_summary()` (line 32, line 33, line 36) on each call" in findings[0].message
