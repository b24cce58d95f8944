"""Which loops run the graph, what is built in them, and through which helpers."""

import textwrap

import pytest

from tfguard import check_source as check_all_rules
from tfguard.static.config import Settings

GRAPH_GROWTH_RULES = Settings(select=("TFG1",))


def check_source(source: str, path: str):
    """Findings of the graph-growth rules only: these tests are about session loops."""
    return check_all_rules(source, path, GRAPH_GROWTH_RULES)


def found(source: str):
    return sorted((f.line, f.code) for f in check_source(textwrap.dedent(source), "m.py"))


HEADER = "import tensorflow as tf\n"


@pytest.mark.parametrize(
    "body, expected",
    [
        pytest.param(
            """
            with tf.Session() as sess:
                for i in range(100):
                    sess.run(tf.constant(i))
            """,
            [(5, "TFG102")],
            id="op-in-with-session-loop",
        ),
        pytest.param(
            """
            net = tf.Session()
            def train():
                for i in range(100):
                    net.run(tf.constant(i))
            """,
            [(6, "TFG102")],
            id="module-global-session-any-name",
        ),
        pytest.param(
            """
            def train(sess, op):
                while True:
                    sess.run(op)
                    tf.summary.scalar("x", op)
            """,
            [(6, "TFG107")],
            id="parameter-named-sess",
        ),
        pytest.param(
            """
            import subprocess
            def loop(runner):
                for i in range(30):
                    subprocess.run(["true"])
                    runner.run()
                    tf.constant(i)
            """,
            [],
            id="unknown-run-is-not-a-graph-run",
        ),
        pytest.param(
            """
            towers = []
            for i in range(40):
                with tf.device("/gpu:%d" % i):
                    towers.append(tf.layers.dense(tf.zeros([2, 2]), 2))
            sess = tf.Session()
            sess.run(towers)
            """,
            [],
            id="graph-construction-loop",
        ),
        pytest.param(
            """
            x = tf.constant(1.0)
            sess = tf.Session()
            run = sess.make_callable(x)
            for i in range(30):
                run()
                y = x + 1
            """,
            [(8, "TFG102")],
            id="make-callable-runs-the-graph",
        ),
        pytest.param(
            """
            gs = tf.train.get_or_create_global_step()
            sess = tf.Session()
            while tf.train.global_step(sess, gs) < 10:
                tf.assign_add(gs, 1)
            """,
            [(6, "TFG108")],
            id="global-step-in-while-test",
        ),
        pytest.param(
            """
            x = tf.constant(1.0)
            for i in range(30):
                tf.get_default_session().run(x)
                tf.train.Saver()
            """,
            [(6, "TFG101")],
            id="default-session",
        ),
        pytest.param(
            """
            sess = tf.Session()
            x = tf.constant([1.0, 2.0])
            for i in range(30):
                sess.run(x * 2)
                sess.run(-x)
                sess.run(x[0])
                sess.run(x > 0)
                sess.run(x == 0)
            """,
            [(6, "TFG102"), (7, "TFG102"), (8, "TFG102"), (9, "TFG102")],
            id="tensor-operators",
        ),
        pytest.param(
            """
            sess = tf.Session()
            x = tf.constant([1.0, 2.0])
            for i in range(30):
                v = sess.run(x)
                print(v * 2, v[0], -v)
            """,
            [],
            id="numpy-results-are-not-tensors",
        ),
        pytest.param(
            """
            sess = tf.Session()
            x = tf.constant(1.0)
            for i in range(30):
                sess.run(tf.reduce_mean(tf.square(x - 1)))
            """,
            [(6, "TFG102")],
            id="nested-ops-reported-once",
        ),
        pytest.param(
            """
            sess = tf.Session()
            loss = tf.constant(1.0)
            for i in range(30):
                sess.run(tf.identity(tf.summary.scalar("l", loss)))
            """,
            [(6, "TFG102"), (6, "TFG107")],
            id="specific-code-inside-generic-is-kept",
        ),
        pytest.param(
            """
            for lr in learning_rates:
                tf.reset_default_graph()
                x = tf.constant(lr)
                with tf.Session() as sess:
                    sess.run(x * 2)
            """,
            [],
            id="sweep-with-reset",
        ),
        pytest.param(
            """
            for lr in learning_rates:
                g = tf.Graph()
                with g.as_default():
                    x = tf.constant(lr)
                    with tf.Session(graph=g) as sess:
                        sess.run(x)
            """,
            [],
            id="sweep-with-fresh-graph",
        ),
        pytest.param(
            """
            g = tf.Graph()
            for lr in learning_rates:
                with g.as_default():
                    x = tf.constant(lr)
                    with tf.Session() as sess:
                        sess.run(x)
            """,
            [(6, "TFG102"), (7, "TFG105")],
            id="same-graph-every-iteration-is-not-fresh",
        ),
        pytest.param(
            """
            x = tf.constant(1.0)
            for ckpt in checkpoints:
                with tf.Session() as sess:
                    sess.run(x)
            """,
            [(5, "TFG105")],
            id="session-per-iteration",
        ),
        pytest.param(
            """
            sess = tf.InteractiveSession()
            a = tf.constant(2.0)
            for i in range(30):
                b = a * i
                print(b.eval())
            """,
            [(6, "TFG102")],
            id="interactive-eval",
        ),
        pytest.param(
            """
            sess = tf.Session()
            for epoch in range(30):
                saver = tf.train.Saver()
                for step in range(100):
                    sess.run(tf.global_variables_initializer())
            """,
            [(5, "TFG101"), (7, "TFG103")],
            id="nested-loops-innermost-wins",
        ),
        pytest.param(
            """
            sess = tf.Session()
            for i in range(30):
                sess.run(tf.no_op())
                fn = lambda: tf.constant(1)
                def later():
                    return tf.constant(2)
            """,
            [(5, "TFG102")],
            id="deferred-bodies-are-not-run",
        ),
        pytest.param(
            """
            sess = tf.Session()
            x = tf.constant(1.0)
            for i in range(30):
                sess.run(x)
                print(tf.__version__, tf.float32, x.name, x.shape)
                tf.logging.info("step %d", i)
                tf.train.Example(features=tf.train.Features(feature={}))
            """,
            [],
            id="non-op-apis",
        ),
    ],
)
def test_session_loops(body, expected):
    assert found(HEADER + textwrap.dedent(body)) == expected


HELPERS = """\
import tensorflow as tf

def make_metric(logits):
    return tf.reduce_mean(logits)

def log_metrics(logits):
    tf.summary.scalar("acc", make_metric(logits))

def train_step(sess, op, logits):
    sess.run(op)
    log_metrics(logits)

def main():
    logits = tf.zeros([2])
    op = tf.no_op()
    with tf.Session() as sess:
        for step in range(100):
            train_step(sess, op, logits)
"""


def test_helper_chain_reported_at_call_site():
    findings = check_source(HELPERS, "train.py")
    assert [(f.line, f.code) for f in findings] == [(18, "TFG107")]
    (finding,) = findings
    assert [(c.line, c.function) for c in finding.chain] == [(11, "train_step"), (7, "log_metrics")]
    assert "`train_step()` calls `tf.summary.scalar()` at line 7" in finding.message
    assert "of the `for step in range(100)` loop at line 17;" in finding.message


def test_helper_that_runs_makes_a_session_loop():
    call = "            train_step(sess, op, logits)"
    source = HELPERS.replace(call, call + "\n            tf.constant(step)")
    assert sorted((f.line, f.code) for f in check_source(source, "t.py")) == [(18, "TFG107"), (19, "TFG102")]


CLASS_TRAINER = """\
import tensorflow as tf

class Trainer:
    def __init__(self):
        self.sess = tf.Session()
        self.loss = tf.constant(1.0)

    def save(self, step):
        tf.train.Saver().save(self.sess, "ckpt", global_step=step)

    def fit(self):
        for step in range(100):
            self.sess.run(self.loss)
            if step % 5 == 0:
                self.save(step)
"""


def test_method_building_a_saver_reported_at_call_site():
    findings = check_source(CLASS_TRAINER, "t.py")
    assert [(f.line, f.code) for f in findings] == [(15, "TFG101")]
    assert findings[0].chain[0].function == "Trainer.save"


def test_recursion_terminates():
    source = HEADER + textwrap.dedent(
        """
        def a(sess):
            b(sess)
            tf.constant(1)
        def b(sess):
            a(sess)
            sess.run(tf.no_op())
        with tf.Session() as sess:
            for i in range(30):
                a(sess)
        """
    )
    assert [f.code for f in check_source(source, "r.py")] == ["TFG102"]


def test_finding_location_is_the_call():
    source = HEADER + "with tf.Session() as s:\n    for i in range(30):\n        s.run(tf.train.Saver())\n"
    (finding,) = check_source(source, "x.py")
    assert (finding.line, finding.column, finding.end_line, finding.end_column) == (4, 15, 4, 31)
    assert finding.message.startswith(
        "`tf.train.Saver()` builds new save/restore ops on every iteration of the `for i in range(30)` loop at line 3"
    )


def test_a_loop_is_named_by_its_header_not_by_a_call_in_it():
    source = HEADER + textwrap.dedent(
        """
        def get_flat(sess):
            return sess.run(tf.no_op())
        with tf.Session() as sess:
            while True:
                flat = get_flat(sess)
                total = tf.reduce_sum(flat)
            for (index, (x, y)) in enumerate(pairs):
                get_flat(sess)
                tf.constant(x)
        """
    )
    messages = [f.message for f in check_source(source, "l.py")]
    assert sorted({m.split(" on every iteration of ")[1].split(";")[0] for m in messages}) == [
        "the `for index, (x, y) in enumerate(pairs)` loop at line 9", "the `while True` loop at line 6"]


def test_calling_a_keras_model_subclass_builds_ops():
    source = HEADER + textwrap.dedent(
        """
        class Net(tf.keras.Model):
            def call(self, x):
                return x
        class Wrapped(Net):
            pass
        class Plain:
            pass
        net, wrapped, plain = Net(), Wrapped(), Plain()
        x = tf.constant(1.0)
        with tf.Session() as sess:
            for i in range(30):
                sess.run(x)
                net(x)
                wrapped(x)
                plain()
        """
    )
    assert found(source) == [(15, "TFG102"), (16, "TFG102")]


@pytest.mark.parametrize(
    "body, expected",
    [
        pytest.param(
            """
            sess = tf.Session()
            for name in names:
                with tf.variable_scope("net", reuse=True):
                    var = tf.get_variable(name)
                with tf.variable_scope("net", reuse=tf.AUTO_REUSE):
                    var = tf.get_variable(name)
                with tf.variable_scope("net"):
                    var = tf.get_variable(name)
                sess.run(var)
            """,
            [(10, "TFG102")],
            id="get-variable-under-reuse-returns-the-existing-one",
        ),
        pytest.param(
            """
            _CACHE = {}
            def get_saver(name="default"):
                if name in _CACHE:
                    return _CACHE[name]
                saver = tf.train.Saver()
                _CACHE[name] = saver
                return saver
            class Trainer:
                saver = None
                def save(self, sess):
                    if self.saver is None:
                        self.saver = tf.train.Saver()
                    self.saver.save(sess, "ckpt")
            def make():
                return tf.train.Saver()
            sess = tf.Session()
            trainer = Trainer()
            for step in range(100):
                sess.run(tf.no_op)
                get_saver().save(sess, "ckpt")
                trainer.save(sess)
                if step not in _CACHE:
                    _CACHE[step] = tf.train.Saver()
                make()
            """,
            [(26, "TFG101")],
            id="lazily-built-once",
        ),
        pytest.param(
            """
            sess = tf.Session()
            v = tf.Variable(0.0)
            for step in range(100):
                mean = tf.reduce_mean(tf.constant([1.0, 2.0]))
                v.load(step, sess)
            """,
            [(6, "TFG102")],
            id="variable-load-runs-the-graph",
        ),
        pytest.param(
            """
            from tensorflow.python.client import timeline
            sess = tf.Session()
            for step in range(100):
                meta = tf.RunMetadata()
                sess.run(tf.no_op, options=tf.RunOptions(trace_level=3), run_metadata=meta)
                trace = timeline.Timeline(step_stats=meta.step_stats)
                gd = tf.graph_util.convert_variables_to_constants(sess, sess.graph_def, ["out"])
            """,
            [],
            id="graph-def-and-timeline-utilities",
        ),
    ],
)
def test_field_trial_patterns(body, expected):
    assert found(HEADER + textwrap.dedent(body)) == expected


def test_tensorflow_internals_build_ops_only_in_op_modules():
    source = textwrap.dedent(
        """\
        import tensorflow as tf
        from tensorflow.python.ops import math_ops
        from tensorflow.python.platform import tf_logging as logging
        from tensorflow.python.util import numpy_compat
        sess = tf.Session()
        x = tf.constant(1.0)
        for i in range(30):
            sess.run(x)
            logging.info("step %d", i)
            scale = numpy_compat.np_asarray(2.0)
            print(scale * 2)
            math_ops.add(x, 1.0)
        """
    )
    assert found(source) == [(12, "TFG102")]
