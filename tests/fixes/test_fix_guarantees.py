"""What ``--fix`` promises: safe only when invariant, formatting kept, noqa/TFG000/changed files untouched."""

from __future__ import annotations

import json
import textwrap

import pytest

from tfguard.static.atomic import write_in_place
from tfguard.static.config import Settings
from tfguard.static.engine import check_source
from tfguard.static.fixes.fix_files import Fixer

SAFE_ONLY = Settings()

LOOP = textwrap.dedent("""\
    import tensorflow as tf

    x = tf.placeholder(tf.float32, [None, 4])
    logits = tf.layers.dense(x, 2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(100):
            {line}
            sess.run(train, feed_dict={{x: data}})
""")


def _fixes(source: str):
    return [(f.code, f.fix.applicability if f.fix else None) for f in check_source(source, "t.py", SAFE_ONLY)]


def _plan(tmp_path, source: str, data: bytes = b"", unsafe: bool = False):
    path = tmp_path / "train.py"
    if data:
        path.write_bytes(data)
    else:
        path.write_text(source, encoding="utf-8")
    fixer = Fixer(SAFE_ONLY, lambda f: f.fix is not None and (unsafe or f.fix.applicability == "safe"))
    return fixer, fixer.plan_file(str(path)), path


def test_an_expression_the_loop_changes_gets_no_fix():
    assert _fixes(LOOP.format(line="y = tf.reduce_mean(logits * step)")) == [("TFG102", None)]


def test_an_invariant_expression_gets_a_safe_fix():
    assert _fixes(LOOP.format(line="y = tf.reduce_mean(logits)")) == [("TFG102", "safe")]


def test_a_name_mutated_in_the_loop_is_not_invariant():
    source = LOOP.format(line="y = tf.concat(parts, 0); parts.append(y)")
    assert ("TFG102", "safe") not in _fixes(source)


def test_a_call_to_anything_but_tf_makes_the_fix_unsafe():
    assert _fixes(LOOP.format(line="y = tf.reduce_mean(pick(logits))")) == [("TFG102", "unsafe")]


def test_a_build_under_a_with_block_of_the_loop_is_unsafe():
    source = LOOP.format(line="with open('log.txt') as log:\n            y = tf.reduce_mean(logits)")
    assert _fixes(source) == [("TFG102", "unsafe")]


def test_a_build_under_a_device_scope_of_the_loop_moves_under_the_same_scope_safely():
    source = LOOP.format(line="with tf.device('/cpu:0'):\n            y = tf.reduce_mean(logits)")
    assert _fixes(source) == [("TFG102", "safe")]


def test_a_variable_created_in_the_loop_is_only_an_unsafe_fix():
    assert _fixes(LOOP.format(line="v = tf.Variable(0.0)")) == [("TFG102", "unsafe")]


def test_a_helper_that_only_builds_is_a_safe_hoist_of_the_call():
    # issue 32, item 22: called once before the loop, a helper that only builds stateless ops does all it did
    source = textwrap.dedent("""\
        import tensorflow as tf

        def metric(t):
            return tf.reduce_mean(t)

        t = tf.placeholder(tf.float32)
        with tf.Session() as sess:
            for step in range(100):
                sess.run(metric(t))
    """)
    assert _fixes(source) == [("TFG102", "safe")]
    assert check_source(source.replace("metric(t)", "metric(t * step)"), "t.py", SAFE_ONLY)[0].fix is None


@pytest.mark.parametrize("body", [
    "    print('metric')\n    return tf.reduce_mean(t)",  # it does more than build
    "    return tf.reduce_mean(t + tf.random_normal([1]))",  # a random draw: one op repeats no draw
    "    return tf.reduce_mean(tf.layers.dense(t, 1))",  # it creates variables
])
def test_a_build_in_a_helper_that_does_more_is_an_unsafe_hoist_of_the_call(body):
    source = textwrap.dedent("""\
        import tensorflow as tf

        def metric(t):
        BODY

        t = tf.placeholder(tf.float32)
        with tf.Session() as sess:
            for step in range(100):
                sess.run(metric(t))
    """).replace("BODY", body)
    assert _fixes(source) == [("TFG102", "unsafe")]
    [finding] = check_source(source, "t.py", SAFE_ONLY)
    assert "`metric()` then runs once, before the loop" in finding.fix.message


def test_a_helper_reading_what_the_loop_changes_gets_no_fix():
    source = textwrap.dedent("""\
        import tensorflow as tf

        scale = 1.0

        def metric(t):
            return tf.reduce_mean(t) * scale

        t = tf.placeholder(tf.float32)
        with tf.Session() as sess:
            for step in range(100):
                scale = step
                sess.run(metric(t))
    """)
    [finding] = check_source(source, "t.py", SAFE_ONLY)
    assert finding.fix is None and "reads `scale`, which the loop changes" in finding.no_fix


def test_a_build_in_the_inner_loop_moves_above_every_loop_it_does_not_depend_on(tmp_path):
    source = textwrap.dedent("""\
        import tensorflow as tf

        logits = tf.placeholder(tf.float32, [None, 2])
        with tf.Session() as sess:
            for epoch in range(30):
                for step in range(100):
                    sess.run(tf.argmax(logits, 1))
                    sess.run(tf.reduce_sum(logits) * epoch)
    """)
    _, outcome, _ = _plan(tmp_path, source)
    assert "with tf.Session() as sess:\n    argmax_op = tf.argmax(logits, 1)\n    for epoch" in outcome.fixed
    assert "        product = tf.reduce_sum(logits) * epoch\n        for step" in outcome.fixed
    assert outcome.after["TFG102"] == 1  # `* epoch` depends on the outer loop: hoisted above the inner one only


def test_a_saver_while_the_loop_creates_variables_gets_no_fix():
    source = LOOP.format(line="w = tf.get_variable('w', [1])\n        saver = tf.train.Saver()")
    assert ("TFG101", None) in _fixes(source)
    # with an explicit list it is a fix, unsafe like every Saver hoist: one Saver deletes the older checkpoints
    assert ("TFG101", "unsafe") in _fixes(source.replace("tf.train.Saver()", "tf.train.Saver([x])"))


def test_a_noqa_line_is_never_touched(tmp_path):
    source = LOOP.format(line="y = tf.reduce_mean(logits)  # noqa: TFG001")
    _, outcome, _ = _plan(tmp_path, source)
    assert not outcome.changed and outcome.before["TFG102"] == 1


def test_a_file_that_does_not_parse_is_left_alone(tmp_path):
    _, outcome, _ = _plan(tmp_path, LOOP.format(line="y = tf.reduce_mean(logits)") + "def broken(:\n")
    assert outcome.skipped == "it does not parse (TFG000)" and not outcome.changed


def test_a_file_changed_during_the_run_is_not_replaced(tmp_path):
    fixer, outcome, path = _plan(tmp_path, LOOP.format(line="y = tf.reduce_mean(logits)"))
    assert outcome.changed
    path.write_text(outcome.original + "# edited meanwhile\n", encoding="utf-8")
    fixer.write(outcome)
    assert outcome.skipped == "it changed while tfguard was fixing it"
    assert path.read_text(encoding="utf-8").endswith("# edited meanwhile\n")


def test_line_endings_tabs_and_encoding_are_kept(tmp_path):
    source = LOOP.format(line="y = tf.reduce_mean(logits)  # caf\u00e9").replace("    ", "\t")
    data = ("# -*- coding: latin-1 -*-\n" + source).replace("\n", "\r\n").encode("latin-1")
    fixer, outcome, path = _plan(tmp_path, "", data=data)
    fixer.write(outcome)
    written = path.read_bytes()
    assert written != data
    assert written.count(b"\r\n") == data.count(b"\r\n") and b"\n" not in written.replace(b"\r\n", b"")
    assert b"\ty = tf.reduce_mean(logits)  # caf\xe9\r\n\tfor step in range(100):" in written
    compile(written, "train.py", "exec")


def test_a_byte_order_mark_is_kept(tmp_path):
    data = b"\xef\xbb\xbf" + LOOP.format(line="y = tf.reduce_mean(logits)").encode("utf-8")
    fixer, outcome, path = _plan(tmp_path, "", data=data)
    fixer.write(outcome)
    assert path.read_bytes().startswith(b"\xef\xbb\xbfimport tensorflow")


def test_two_fixes_in_one_statement_are_applied_together_and_a_second_run_changes_nothing(tmp_path):
    line = "sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])"
    fixer, outcome, path = _plan(tmp_path, LOOP.format(line=line))
    assert outcome.fixed_count == 2
    assert "init_op = tf.global_variables_initializer()\n    local_init_op = tf.local_variables_initializer()\n" \
        in outcome.fixed
    assert "sess.run([init_op, local_init_op])" in outcome.fixed
    fixer.write(outcome)
    again = Fixer(SAFE_ONLY, lambda f: f.fix is not None).plan_file(str(path))
    assert not again.changed


def test_the_only_statement_of_a_block_leaves_pass(tmp_path):
    source = LOOP.format(line="if step % 10 == 0:\n            saver = tf.train.Saver()")
    _, outcome, _ = _plan(tmp_path, source, unsafe=True)
    assert "\n    saver = tf.train.Saver()\n    for step" in outcome.fixed
    assert "if step % 10 == 0:\n            pass\n" in outcome.fixed


def test_a_fresh_name_avoids_every_name_in_the_module(tmp_path):
    source = LOOP.format(line="print(sess.run(tf.argmax(logits, 1)), argmax_op)")
    _, outcome, _ = _plan(tmp_path, source)
    assert "    argmax_3 = tf.argmax(logits, 1)\n" in outcome.fixed
    assert "sess.run(argmax_3), argmax_op)" in outcome.fixed


def test_the_permissions_survive_a_write(tmp_path):
    path = tmp_path / "a.py"
    path.write_text("x = 1\n")
    path.chmod(0o640)
    write_in_place(str(path), b"x = 2\n", b"x = 1\n")
    assert path.read_text() == "x = 2\n" and (path.stat().st_mode & 0o777) == 0o640


def test_fixes_survive_the_result_cache(tmp_path):
    from tfguard.static.cache import ResultCache
    from tfguard.static.engine import check_paths

    path = tmp_path / "train.py"
    path.write_text(LOOP.format(line="y = tf.reduce_mean(logits)"), encoding="utf-8")
    settings = Settings(root=str(tmp_path))
    fresh = check_paths([str(path)], settings, cache=ResultCache(str(tmp_path / "cache"), settings))
    cached = check_paths([str(path)], settings, cache=ResultCache(str(tmp_path / "cache"), settings))
    assert fresh.findings[0].fix is not None
    assert cached.findings == fresh.findings
    assert json.loads(json.dumps(cached.findings[0].to_dict()))["fix"]["applicability"] == "safe"


def test_autotune_is_spelled_with_the_module_s_tensorflow_alias():
    source = textwrap.dedent("""\
        from tensorflow.compat import v1 as tf1

        def pipeline(files):
            return tf1.data.TFRecordDataset(files).map(parse).prefetch(1)
    """)
    [finding] = check_source(source, "t.py", SAFE_ONLY)
    # (a file of short lines: the argument goes on a line of its own, one indent step in, within 79 columns)
    assert finding.code == "TFG204" and finding.fix.edits[0].content == \
        ",\n        num_parallel_calls=tf1.data.experimental.AUTOTUNE"
    spelled = source.replace("prefetch(1)", "prefetch(tf1.data.AUTOTUNE)")
    [finding] = check_source(spelled, "t.py", SAFE_ONLY)
    assert finding.fix.edits[0].content == ",\n        num_parallel_calls=tf1.data.AUTOTUNE"


def test_tf2_code_gets_tf_data_autotune_within_its_google_style_line_length(tmp_path):
    """Issue 45: TF 2 code gets `tf.data.AUTOTUNE` (TF 1.x code keeps `tf.data.experimental.AUTOTUNE`, the one it
    has), the fixed line keeps the file's 80 columns and 2-space indent, and the message names no GPU."""
    source = textwrap.dedent("""\
        import tensorflow as tf


        def make_dataset(files, batch_size):
          ds = tf.data.TFRecordDataset(files)
          ds = ds.map(lambda record: tf.io.parse_single_example(record, FEATURES))
          return ds.batch(batch_size).prefetch(1)


        def train(model, files):
          model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
          model.fit(make_dataset(files, 32), epochs=3)  # this module writes TF 2
    """)
    [finding] = check_source(source, "t.py", SAFE_ONLY)
    assert finding.code == "TFG204" and "GPU" not in finding.message
    assert "`num_parallel_calls=tf.data.AUTOTUNE`" in finding.message
    fixed = _plan(tmp_path, source)[1].fixed
    assert "  ds = ds.map(lambda record: tf.io.parse_single_example(record, FEATURES),\n" \
           "              num_parallel_calls=tf.data.AUTOTUNE)\n" in fixed
    assert max(len(line) for line in fixed.splitlines()) <= 80
    graph_code = source.replace("model = tf.keras.Sequential([tf.keras.layers.Dense(1)])", "pass")
    [finding] = check_source(graph_code, "t.py", SAFE_ONLY)
    assert "tf.data.experimental.AUTOTUNE" in finding.fix.edits[0].content


def test_a_python2_file_gets_no_fix_and_says_why():
    source = LOOP.format(line="y = tf.reduce_mean(logits)\n        print y")
    [finding] = check_source(source, "t.py", SAFE_ONLY)
    assert finding.fix is None and "read as Python 2" in finding.no_fix
