"""False alarms seen on real TF1 code, each with its bad twin: complete files through ``tfguard.check_source``."""

from __future__ import annotations

import textwrap

import pytest

import tfguard
from tfguard.static.config import Settings


def found(source: str, select: str = "ALL") -> list:
    """Return the (line, code) findings of ``source`` with ``select`` rules."""
    findings = tfguard.check_source(textwrap.dedent(source), "snippet.py", Settings(select=(select,)))
    return [(f.line, f.code) for f in findings]


# -- fresh graphs: a session made under a fresh graph, a helper that returns one ---------------------

def test_session_in_the_same_with_as_a_fresh_graph_belongs_to_it():
    assert found("""\
        import tensorflow as tf
        for trial in range(100):
            with tf.Graph().as_default(), tf.Session() as s:
                x = tf.constant(1.0)
                s.run(x)
        """) == []


def test_session_before_the_fresh_graph_in_the_same_with_is_on_the_old_graph():
    assert found("""\
        import tensorflow as tf
        x = tf.constant(1.0)
        for trial in range(100):
            with tf.Session() as s, tf.Graph().as_default():
                s.run(x)
        """) == [(4, "TFG105")]


def test_a_helper_that_returns_a_fresh_graph_makes_a_fresh_graph():
    assert found("""\
        import tensorflow as tf

        def make_graph():
            g = tf.Graph()
            with g.as_default():
                tf.constant(1.0)
            return g

        for trial in range(100):
            g = make_graph()
            with g.as_default():
                sess = tf.Session()
                sess.run(tf.constant(2.0))
        """) == []


def test_a_helper_that_returns_the_default_graph_is_no_fresh_graph():
    assert found("""\
        import tensorflow as tf

        def current_graph():
            return tf.get_default_graph()

        for trial in range(100):
            g = current_graph()
            with g.as_default():
                sess = tf.Session()
                sess.run(tf.constant(2.0))
        """) == [(9, "TFG105"), (10, "TFG102")]


# -- indexing a Python list a TF API returns builds no op ----------------------------------------------

LISTS = """\
    import tensorflow as tf
    x = tf.placeholder(tf.float32, [None, 5, 3])
    inputs = tf.unstack(x, axis=1)
    cell = tf.nn.rnn_cell.BasicLSTMCell(4)
    outputs, state = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
    parts = tf.split(x, 5, axis=1)
    grads = tf.gradients(tf.reduce_sum(x), [x])
    opt = tf.train.AdamOptimizer()
    gv = opt.compute_gradients(tf.reduce_sum(outputs[-1]))
    tvars = tf.trainable_variables()
    with tf.Session() as sess:
        for step in range(100):
            sess.run(state)
"""


def test_indexing_lists_returned_by_tf_builds_no_op():
    body = """\
            last = outputs[-1]
            first = outputs[0:2]
            p0 = parts[0]
            g0 = grads[0]
            grad, var = gv[0]
            g = gv[0][0]
            v0 = tvars[0]
            u = inputs[1]
    """
    assert found(LISTS + body) == []


def test_indexing_a_tensor_or_computing_on_a_list_item_builds_ops():
    body = """\
            bad = x[0]
            worse = outputs[-1] + 1.0
            grad = gv[0][0] * 2.0
    """
    assert found(LISTS + body) == [(14, "TFG102"), (15, "TFG102"), (16, "TFG102")]


def test_legacy_seq2seq_outputs_are_a_list():
    assert found("""\
        import tensorflow as tf
        enc = [tf.placeholder(tf.int32, [None]) for _ in range(30)]
        outputs, states = tf.contrib.legacy_seq2seq.embedding_rnn_seq2seq(enc, enc, None, 10, 10, 8)
        with tf.Session() as sess:
            for step in range(100):
                sess.run(states)
                logits = outputs[-1]
        """) == []


# -- `if param is None:` on a None-default parameter is no cache ---------------------------------------

NONE_DEFAULT = """\
    import tensorflow as tf
    loss = tf.constant(1.0)
    shared = tf.train.AdamOptimizer().minimize(loss)

    def step(sess, train_op=None):
        if train_op is None:
            train_op = tf.train.AdamOptimizer().minimize(loss)
        return sess.run(train_op)

    class Model(object):
        def __init__(self):
            self._op = None

        def op(self):
            if self._op is None:
                self._op = tf.reduce_sum(loss)
            return self._op

    m = Model()
    with tf.Session() as sess:
        for i in range(100):
"""


def test_a_none_default_parameter_left_none_builds_on_every_call():
    assert found(NONE_DEFAULT + """\
            step(sess)
            step(sess, None)
            sess.run(m.op())
    """, "TFG1") == [(22, "TFG102"), (23, "TFG102")]


def test_a_none_default_parameter_passed_builds_nothing_and_a_real_cache_builds_once():
    assert found(NONE_DEFAULT + """\
            step(sess, shared)
            step(sess, train_op=shared)
            sess.run(m.op())
    """, "TFG1") == []


# -- TFG203: runs that cannot be merged ------------------------------------------------------------------

RUNS = """\
    import tensorflow as tf
    x = tf.placeholder(tf.float32, [])
    w = tf.Variable(1.0)
    loss = w * x
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    lr = tf.Variable(0.1, trainable=False)
    new_lr = tf.placeholder(tf.float32, [])
    assign_lr = tf.assign(lr, new_lr)
    ops = {1.0: loss}
    with tf.Session() as sess:
        for epoch in range(100):
"""


@pytest.mark.parametrize("body", [
    pytest.param("""\
            sess.run(train, {x: 1.0})
            print(sess.run(loss, {x: 5.0}))
    """, id="same-placeholder-another-value"),
    pytest.param("""\
            sess.run(train, feed_dict=train_feed)
            print(sess.run(loss, feed_dict=test_feed))
    """, id="other-feed-dicts"),
    pytest.param("""\
            sess.run(assign_lr, {new_lr: 0.1 * epoch})
            sess.run(train, {x: 1.0})
    """, id="after-a-state-change"),
    pytest.param("""\
            v = sess.run(w)
            print(sess.run(ops[v]))
    """, id="fetch-built-from-an-earlier-result"),
    pytest.param("""\
            sess.run(train, {x: 1.0})
            sess.run(assign_lr, {new_lr: 0.1})
    """, id="a-state-change-after-the-step-would-race-with-it"),
])
def test_runs_that_cannot_be_merged_are_left_alone(body):
    assert found(RUNS + body, "TFG203") == []


@pytest.mark.parametrize("body", [
    pytest.param("""\
            sess.run(train, {x: 1.0})
            print(sess.run(loss, {x: 1.0}))
    """, id="same-feed"),
    pytest.param("""\
            sess.run(train, {x: 1.0})
            print(sess.run(loss, {new_lr: 1.0}))
    """, id="disjoint-placeholders"),
])
def test_runs_that_could_be_one_are_reported(body):
    assert found(RUNS + body, "TFG203") == [(13, "TFG203")]


# -- TFG201/TFG202: inverted guards and the else of a guard ----------------------------------------------

GUARDS = """\
    import tensorflow as tf
    x = tf.Variable(0.0)
    summ = tf.summary.histogram("x", x)
    train = tf.assign_add(x, 1.0)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        writer = tf.summary.FileWriter("/tmp/logs")
        for it in range(1000):
            _, s = sess.run([train, summ])
"""


@pytest.mark.parametrize("body, expected", [
    pytest.param("""\
            if it % 40:
                writer.add_summary(s, it)
    """, [(11, "TFG201")], id="inverted-guard"),
    pytest.param("""\
            if it % 40 != 0:
                saver.save(sess, "/tmp/m")
    """, [(11, "TFG202")], id="not-equal-guard"),
    pytest.param("""\
            if args.trace and it % 50 == 0:
                print("trace")
            else:
                writer.add_summary(s, it)
    """, [(13, "TFG201")], id="else-of-a-rare-condition"),
    pytest.param("""\
            if not it % 40:
                writer.add_summary(s, it)
    """, [(9, "TFG201")], id="not-of-modulo-is-rare-and-the-fetch-is-for-nothing"),
    pytest.param("""\
            if it % 40 == 0:
                print("x")
            else:
                pass
            if it % 40 == 0:
                writer.add_summary(s, it)
    """, [(9, "TFG201")], id="guarded-write-of-the-fetched-value"),
    pytest.param("""\
            if it % 40:
                pass
            else:
                writer.add_summary(s, it)
    """, [(9, "TFG201")], id="else-of-an-inverted-guard-is-rare"),
    pytest.param("""\
            if it > 100:
                writer.add_summary(s, it)
    """, [(9, "TFG201")], id="unknown-odds-still-guard"),
])
def test_guard_polarity(body, expected):
    assert found(GUARDS + body) == expected


def test_a_fetch_whose_value_is_never_written_is_not_reported():
    assert found(GUARDS + """\
            if it % 40 == 0:
                writer.add_summary(sess.run(summ), it)
    """) == []


def test_tf_api_helpers_that_build_no_op_are_silent_in_a_session_loop():
    assert found("""\
        import tensorflow as tf
        loss = tf.constant(1.0)
        with tf.Session() as sess:
            for step in range(100):
                l = sess.run(loss)
                b = tf.compat.as_bytes("x")
                flat = tf.nest.flatten([l])
                a = tf.make_ndarray(tf.make_tensor_proto([1.0]))
                tf.io.gfile.exists("/tmp")
                summ = tf.Summary(value=[tf.Summary.Value(tag="l", simple_value=l)])
                ev = tf.Summary.FromString(b"")
                path = tf.resource_loader.get_data_files_path()
                for e in tf.train.summary_iterator("f"):
                    pass
                sig = tf.saved_model.signature_def_utils.build_signature_def(None, None, "m")
                bad = tf.reduce_sum(loss)
        """) == [(16, "TFG102")]


# -- dataflow: self-rebinding and long operator chains ----------------------------------------------------

def test_rebinding_a_tensor_to_itself_plus_one_builds_ops():
    assert found("""\
        import tensorflow as tf
        v = tf.constant(0.0)
        t = tf.constant(1.0)
        n = 0
        with tf.Session() as sess:
            for i in range(100):
                sess.run(v)
                v = v + 1
                t *= 2
                n = n + 1
                n += 1
                w = -v
        """, "TFG1") == [(8, "TFG102"), (9, "TFG102"), (12, "TFG102")]


def test_rebinding_numbers_and_numpy_results_builds_nothing():
    assert found("""\
        import tensorflow as tf
        v = tf.constant(0.0)
        total = 0.0
        with tf.Session() as sess:
            for i in range(100):
                r = sess.run(v)
                total = total + r
                total += r
                r = r * 2
        """, "TFG1") == []


def test_an_operator_chain_of_hundreds_of_terms_is_analysed():
    tensors = " + ".join(["x"] * 400)
    numbers = " + ".join(["n"] * 400)
    source = (
        "import tensorflow as tf\nx = tf.constant(1.0)\nn = 0\nwith tf.Session() as sess:\n"
        f"    for i in range(100):\n        sess.run(x)\n        y = {tensors}\n        z = {numbers}\n"
    )
    findings = tfguard.check_source(source, "long.py", Settings(select=("TFG1",)))
    assert [(f.line, f.code) for f in findings] == [(7, "TFG102")]
    assert findings[0].message.startswith("`x + x + x")


def test_every_other_step_is_no_inverted_guard():
    assert found(GUARDS + """\
            if it % 2:
                writer.add_summary(s, it)
    """) == [(9, "TFG201")]


# -- a list of assignments run after an update (WGAN weight clipping) is ordered, not mergeable -----

WGAN = """\
    import tensorflow as tf
    x = tf.placeholder(tf.float32, [None, 4])
    w = tf.Variable(tf.zeros([4, 1]))
    loss = tf.reduce_mean(tf.matmul(x, w))
    d_opt = tf.train.RMSPropOptimizer(5e-5).minimize(loss, var_list=[w])
    clip_D = [p.assign(tf.clip_by_value(p, -0.01, 0.01)) for p in [w]]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for it in range(1000):
            sess.run(d_opt, feed_dict={x: [[1.0] * 4]})
            sess.run(SECOND)
    """


def test_clipping_weights_after_the_update_is_no_split_run():
    assert found(WGAN.replace("SECOND", "clip_D"), "TFG203") == []


def test_reading_the_loss_after_the_update_is_a_split_run():
    assert found(WGAN.replace("SECOND", "loss, feed_dict={x: [[1.0] * 4]}"), "TFG203") == [(11, "TFG203")]


# -- a loop with one literal iteration repeats nothing ------------------------------------------------

def test_a_single_iteration_loop_is_no_session_loop():
    loop = """\
        import tensorflow as tf
        x = tf.placeholder(tf.float32)
        with tf.Session() as sess:
            for step in range(COUNT):
                sess.run(tf.square(x), {x: 1.0})
                print(sess.run(x, {x: 1.0}))
        """
    assert found(loop.replace("COUNT", "1")) == []
    assert found(loop.replace("COUNT", "20")) == [(5, "TFG102"), (6, "TFG203")]


# -- a session opened by `with` every so often (an evaluation) is no session per iteration -------------

EVAL_SESSION = """\
    import tensorflow as tf
    x = tf.placeholder(tf.float32)
    train = tf.reduce_sum(x)


    def inception_score(value):
        with tf.Session() as s:
            return s.run(train, {x: value})


    with tf.Session() as sess:
        for iteration in range(100000):
            sess.run(train, {x: 1.0})
            if GUARD:
                inception_score(2.0)
    """


def test_a_session_closed_by_with_under_a_frequency_guard_is_silent():
    assert found(EVAL_SESSION.replace("GUARD", "iteration % 1000 == 999"), "TFG105") == []


def test_the_same_session_on_every_iteration_is_reported():
    assert found(EVAL_SESSION.replace("GUARD", "True"), "TFG105") == [(15, "TFG105")]


# -- a loop with a small literal trip count repeats a bounded handful, not "every iteration" ------------

SMALL_LOOP = """\
    import tensorflow as tf
    x = tf.placeholder(tf.float32)
    with tf.Session() as sess:
        for case in ITERABLE:
            sess.run(tf.square(x), {x: 1.0})
    """


@pytest.mark.parametrize("iterable", [
    "[(2, 3), (4, 5)]", "range(3)", "range(10)", "range(0, 20, 2)", "enumerate([0.1, 0.01])",
    "zip([1, 2], range(100))", "{'a': 1, 'b': 2}",
])
def test_a_loop_of_at_most_ten_literal_iterations_is_no_session_loop(iterable):
    assert found(SMALL_LOOP.replace("ITERABLE", iterable)) == []


@pytest.mark.parametrize("iterable", ["range(11)", "range(STEPS)", "cases", "[1, 2, *more]", "range(-5, 6)"])
def test_a_longer_or_unknown_trip_count_is_a_session_loop(iterable):
    assert found(SMALL_LOOP.replace("ITERABLE", iterable)) == [(5, "TFG102")]


def test_nested_literal_loops_multiply_their_trip_counts():
    nested = """\
        import tensorflow as tf
        x = tf.placeholder(tf.float32)
        with tf.Session() as sess:
            for i in range(OUTER):
                for j in range(4):
                    sess.run(tf.square(x), {x: 1.0})
        """
    assert found(nested.replace("OUTER", "2")) == []  # 8 iterations in all
    assert found(nested.replace("OUTER", "3")) == [(6, "TFG102")]  # 12


# -- issue 32: contrib.data's prefetch_to_device, Keras preprocessing utilities (items 12, 13) -------

CONTRIB_PIPELINE = """\
    import tensorflow as tf
    from tensorflow.contrib.data import prefetch_to_device
    dataset = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=4).batch(32)
    dataset = dataset.apply(prefetch_to_device("/gpu:0"))
    batch = dataset.make_one_shot_iterator().get_next()
    """


def test_prefetch_to_device_imported_bare_from_contrib_data_prefetches():
    assert found(CONTRIB_PIPELINE, "TFG205") == []
    assert found(CONTRIB_PIPELINE.replace('    dataset = dataset.apply(prefetch_to_device("/gpu:0"))\n', ""),
                 "TFG205") == [(4, "TFG205")]


@pytest.mark.parametrize("call", [
    "kr.preprocessing.sequence.pad_sequences(rows, maxlen=40)",
    "tf.keras.preprocessing.sequence.pad_sequences(rows)",
    "tf.keras.preprocessing.text.one_hot(line, 1000)",
    "tf.keras.preprocessing.image.img_to_array(picture)",
])
def test_keras_preprocessing_utilities_build_no_ops(call):
    source = f"""\
        import tensorflow as tf
        kr = tf.contrib.keras
        sess = tf.Session()
        for step in range(1000):
            padded = {call}
            sess.run(train_op, {{x: padded}})
        """
    assert found(source) == []
    assert found(source.replace(call, "tf.pad(rows, [[0, 1]])")) == [(5, "TFG102")]


# -- issue 32: loops over a model's parts (item 10), target-network advice through bound names (item 14) -

WEIGHT_LOAD = """\
    import numpy as np
    import tensorflow as tf
    sess = tf.Session()
    data = np.load("vgg16.npy").item()
    for op_name in data:
        with tf.variable_scope(op_name, reuse=True):
            for param_name, value in data[op_name].items():
                var = tf.get_variable(param_name)
                sess.run(var.assign(value))
    """


def test_a_loop_loading_each_model_variable_once_is_no_session_loop():
    assert found(WEIGHT_LOAD) == []


def test_the_same_load_inside_a_step_loop_is_reported():
    lines = WEIGHT_LOAD.splitlines(keepends=True)
    inner = "".join("    " + line for line in lines[4:])
    source = "".join(lines[:4]) + "    for step in range(1000):\n" + inner
    assert found(source) == [(10, "TFG108")]


def test_a_lookup_that_does_not_follow_the_loop_is_no_weight_load():
    # the same variable assigned every iteration: a session loop as before
    source = WEIGHT_LOAD.replace("tf.get_variable(param_name)", "tf.get_variable('w')")
    assert found(source.replace("variable_scope(op_name", "variable_scope('net'")) == [(9, "TFG108")]


TARGET_COPY = """\
    import tensorflow as tf
    class Agent(object):
        def __init__(self):
            self.e_params = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="eval")
            self.t_params = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="target")
            self.sess = tf.Session()
        def learn(self):
            self.sess.run([tf.assign(t, VALUE) for t, e in zip(self.t_params, self.e_params)])
    agent = Agent()
    for step in range(1000):
        agent.learn()
    """


@pytest.mark.parametrize("value", ["e", "(1 - 0.01) * t + 0.01 * e"])
def test_target_copies_through_bound_lists_get_the_build_once_advice(value):
    source = textwrap.dedent(TARGET_COPY.replace("VALUE", value))
    findings = tfguard.check_source(source, "snippet.py", Settings(select=("TFG108",)))
    assert [(f.line, f.code) for f in findings] == [(11, "TFG108")]
    assert "constant" not in findings[0].message and "placeholder" not in findings[0].message
    assert "build the assign ops once, before the loop" in findings[0].message


# -- issue 32, item 15: how often a guarded build happens ---------------------------------------------

GUARDED = """\
    import tensorflow as tf
    sess = tf.Session()
    for step in range(100000):
        sess.run(train_op)
        if GUARD:
            sess.run(tf.reduce_mean(x))
    """


@pytest.mark.parametrize("guard, words", [
    ("step % 100 == 0", "every 100 iterations of the `for step in range(100000)` loop at line 3"),
    ("step % LOG_EVERY == 0", "every `LOG_EVERY` iterations of"),
    ("loss_value < best", "on each iteration of the `for step in range(100000)` loop at line 3 where "
                          "`loss_value < best` holds"),
])
def test_a_guarded_build_says_how_often(guard, words):
    source = textwrap.dedent(GUARDED.replace("GUARD", guard)).replace("train_op)", "train_op)\n    loss_value = 1")
    findings = tfguard.check_source(source, "snippet.py", Settings(select=("TFG102",)))
    assert len(findings) == 1 and words in findings[0].message
    assert "on every iteration" not in findings[0].message


@pytest.mark.parametrize("guard", ["step == 500", "step == WARMUP_END and flag", "500 == step"])
def test_a_build_under_a_once_guard_is_silent(guard):
    assert found(GUARDED.replace("GUARD", guard)) == []


@pytest.mark.parametrize("source", [
    GUARDED.replace("GUARD", "step == limit").replace("sess.run(train_op)", "sess.run(train_op)\n        limit += 1"),
    "import tensorflow as tf\nsess = tf.Session()\nfor epoch in range(100):\n    for step in range(1000):\n"
    "        sess.run(train_op)\n        if step == 500:\n            sess.run(tf.reduce_mean(x))\n",
])
def test_a_guard_that_can_hold_again_is_no_once_guard(source):
    assert [code for _, code in found(source)] == ["TFG102"]


# -- issue 32, item 21: a new FileWriter every batch (TFG112) -------------------------------------------

WRITER_LOOP = """\
    import tensorflow as tf
    sess = tf.Session()
    for step in range(10000):
        WRITER
        s, _ = sess.run([loss_summary, train_op])
        writer.add_summary(s, step)
    """


@pytest.mark.parametrize("writer, expected", [
    ('writer = tf.summary.FileWriter("logs", sess.graph)', [(4, "TFG112")]),
    ('writer = tf.train.SummaryWriter("logs")', [(4, "TFG112")]),  # the TF 0.x name
    ('writer = tf.summary.FileWriter("logs") if step % 1000 == 0 else writer', []),  # guarded
])
def test_a_filewriter_per_step_is_reported(writer, expected):
    assert found(WRITER_LOOP.replace("WRITER", writer), "TFG112") == expected


def test_a_filewriter_per_epoch_is_silent():
    assert found("""\
        import tensorflow as tf
        sess = tf.Session()
        for epoch in range(100):
            writer = tf.summary.FileWriter("logs/%d" % epoch)
            for step in range(1000):
                s, _ = sess.run([loss_summary, train_op])
                writer.add_summary(s, step)
        """, "TFG112") == []


# -- issue 32, item 11: library wrappers that build optimizer updates (TFG203) -------------------------

LIBRARY_UPDATES = """\
    import prettytensor as pt
    import tensorflow as tf
    opt = tf.train.AdamOptimizer(2e-4)
    d_train = pt.apply_optimizer(opt, losses=[d_loss], var_list=d_vars)
    g_train = pt.apply_optimizer(opt, losses=[g_loss], var_list=g_vars)
    sess = tf.Session()
    for step in range(10000):
        sess.run(d_train)
        sess.run(g_train)
    """


def test_a_library_call_handed_an_optimizer_is_an_update():
    assert found(LIBRARY_UPDATES, "TFG203") == []


def test_a_library_call_handed_no_optimizer_is_no_update():
    wrapped = LIBRARY_UPDATES.replace("pt.apply_optimizer(opt, ", "pt.wrap(")
    assert found(wrapped.replace(", var_list=d_vars", "").replace(", var_list=g_vars", ""), "TFG203") == [(9, "TFG203")]


def test_a_library_call_handed_the_variables_to_train_is_an_update():
    assert found(LIBRARY_UPDATES.replace("pt.apply_optimizer(opt, ", "pt.wrap("), "TFG203") == []


def test_a_weight_load_through_a_variable_scope_per_layer_is_no_session_loop():
    # the layer's scope names the part; the parameter is picked by its rank (field test: an AlexNet port)
    assert found("""\
        import numpy as np
        import tensorflow as tf
        sess = tf.Session()
        weights = np.load("bvlc_alexnet.npy").item()
        for op_name in weights:
            with tf.variable_scope(op_name, reuse=True):
                for data in weights[op_name]:
                    if len(data.shape) == 1:
                        var = tf.get_variable("biases", trainable=False)
                    else:
                        var = tf.get_variable("weights", trainable=False)
                    sess.run(var.assign(data))
        """) == []


def test_library_updates_kept_on_self_and_fetched_in_a_concatenated_list_are_updates():
    assert found("""\
        import prettytensor as pt
        import tensorflow as tf
        class Trainer(object):
            def __init__(self):
                self.d_trainer = None
                self.g_trainer = None
            def build(self):
                d_opt = tf.train.AdamOptimizer(2e-4)
                self.d_trainer = pt.apply_optimizer(d_opt, losses=[self.d_loss])
                g_opt = tf.train.AdamOptimizer(2e-4)
                self.g_trainer = pt.apply_optimizer(g_opt, losses=[self.g_loss])
            def train(self, sess, log_vars):
                for i in range(10000):
                    values = sess.run([self.d_trainer] + log_vars)[1:]
                    sess.run(self.g_trainer)
        """, "TFG203") == []
