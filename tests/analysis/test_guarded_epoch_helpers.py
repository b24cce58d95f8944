"""Step loops around guarded epoch helpers, warm-up thresholds, library callables."""

import textwrap

import pytest

from tfguard import check_source
from tfguard.static.config import Settings


def found(source: str):
    findings = check_source(textwrap.dedent(source), "m.py", Settings(select=("ALL",)))
    return sorted((f.line, f.code) for f in findings)


EVAL_HELPER = """\
import tensorflow as tf
x = tf.placeholder(tf.float32, [None])
loss = tf.reduce_mean(x)
train_op = tf.train.AdamOptimizer().minimize(loss)
summ = tf.summary.histogram("x", x)  # scalar-only writes are cheap and silent
def evaluate(sess, batches):
    for b in batches:
        sess.run(loss, {x: b})
def train(sess, writer, batches, dev):
    for step, b in enumerate(batches):
        _, s = sess.run([train_op, summ], {x: b})
        writer.add_summary(s, step)
"""


@pytest.mark.parametrize("call, expected", [
    ("        if step % 1000 == 0:\n            evaluate(sess, dev)\n", [(12, "TFG201")]),
    # unguarded, the evaluation is a nested step loop, but the loop runs the training op itself: still a step
    # loop (issue 32 item 3)
    ("        evaluate(sess, dev)\n", [(12, "TFG201")]),
])
def test_a_loop_that_trains_is_a_step_loop_whatever_its_nested_loops(call, expected):
    assert found(EVAL_HELPER + call) == expected


def test_a_loop_around_a_training_helper_stays_an_epoch_loop():
    epoch_loop = ("def epochs(sess, writer, batches, dev):\n"
                  "    for epoch in range(10):\n"
                  "        train(sess, writer, batches, dev)\n"
                  "        writer.add_summary(sess.run(summ), epoch)\n")
    assert found(EVAL_HELPER + epoch_loop) == [(12, "TFG201")]  # the inner write only


@pytest.mark.parametrize("test, expected", [
    ("len(memory) > BATCH_SIZE", [(10, "TFG201"), (10, "TFG203")]),
    ("self_steps >= LEARN_START", [(10, "TFG201"), (10, "TFG203")]),
    ("len(memory) > args.batch_size", [(10, "TFG201"), (10, "TFG203")]),  # a run setting (issue 32)
    ("step > args.max_steps", []),  # a setting that ends the run: still a guard
    ("step > 100", []),  # a bare number: odds unknown, still a guard
    ("loss_value > THRESHOLD", []),  # not a counter
])
def test_warm_up_thresholds_hold_on_most_steps(test, expected):
    source = f"""\
    import tensorflow as tf
    BATCH_SIZE, LEARN_START, THRESHOLD = 32, 1000, 10.0
    summ = tf.summary.scalar("x", tf.constant(1.0))
    def train(sess, writer, memory, self_steps, args):
        for step in range(1000):
            loss_value = sess.run(summ)
            memory.append(step)
            self_steps += 1
            if {test}:
                writer.add_summary(sess.run(summ), step)
    """
    assert found(source) == expected


def test_keras_run_methods_need_a_graph_mode_module():
    body = """\
    def fit(batches):
        model = tf.keras.Sequential([tf.keras.layers.Dense(3)])
        for x, y in batches:
            model.train_on_batch(x, y)
            scale = tf.constant(2.0)
    """
    eager = "import tensorflow as tf\n" + textwrap.dedent(body)
    graph = "import tensorflow.compat.v1 as tf\ntf.disable_eager_execution()\n" + textwrap.dedent(body)
    assert found(eager) == []
    assert found(graph) == [(7, "TFG102")]


def test_a_tf_util_function_callable_runs_the_graph():
    source = """\
    import tensorflow as tf
    import baselines.common.tf_util as U
    def learn(x, loss, batches):
        step = U.function([x], [loss])
        for b in batches:
            value = step(b)
            tf.reduce_mean(value)
    """
    assert found(source) == [(7, "TFG102")]
