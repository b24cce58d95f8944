"""Recall: shapes fresh repositories showed that the checker had missed, each now found."""

import textwrap

from tfguard import check_source
from tfguard.static.config import Settings


def found(source: str):
    findings = check_source(textwrap.dedent(source), "m.py", Settings(select=("ALL",)))
    return sorted((f.line, f.code) for f in findings)


def test_a_pipeline_returned_in_a_tuple_is_followed():
    assert found("""\
        import tensorflow as tf
        def get_data(batch_size):
            train = tf.data.Dataset.from_tensor_slices(list(range(1000))).batch(batch_size)
            test = tf.data.Dataset.from_tensor_slices(list(range(100))).batch(batch_size).prefetch(1)
            return train, test
        train_data, test_data = get_data(32)
        iterator = tf.data.Iterator.from_structure(train_data.output_types, train_data.output_shapes)
        loss = tf.reduce_mean(tf.cast(iterator.get_next(), tf.float32))
        train_op = tf.train.AdamOptimizer().minimize(loss)
        train_init = iterator.make_initializer(train_data)
        test_init = iterator.make_initializer(test_data)
        """) == [(10, "TFG205")]


def test_a_restore_loop_with_a_saver_per_file_runs_the_graph():
    assert found("""\
        import tensorflow as tf
        w = tf.Variable(1.0)
        sess = tf.Session()
        for path in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]:
            tf.train.Saver().restore(sess, path)
        """) == [(5, "TFG101")]


def test_a_setting_defaulting_to_one_guards_nothing():
    source = """\
        import argparse
        import tensorflow as tf
        parser = argparse.ArgumentParser()
        parser.add_argument("--every", type=int, default={default})
        args = parser.parse_args()
        h = tf.summary.histogram("h", tf.Variable([1.0, 2.0]))
        writer = tf.summary.FileWriter("/tmp/x")
        with tf.Session() as sess:
            for step in range(100000):
                if step % args.every == 0:
                    writer.add_summary(sess.run(h), step)
        """
    assert found(source.format(default=1)) == [(11, "TFG201")]
    assert found(source.format(default=100)) == []
