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
