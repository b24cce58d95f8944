"""TFG201/TFG202 on TF 2 code (issue 44, rule 4), and the chains that name every write a message names."""

from __future__ import annotations

import textwrap

import tfguard
from tests.catalog_paths import FIXTURES_DIR
from tests.rule_support import check_file
from tfguard.static.config import Settings

HEADER = """\
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
optimizer = tf.keras.optimizers.Adam()
writer = tf.summary.create_file_writer("logs")
ds = tf.data.Dataset.range(100).batch(4).prefetch(2)


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(model(x))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss
"""


def found(body: str, select: str = "TFG2") -> list:
    """Return (line relative to ``body``, code) of each finding, the header's lines left out."""
    source = HEADER + textwrap.dedent(body)
    offset = HEADER.count("\n")
    findings = tfguard.check_source(source, "snippet.py", Settings(select=(select,)))
    return sorted((f.line - offset, f.code) for f in findings)


def test_histograms_every_step_are_reported_and_scalars_are_not():
    assert found("""\
        for step, x in enumerate(ds):
            train_step(x)
            with writer.as_default():
                tf.summary.scalar("loss", 1.0, step=step)
                for w in model.trainable_variables:
                    tf.summary.histogram(w.name, w, step=step)
        """) == [(6, "TFG201")]


def test_record_if_in_the_module_chooses_when_summaries_are_recorded():
    assert found("""\
        step = tf.Variable(0, dtype=tf.int64)
        with writer.as_default(), tf.summary.record_if(lambda: step % 100 == 0):
            for x in ds.repeat():
                train_step(x)
                for w in model.trainable_variables:
                    tf.summary.histogram(w.name, w, step=step)
                step.assign_add(1)
        """) == []


def test_a_loop_that_runs_nothing_to_train_is_no_step_loop():
    # evaluation over files: no tf.function, no gradient, no train step in the loop
    assert found("""\
        for name in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]:
            model.save_weights(name + ".weights.h5")
        """) == []


def test_keras_callbacks_that_save_or_log_every_few_batches():
    assert found("""\
        callbacks = [
            tf.keras.callbacks.ModelCheckpoint("m.keras", save_freq=5),
            tf.keras.callbacks.ModelCheckpoint("m.keras", save_freq=200),
            tf.keras.callbacks.ModelCheckpoint("m.keras", save_freq="epoch"),
            tf.keras.callbacks.TensorBoard("logs", update_freq="batch"),
            tf.keras.callbacks.TensorBoard("logs", update_freq=1, histogram_freq=1),
            tf.keras.callbacks.TensorBoard("logs", update_freq="epoch", histogram_freq=1),
        ]
        model.fit(ds, callbacks=callbacks)
        """) == [(2, "TFG202"), (6, "TFG201")]


def test_tf1_code_keeps_its_own_reading():
    # a session module: tf.summary.histogram builds an op, and the TF 2 cadence reading stays out of it
    source = textwrap.dedent("""\
        import tensorflow as tf
        x = tf.placeholder(tf.float32)
        h = tf.summary.histogram("x", x)
        with tf.Session() as sess:
            for step in range(1000):
                sess.run(h, {x: 1.0})
                tf.summary.histogram("again", x)
        """)
    codes = {f.code for f in tfguard.check_source(source, "snippet.py", Settings(select=("TFG201", "TFG202")))}
    assert codes == set()


def test_a_finding_naming_several_writes_keeps_every_one_in_its_chain():
    findings = [f for f in check_file(str(FIXTURES_DIR / "train_step_every_branch_writes.py")) if f.code == "TFG201"]
    assert len(findings) == 1
    written = {link.line for link in findings[0].chain}
    assert {32, 33, 36} <= written


def test_a_retracing_finding_carries_the_tf_function_line():
    findings = [f for f in check_file(str(FIXTURES_DIR / "tf2_retracing_custom_loop.py")) if f.code == "TFG403"]
    assert findings and all(f.chain and f.chain[-1].line == 47 for f in findings)
