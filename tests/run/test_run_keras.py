"""`tfguard run` on TF2 Keras programs (Keras 3 and tf_keras): `predict` per sample in a loop (TFG910), a slow
callback (TFG911) and a host sync per step (TFG912), each on its line in the text and the JSON; the fixed twins
are silent, and the program's output and exit status are those it has without the guard."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.run.conftest import tfguard, valid_document

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("tensorflow_installed")]

#: `keras` is tf.keras: Keras 3 by default, tf_keras (Keras 2) under TF_USE_LEGACY_KERAS=1.
BAD = '''
import sys
import time

import numpy as np
import tensorflow as tf

keras = tf.keras
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8), keras.layers.Dense(2)])
model.compile(optimizer="sgd", loss="mse")


class SlowLogger(keras.callbacks.Callback):  # SLOW CALLBACK
    def on_train_batch_end(self, batch, logs=None):
        time.sleep(0.02)


x = np.random.RandomState(0).rand(64, 4).astype("float32")
y = np.random.RandomState(1).rand(64, 2).astype("float32")
model.fit(x, y, batch_size=4, epochs=1, verbose=0, callbacks=[SlowLogger()])
best = 0
for state in x[:30]:
    best += int(np.argmax(model.predict(state[None], verbose=0)))  # PREDICT PER SAMPLE
optimizer = keras.optimizers.SGD(0.01)


@tf.function
def train_step(a, b):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(a) - b) ** 2)
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss


losses = []
for step in range(30):
    losses.append(float(train_step(x[:8], y[:8])))  # HOST SYNC
print("done", best >= 0, len(losses))
sys.exit(int(sys.argv[1]))
'''

#: The same program fixed: the model's own call per sample, a callback that works every 50 batches, the losses
#: kept on the device and read once.
GOOD = '''
import time

import numpy as np
import tensorflow as tf

keras = tf.keras
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8), keras.layers.Dense(2)])
model.compile(optimizer="sgd", loss="mse")


class SometimesLogger(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        if batch % 50 == 49:
            time.sleep(0.02)


x = np.random.RandomState(0).rand(64, 4).astype("float32")
y = np.random.RandomState(1).rand(64, 2).astype("float32")
model.fit(x, y, batch_size=4, epochs=1, verbose=0, callbacks=[SometimesLogger()])
best = 0
for state in x[:30]:
    best += int(np.argmax(model(state[None], training=False)))
print(model.predict(x, verbose=0).shape)
optimizer = keras.optimizers.SGD(0.01)


@tf.function
def train_step(a, b):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(a) - b) ** 2)
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss


total = tf.zeros([])
for step in range(30):
    total += train_step(x[:8], y[:8])
print("done", best >= 0, float(total) > 0)
'''

KERASES = {"keras3": {}, "tf_keras": {"TF_USE_LEGACY_KERAS": "1"}}


def _line(source, marker):
    return next(number for number, line in enumerate(source.splitlines(), 1) if marker in line)


def _run(tmp_path, source, keras, *args):
    """(plain run, guarded run, document) of `source` under one Keras."""
    script = tmp_path / "train.py"
    script.write_text(source, encoding="utf-8")
    report = tmp_path / "report.json"
    os.environ.update(KERASES[keras])
    try:
        guarded = tfguard("run", "--json", report, script, *args, cwd=tmp_path)
    finally:
        for name in KERASES[keras]:
            del os.environ[name]
    return guarded, valid_document(json.loads(report.read_text(encoding="utf-8")))


def _findings(document):
    """The program scope's diagnostics by code, each with its blamed line as `path`/`line`."""
    found = {}
    for d in document["diagnostics"]:
        if d["scope"] == "program":
            (blamed,) = [site for site in d["sites"] if site["role"] == "blamed"]
            found[d["code"]] = dict(d, path=blamed["path"], line=blamed["line"])
    return found


@pytest.mark.parametrize("keras", list(KERASES))
def test_each_cost_is_named_on_its_line_in_the_text_and_the_json(tmp_path, keras):
    if keras == "tf_keras":
        pytest.importorskip("tf_keras")
    guarded, document = _run(tmp_path, BAD, keras, 3)
    assert guarded.returncode == 3 and guarded.stdout == "done True 30\n"
    text = guarded.stderr.replace("\n    ", " ")
    found = _findings(document)
    assert sorted(found) == ["TFG910", "TFG911", "TFG912"]
    predict, callback, sync = found["TFG910"], found["TFG911"], found["TFG912"]
    assert (predict["severity"], predict["line"]) == ("warning", _line(BAD, "# PREDICT PER SAMPLE"))
    assert predict["evidence"]["calls"] == 30 and predict["evidence"]["median_rows"] == 1
    assert predict["evidence"]["model_seconds_per_call"] > 0
    assert "TFG910 warning (program): `Sequential.predict` called 30 times from train.py:%d on 1 row per call" % (
        predict["line"]) in text
    assert (callback["severity"], callback["line"]) == ("warning", _line(BAD, "# SLOW CALLBACK"))
    assert "TFG911 warning (program): callback `SlowLogger` (defined at train.py:%d)" % callback["line"] in text
    assert "help: do its work every N batches" in text
    assert callback["evidence"]["batches"] == 16
    # On the CPU a sync costs only its copy: information, and the report says why.
    assert (sync["severity"], sync["line"], sync["evidence"]["syncs"]) == ("info", _line(BAD, "# HOST SYNC"), 30)
    assert "TFG912 info (program): float(t) at train.py:%d copies a tensor to the host 1.0 times per step" % (
        sync["line"]) in text and "on the CPU" in text
    assert all(d["path"] == str(tmp_path / "train.py") for d in found.values())


def test_the_program_runs_as_without_the_guard(tmp_path):
    # The guarded runs of BAD (test_each_cost_is_named_on_its_line_in_the_text_and_the_json, under each Keras)
    # assert status 3 and this output; here the same program without the guard, so that the two agree. One guarded
    # run fewer than a plain-and-guarded pair: the guarded side is the test above.
    script = tmp_path / "train.py"
    script.write_text(BAD, encoding="utf-8")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    plain = subprocess.run([sys.executable, str(script), "3"], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=300)
    assert (plain.returncode, plain.stdout) == (3, "done True 30\n"), plain.stderr[-2000:]


@pytest.mark.parametrize("keras", list(KERASES))
def test_the_fixed_twin_is_silent(tmp_path, keras):
    if keras == "tf_keras":
        pytest.importorskip("tf_keras")
    guarded, document = _run(tmp_path, GOOD, keras)
    assert guarded.returncode == 0 and guarded.stdout.endswith("done True True\n")
    assert _findings(document) == {}
    assert "TFG91" not in guarded.stderr
    assert document["program"]["steps"]["count"] == 30
