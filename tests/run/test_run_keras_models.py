"""`tfguard run` on programs whose tf.functions retrace for a reason that is not their calling line (issue 47,
"TFG908, on programs nobody here wrote"): a Keras model built again for each `predict` (Keras 3 and tf_keras),
named where the model is built, in the text, JSON and HTML reports; its fixed twin silent about the model; and one
function traced from six lines, tensors first and Python literals after, blamed where the literals retrace."""

from __future__ import annotations

import json
import os

import pytest

from tests.run.conftest import tfguard, valid_document

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("tensorflow_installed")]

#: `keras` is tf.keras: Keras 3 by default, tf_keras (Keras 2) under TF_USE_LEGACY_KERAS=1.
MODEL_PER_CALL = '''
import numpy as np
import tensorflow as tf

keras = tf.keras


def make_model():
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, kernel_initializer="ones")])


rows = 0.0
for image in range(8):
    model = make_model()  # BUILT
    rows += float(model.predict(np.ones((1, 3), "float32"), verbose=0).sum())  # PREDICT
print("rows", rows)
'''

#: The model built once; and (sharing this child process) one tf.function called from six lines, two with
#: tensors (the first trace cannot be avoided) and four with a Python literal each (the traces to avoid).
FIXED_AND_LITERALS = '''
import numpy as np
import tensorflow as tf

keras = tf.keras


def make_model():
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, kernel_initializer="ones")])


model = make_model()
rows = 0.0
for image in range(8):
    rows += float(model.predict(np.ones((1, 3), "float32"), verbose=0).sum())
print("rows", rows)


@tf.function
def scale(x, factor):  # DEFINED
    return tf.reduce_sum(x * factor)


print(float(scale(tf.ones([2]), 2)))  # TENSOR 2
print(float(scale(tf.ones([3]), 2)))  # TENSOR 3
print(float(scale(tf.ones([3]), 3)))  # LITERAL 3
print(float(scale(tf.ones([3]), 4)))  # LITERAL 4
print(float(scale(tf.ones([3]), 5)))  # LITERAL 5
print(float(scale(tf.ones([3]), 6)))  # LITERAL 6
'''

KERASES = {"keras3": {}, "tf_keras": {"TF_USE_LEGACY_KERAS": "1"}}


def _line(source, marker):
    return next(number for number, line in enumerate(source.splitlines(), 1) if marker in line)


def _run(tmp_path, source, keras):
    """(guarded run, JSON document, HTML page) of `source` under one Keras."""
    script = tmp_path / "train.py"
    script.write_text(source, encoding="utf-8")
    report, page = tmp_path / "report.json", tmp_path / "report.html"
    os.environ.update(KERASES[keras])
    try:
        guarded = tfguard("run", "--json", report, "--html", page, script, cwd=tmp_path)
    finally:
        for name in KERASES[keras]:
            del os.environ[name]
    return guarded, valid_document(json.loads(report.read_text(encoding="utf-8"))), page.read_text(encoding="utf-8")


def _retracing(document):
    return [d for d in document["diagnostics"] if d["code"] == "TFG908"]


@pytest.mark.parametrize("keras", list(KERASES))
def test_a_model_built_per_call_is_named_where_it_is_built(tmp_path, keras):
    if keras == "tf_keras":
        pytest.importorskip("tf_keras")
    guarded, document, page = _run(tmp_path, MODEL_PER_CALL, keras)
    assert (guarded.returncode, guarded.stdout) == (0, "rows 48.0\n")  # what the program prints unguarded
    built, predict = _line(MODEL_PER_CALL, "# BUILT"), _line(MODEL_PER_CALL, "# PREDICT")
    (diagnostic,) = _retracing(document)
    assert diagnostic["severity"] == "warning"
    assert [(site["line"], site["role"]) for site in diagnostic["sites"]] == [(predict, "blamed"), (built, "named")]
    assert all(site["path"] == str(tmp_path / "train.py") for site in diagnostic["sites"])
    said = "the model is built again at train.py:%d for each call) called from train.py:%d keeps retracing" % (
        built, predict)
    assert said in diagnostic["headline"] and "keras/src" not in diagnostic["headline"]
    assert "build the Keras model once" in diagnostic["help"] and "train.py:%d" % built in diagnostic["help"]
    assert said in guarded.stderr.replace("\n    ", " ")
    (function,) = [f for f in document["functions"]["functions"] if f["built_at"]]
    assert function["built_at"] == [{"path": str(tmp_path / "train.py"), "line": built, "models": 7}]
    assert "the model is built again at train.py:%d" % built in page


def test_the_fixed_twin_is_silent_and_literals_are_blamed_where_they_retrace(tmp_path):
    guarded, document, page = _run(tmp_path, FIXED_AND_LITERALS, "keras3")
    assert (guarded.returncode, guarded.stdout) == (0, "rows 48.0\n4.0\n6.0\n9.0\n12.0\n15.0\n18.0\n")
    assert "built again" not in guarded.stderr and "created again" not in guarded.stderr
    (diagnostic,) = _retracing(document)  # the model's predict function traced once: not reported
    assert diagnostic["evidence"]["function"] == "scale" and diagnostic["severity"] == "warning"
    literals = [_line(FIXED_AND_LITERALS, "# LITERAL %d" % value) for value in (3, 4, 5, 6)]
    assert [(site["line"], site["role"]) for site in diagnostic["sites"]] == [
        (literals[0], "blamed")] + [(line, "named") for line in literals[1:]] + [
        (_line(FIXED_AND_LITERALS, "# DEFINED") - 1, "named")]
    assert "argument `factor`: Python value" in diagnostic["headline"]
    assert "called from train.py:%d keeps retracing" % literals[0] in guarded.stderr.replace("\n    ", " ")
    assert "train.py:%d" % _line(FIXED_AND_LITERALS, "# TENSOR 2") not in diagnostic["headline"]
