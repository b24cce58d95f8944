"""Costs that do not matter where they are (issue 25): inspection scripts, one-shot scripts, TF 2 code."""

from __future__ import annotations

import textwrap

import pytest

import tfguard
from tfguard.static.config import Settings


def found(source: str, select: str = "ALL") -> list:
    """Return the (line, code) findings of ``source``, all rules selected."""
    findings = tfguard.check_source(textwrap.dedent(source), "snippet.py", Settings(select=(select,)))
    return sorted((f.line, f.code) for f in findings)


PIPELINE = textwrap.dedent("""\
    import tensorflow as tf
    files = tf.gfile.Glob("/data/*.tfrecord")
    dataset = tf.data.TFRecordDataset(files).map(lambda r: tf.parse_single_example(r, {})).batch(8)
    next_batch = dataset.make_one_shot_iterator().get_next()
    """)


@pytest.mark.parametrize("consumer", [
    "with tf.Session() as sess:\n    for i in range(20):\n        print(sess.run(next_batch))\n",
    "with tf.Session() as sess:\n    for i in range(1000):\n        save_png(sess.run(next_batch), i)\n",
])
def test_a_script_that_looks_at_a_few_batches_is_not_input_bound(consumer):
    assert found(PIPELINE + consumer) == []


@pytest.mark.parametrize("consumer", [
    # a training op in the loop
    "train = tf.train.AdamOptimizer().minimize(tf.reduce_mean(next_batch))\n"
    "with tf.Session() as sess:\n    for i in range(20):\n        sess.run(train)\n",
    # a long evaluation: an unknown number of runs over the whole dataset
    "with tf.Session() as sess:\n    while True:\n        sess.run(next_batch)\n",
    "with tf.Session() as sess:\n    for i in range(5000):\n        sess.run(next_batch)\n",
])
def test_training_or_a_long_evaluation_on_the_pipeline_is_reported(consumer):
    assert found(PIPELINE + consumer) == [(3, "TFG204"), (4, "TFG205")]


def test_a_library_module_that_builds_the_pipeline_is_still_reported():
    assert found(PIPELINE) == [(3, "TFG204"), (4, "TFG205")]


def test_an_api_demo_over_a_small_literal_dataset_is_silent():
    demo = """\
        import tensorflow as tf
        dataset = tf.data.Dataset.range(100).map(lambda x: x * 2)
        next_element = dataset.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            while True:
                try:
                    print(sess.run(next_element))
                except tf.errors.OutOfRangeError:
                    break
        """
    assert found(demo) == []
    assert found(demo.replace("Dataset.range(100)", "Dataset.range(n)")) == [(2, "TFG204"), (3, "TFG205")]


def test_eager_iteration_over_a_few_taken_batches_is_silent():
    eager = """\
        import tensorflow as tf
        dataset = tf.data.TFRecordDataset(files).map(parse).batch(8)
        for batch in dataset.take(20):
            show(batch)
        """
    assert found(eager) == []
    assert found(eager.replace(".take(20)", "")) == [(2, "TFG204")]


# -- one-shot scripts (TFG301, TFG302, TFG304) ---------------------------------------------------------

ONE_SHOT = textwrap.dedent("""\
    import tensorflow as tf
    with tf.device("/gpu:0"):
        a = tf.random_normal([1024, 1024])
        b = tf.matmul(a, a)
    sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
    """)


def test_a_script_that_runs_its_session_once_is_silent_but_for_its_hard_gpu_pin():
    # TFG301 is no cost of repetition: the one run fails on a host with fewer GPUs (issue 32, item 17)
    assert found(ONE_SHOT + "print(sess.run(b))\n") == [(2, "TFG301")]
    restore = "saver = tf.train.Saver()\nsaver.restore(sess, 'model.ckpt')\nprint(sess.run(b))\n"
    assert found(ONE_SHOT + restore) == [(2, "TFG301")]


@pytest.mark.parametrize("source", [
    # returned to whoever opens it
    "def open_session():\n    sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))\n"
    "    sess.run(tf.global_variables_initializer())\n    return sess\n",
    # kept on an object, run by a method other files call
    "class M(object):\n    def __init__(self):\n"
    "        self.sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))\n"
    "        self.sess.run(tf.global_variables_initializer())\n"
    "    def predict(self, v):\n        return self.sess.run(v)\n",
    # a module global a function runs
    "SESS = tf.Session(config=tf.ConfigProto(log_device_placement=True))\nSESS.run(tf.constant(1.0))\n"
    "def predict(v):\n    return SESS.run(v)\n",
    # bound by a function to a global
    "def start():\n    global SESS\n    SESS = tf.Session(config=tf.ConfigProto(log_device_placement=True))\n"
    "    SESS.run(tf.constant(1.0))\n",
])
def test_a_session_that_leaves_the_code_that_made_it_is_no_one_shot(source):
    findings = found("import tensorflow as tf\n" + source)
    assert [code for _, code in findings] == ["TFG302"]


@pytest.mark.parametrize("rest", [
    "for step in range(1000):\n    sess.run(b)\n",  # a session loop
    "train(sess, b)\n",  # handed to the project's code, which may loop
    "",  # made here, run elsewhere
    "model.fit(x, y)\nsess.run(b)\n",  # Keras loops inside fit
])
def test_a_session_that_may_run_repeatedly_is_reported(rest):
    assert found(ONE_SHOT + rest) == [(2, "TFG301"), (5, "TFG302"), (5, "TFG304")]


# -- TF 2 code runs eagerly: no session loop ----------------------------------------------------------

EAGER = textwrap.dedent("""\
    import tensorflow as tf
    strategy = tf.distribute.MirroredStrategy()
    for fold in range(folds):
        model = make_model()

        @tf.function
        def train_step(x, y):
            return strategy.run(step_fn, args=(x, y))

        for epoch in range(epochs):
            train_step(x, y)
            preds = tf.math.argmax(model(x), -1)
    """)


def test_a_tf2_module_without_a_session_has_no_session_loop():
    assert found(EAGER) == []


EVAL_LOOP = textwrap.dedent("""\
    import tensorflow as tf
    x = tf.zeros([4])
    for epoch in range(epochs):
        y = tf.square(x)
        print(y.eval())
    """)


@pytest.mark.parametrize("switch", [
    "", "tf.compat.v1.disable_eager_execution()\n", "tf.compat.v1.disable_v2_behavior()\n",
    "sess = tf.compat.v1.InteractiveSession()\n", "p = tf.compat.v1.placeholder(tf.float32)\n",
    "with tf.Graph().as_default():\n    pass\n",
])
def test_a_graph_mode_switch_makes_the_same_code_graph_code(switch):
    lines = EVAL_LOOP.splitlines(keepends=True)
    source = lines[0] + switch + "".join(lines[1:])
    expected = [(4 + switch.count("\n"), "TFG102")] if switch else []
    assert found(source) == expected


def test_a_distribution_strategy_run_is_no_graph_run_in_graph_code_either():
    source = "import tensorflow as tf\nsess = tf.Session()\n" + EAGER.split("\n", 1)[1]
    assert found(source) == []


# -- runs that cannot be one (TFG203) -----------------------------------------------------------------

RUNS = textwrap.dedent("""\
    import tensorflow as tf
    q = tf.FIFOQueue(100, tf.float32)
    x = tf.placeholder(tf.float32)
    enqueue = q.enqueue(x)
    item = q.dequeue()
    size = q.size()
    global_step = tf.train.get_or_create_global_step()
    loss = tf.reduce_mean(tf.square(tf.Variable(1.0) - x))
    train_op = tf.train.AdamOptimizer().minimize(loss, global_step=global_step)
    accuracy = tf.reduce_mean(x)
    sess = tf.Session()
    sess_a = tf.Session(graph=tf.Graph())
    sess_b = tf.Session(graph=tf.Graph())
    while True:
    """)


@pytest.mark.parametrize("body", [
    "    v = sess.run(item)\n    n = sess.run(size)\n    sess.run(enqueue, {x: v})\n",  # queue order
    "    before = global_step.eval(session=sess)\n    sess.run(train_op, {x: 1.0})\n"
    "    after = global_step.eval(session=sess)\n",  # re-reading what the update changes
    "    a = sess_a.run('out:0', {'in:0': 1.0})\n    b = sess_b.run('out:0', {'in:0': 1.0})\n",  # two graphs
])
def test_runs_that_depend_on_their_order_or_run_other_sessions_are_not_merged(body):
    assert [f for f in found(RUNS + body) if f[1] == "TFG203"] == []


def test_two_reads_of_the_same_session_are_still_merged():
    body = "    sess.run(train_op, {x: 1.0})\n    print(sess.run(accuracy, {x: 1.0}))\n"
    assert [f for f in found(RUNS + body) if f[1] == "TFG203"] == [(16, "TFG203")]


# -- a helper's branch taken only for a constant argument ----------------------------------------------

STEP_HELPER = textwrap.dedent("""\
    import tensorflow as tf
    class Model(object):
        def __init__(self):
            self.x = tf.placeholder(tf.float32, [None, 10])
            self.logits = tf.layers.dense(self.x, 2)
            self.train_op = tf.train.AdamOptimizer().minimize(tf.reduce_mean(self.logits))
        def step(self, sess, batch, forward_only, verbose=False):
            if forward_only:
                fetch = tf.argmax(self.logits, 1)
            else:
                fetch = self.train_op
            if not verbose:
                return sess.run(fetch, {self.x: batch})
            return sess.run([fetch, tf.reduce_sum(self.logits)], {self.x: batch})
    model = Model()
    sess = tf.Session()
    while True:
    """)


@pytest.mark.parametrize("call", [
    "model.step(sess, batch, False)", "model.step(sess, batch, forward_only=False)",
    "model.step(sess, batch, 0, False)", "Model.step(model, sess, batch, False)",
])
def test_a_constant_argument_skips_the_branch_that_builds(call):
    assert found(STEP_HELPER + f"    {call}\n", "TFG102") == []


@pytest.mark.parametrize("call, lines", [
    ("model.step(sess, batch, True)", [18]),  # the evaluation loop builds tf.argmax
    ("model.step(sess, batch, FLAGS.forward_only)", [18]),  # a variable may take either branch
    ("model.step(sess, batch, False, verbose=True)", [18]),  # the other guarded build
    ("model.step(sess, batch, *flags)", [18]),
])
def test_a_true_or_unknown_argument_takes_the_branch(call, lines):
    assert [line for line, _ in found(STEP_HELPER + f"    {call}\n", "TFG102")] == lines


# -- TPU input functions --------------------------------------------------------------------------------

TPU = textwrap.dedent("""\
    import tensorflow as tf
    def input_fn(params):
        return tf.data.TFRecordDataset(files).batch(params["batch_size"], drop_remainder=True)
    estimator = ESTIMATOR(model_fn=model_fn, config=run_config)
    estimator.train(input_fn=input_fn, max_steps=100000)
    """)


@pytest.mark.parametrize("estimator", [
    "tf.contrib.tpu.TPUEstimator", "tf.compat.v1.estimator.tpu.TPUEstimator", "tpu_estimator.TPUEstimator",
])
def test_an_input_fn_handed_to_a_tpu_estimator_is_silent(estimator):
    assert found(TPU.replace("ESTIMATOR", estimator), "TFG205") == []


def test_an_input_fn_handed_to_an_estimator_is_reported():
    assert found(TPU.replace("ESTIMATOR", "tf.estimator.Estimator"), "TFG205") == [(5, "TFG205")]


# -- scalar summaries every step (TFG201) ---------------------------------------------------------------

SUMMARIES = textwrap.dedent("""\
    import tensorflow as tf
    x = tf.placeholder(tf.float32, [None, 10])
    loss = tf.reduce_mean(tf.layers.dense(x, 1))
    train_op = tf.train.AdamOptimizer().minimize(loss)
    loss_sum = tf.summary.scalar("loss", loss)
    other = SECOND
    merged = tf.summary.merge([loss_sum, other])
    writer = tf.summary.FileWriter("/tmp/logs")
    sess = tf.Session()
    for step in range(100000):
        _, s = sess.run([train_op, merged], {x: batch()})
        writer.add_summary(s, step)
    """)


def test_scalar_summaries_written_every_step_are_silent():
    assert found(SUMMARIES.replace("SECOND", 'tf.summary.scalar("lr", 0.1)'), "TFG201") == []


@pytest.mark.parametrize("second", ['tf.summary.histogram("x", x)', "make_summary()"])
def test_a_histogram_or_an_unknown_summary_every_step_is_reported(second):
    assert found(SUMMARIES.replace("SECOND", second), "TFG201") == [(12, "TFG201")]


# -- a session per iteration of a short literal loop (TFG105, issue 32 item 18) ----------------------

SHORT_LOOP = textwrap.dedent("""\
    import tensorflow as tf
    x = tf.constant(1.0)
    for repeat in range(10):
        with tf.Session() as sess:
            print(sess.run(x))
    """)


def test_a_session_per_iteration_of_ten_literal_iterations_is_reported():
    # the bounded-handful contract is about graph growth; session start-up is paid per iteration
    assert found(SHORT_LOOP) == [(4, "TFG105")]


def test_a_session_per_case_of_a_unit_test_stays_silent():
    test = "def test_cases():\n" + textwrap.indent(SHORT_LOOP.split("\n", 2)[2], "    ")
    assert found(SHORT_LOOP.split("\n", 2)[0] + "\n" + SHORT_LOOP.split("\n", 2)[1] + "\n" + test) == []
