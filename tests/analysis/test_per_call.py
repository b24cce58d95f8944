"""Per-call graph building (TFG109's facts): long-lived sessions, per-call input, how the module calls a function."""

import textwrap

import astroid
import pytest
from astroid import nodes

from tfguard import check_source
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.per_call import (
    IN_LOOP,
    ONCE,
    UNKNOWN,
    call_pattern,
    long_lived_session,
    per_call_builders,
    takes_per_call_input,
)
from tfguard.static.config import Settings

HEADER = "import tensorflow as tf\n"


def analyse(source: str) -> ModuleAnalysis:
    return ModuleAnalysis(astroid.parse(HEADER + textwrap.dedent(source)), "m.py")


def function(analysis: ModuleAnalysis, name: str):
    return next(f for f in analysis.nodes_of(nodes.FunctionDef) if f.name == name)


def first_run(analysis: ModuleAnalysis, name: str) -> nodes.Call:
    scope = function(analysis, name)
    return next(n for n in analysis.own_nodes(scope) if analysis.run_event(n) is not None)


def codes(source: str):
    found = check_source(HEADER + textwrap.dedent(source), "m.py", Settings(select=("ALL",)))
    return sorted((f.line, f.code) for f in found)


@pytest.mark.parametrize(
    "source, expected",
    [
        pytest.param(
            """
            class C:
                def __init__(self):
                    self.sess = tf.Session()
                def f(self, x):
                    return self.sess.run(x)
            """,
            "`self.sess`, set in `C.__init__`",
            id="attribute-set-in-init",
        ),
        pytest.param(
            """
            sess = tf.Session()
            def f(x):
                return sess.run(x)
            """,
            "`sess`, a module-level session",
            id="module-level",
        ),
        pytest.param(
            """
            def f(x):
                return tf.keras.backend.get_session().run(x)
            """,
            "`tf.keras.backend.get_session()`, the process's session",
            id="keras-get-session",
        ),
        pytest.param(
            """
            def f(x):
                with tf.Session() as sess:
                    return sess.run(x)
            """,
            "`tf.Session()` made here on the default graph",
            id="made-on-default-graph",
        ),
        pytest.param(
            """
            def f(x):
                with tf.Graph().as_default():
                    sess = tf.Session()
                    return sess.run(x)
            """,
            None,
            id="made-on-fresh-graph",
        ),
        pytest.param(
            """
            def f(x, g):
                sess = tf.Session(graph=g)
                return sess.run(x)
            """,
            None,
            id="made-on-explicit-graph",
        ),
        pytest.param(
            """
            def f(sess, x):
                return sess.run(x)
            """,
            None,
            id="parameter-is-not-known",
        ),
    ],
)
def test_long_lived_session(source, expected):
    analysis = analyse(source)
    found = long_lived_session(analysis, function(analysis, "f"), first_run(analysis, "f"))
    assert (found.description if found else None) == expected


def test_only_a_session_made_in_the_function_is_made_here():
    analysis = analyse(
        """
        sess = tf.Session()
        def f(x):
            return sess.run(x)
        def g(x):
            return tf.Session().run(x)
        """
    )
    assert not long_lived_session(analysis, function(analysis, "f"), first_run(analysis, "f")).made_here
    assert long_lived_session(analysis, function(analysis, "g"), first_run(analysis, "g")).made_here


@pytest.mark.parametrize(
    "source, made_here, expected",
    [
        pytest.param("def f(self, batch):\n    return sess.run(y, {x: batch})", False, True, id="feeds-parameter"),
        pytest.param(
            "def f(self, batch):\n    data = batch / 255.0\n    return sess.run(y, feed_dict={x: data})",
            False, True, id="feeds-derived-name",
        ),
        pytest.param("def f(self, scope):\n    return sess.run(tf.global_variables(scope))", False, False,
                     id="fetch-from-parameter-on-an-object-session"),
        pytest.param("def f(self, scope):\n    return sess.run(tf.global_variables(scope))", True, True,
                     id="fetch-from-parameter-on-its-own-session"),
        pytest.param("def f(self):\n    return sess.run(y, {x: 1.0})", False, False, id="no-parameter"),
        pytest.param("def f(sess, data):\n    return sess.run(y)", True, False, id="session-parameter-ignored"),
        pytest.param("@app.route('/p')\ndef f():\n    return sess.run(y)", False, True, id="request-handler"),
        pytest.param("@staticmethod\ndef f():\n    return sess.run(y)", False, False, id="plain-decorator"),
    ],
)
def test_takes_per_call_input(source, made_here, expected):
    analysis = analyse("sess = tf.Session()\n" + source)
    assert takes_per_call_input(analysis, function(analysis, "f"), first_run(analysis, "f"), made_here) is expected


@pytest.mark.parametrize(
    "source, expected",
    [
        pytest.param("f(1)\n", ONCE, id="module-level"),
        pytest.param("if __name__ == '__main__':\n    f(1)\n", ONCE, id="main-guard"),
        pytest.param("def main():\n    f(1)\n", ONCE, id="in-main"),
        pytest.param("def run():\n    f(1)\nrun()\n", ONCE, id="caller-called-once"),
        pytest.param("def run():\n    f(1)\n", UNKNOWN, id="caller-never-called"),
        pytest.param("for i in range(30):\n    f(i)\n", IN_LOOP, id="loop"),
        pytest.param("def run():\n    f(1)\nfor i in range(30):\n    run()\n", IN_LOOP, id="caller-in-loop"),
        pytest.param("xs = [f(i) for i in range(30)]\n", IN_LOOP, id="comprehension"),
        pytest.param("", UNKNOWN, id="never-called"),
        pytest.param("f(1)\ndef g():\n    f(2)\n", UNKNOWN, id="once-and-unknown"),
        pytest.param("tf.app.run(main=f)\n", ONCE, id="app-run"),
    ],
)
def test_call_pattern(source, expected):
    analysis = analyse("def f(x):\n    return x\n" + source)
    assert call_pattern(analysis, function(analysis, "f")) == expected


def test_method_called_on_an_unresolved_receiver_counts_as_a_call():
    analysis = analyse(
        """
        class M:
            def predict(self, x):
                return x
        def evaluate(model):
            model.predict(1)
        evaluate(None)
        """
    )
    assert call_pattern(analysis, function(analysis, "predict")) == ONCE


def test_builder_names_every_op_line_and_the_run():
    analysis = analyse(
        """
        class C:
            def __init__(self):
                self.x = tf.placeholder(tf.float32)
                self.sess = tf.Session()
            def predict(self, batch):
                a = tf.nn.softmax(self.x)
                b = tf.argmax(a)
                return self.sess.run(b, {self.x: batch})
        """
    )
    (builder,) = per_call_builders(analysis)
    assert builder.label == "C.predict"
    assert [event.node.lineno for event in builder.builds] == [8, 9]
    assert builder.run.node.lineno == 10


@pytest.mark.parametrize(
    "source, expected",
    [
        pytest.param(
            """
            class C:
                def __init__(self):
                    self.sess = tf.Session()
                    self.x = tf.placeholder(tf.float32)
                    self.probs = None
                def classify(self, batch):
                    if self.probs is None:
                        self.probs = tf.nn.softmax(self.x)
                    return self.sess.run(self.probs, {self.x: batch})
            """,
            [],
            id="lazy-cache",
        ),
        pytest.param(
            """
            def train(sess, loss, feed):
                op = tf.train.AdamOptimizer(0.1).minimize(loss)
                for _ in range(100):
                    sess.run(op, feed_dict=feed)
            """,
            [],
            id="own-session-loop",
        ),
        pytest.param(
            """
            def predict(path, image):
                tf.reset_default_graph()
                sess = tf.Session()
                tf.train.import_meta_graph(path)
                return sess.run("y:0", {"x:0": image})
            """,
            [],
            id="reset-first",
        ),
        pytest.param(
            """
            def predict(path, image):
                sess = tf.Session()
                tf.train.import_meta_graph(path)
                return sess.run("y:0", {"x:0": image})
            for p in paths:
                predict(p, None)
            """,
            [(8, "TFG104"), (8, "TFG105")],
            id="project-loop-wins",
        ),
        pytest.param(
            """
            class VideoTest(tf.test.TestCase):
                def RunModel(self, model, features):
                    with tf.Session() as session:
                        session.run(tf.global_variables_initializer())
                        return session.run(model, {"x:0": features})
            """,
            [],
            id="test-case-helper",
        ),
        pytest.param(
            """
            def validate(probtype, value):
                probs = tf.nn.softmax(probtype)
                return tf.get_default_session().run(probs, {"x:0": value})
            def test_probtypes():
                validate(tf.zeros([3]), 1.0)
                validate(tf.ones([4]), 2.0)
            """,
            [],
            id="called-from-a-test",
        ),
        pytest.param(
            """
            def helper(x):
                return tf.nn.softmax(x)
            sess = tf.Session()
            x = tf.placeholder(tf.float32)
            def predict(batch):
                return sess.run(helper(x), {x: batch})
            """,
            [(8, "TFG109")],
            id="built-through-a-helper",
        ),
    ],
)
def test_rule(source, expected):
    assert codes(source) == expected
