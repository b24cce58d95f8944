"""Advice that fits the cause: per-sample Keras predictions are told to batch, not to use tf.data."""

from __future__ import annotations

import pytest

import tfguard


def test_per_sample_keras_predict_is_told_to_batch_the_predictions(tf):
    """`model.predict` per sample (tf_keras in graph mode): TFG903 says to batch the predictions.

    Needs tf_keras (it installs the full `tensorflow` package, so it is not in the test extra)."""
    tf_keras = pytest.importorskip("tf_keras")
    import numpy

    graph = tf.Graph()
    with graph.as_default():
        model = tf_keras.Sequential([tf_keras.layers.Dense(8, input_shape=(4,)), tf_keras.layers.Dense(1)])
        sess = tf_keras.src.backend.get_session()
        with tfguard.watch(sess) as guard:
            for row in numpy.ones([30, 4], numpy.float32):
                model.predict(row[None, :], verbose=0)
    report = guard.report
    predict = max(report.signatures, key=lambda s: s["count"])
    assert predict["made_by"] == "keras predict" and predict["count"] == 30
    found = {code: (severity, message) for code, severity, message in report.diagnostics}
    severity, message = found.get("TFG903", (None, ""))
    # The advice of a TFG903 given; a run too short to judge (a smoke run) gets an information line instead.
    advice = message if severity not in (None, "info") else None
    assert advice is None or ("batch the predictions" in advice and "tf.data" not in advice)
    assert report.host_fraction < 0.5 or advice is not None or message.startswith("not judged")


def test_an_ordinary_input_bound_loop_keeps_the_tf_data_advice(tf, graph, sess):
    import time

    g, parts = graph
    with tfguard.frozen(sess, min_share_s=0) as guard:
        for _ in range(8):
            time.sleep(0.05)  # far longer than a run, even on a busy machine
            sess.run(parts["w"])
    advice = dict((code, message) for code, _, message in guard.report.diagnostics).get("TFG903")
    assert guard.report.wall_s - guard.report.run_s >= 8 * 0.05  # the sleeps, at any load
    assert guard.report.host_fraction < 0.5 or "move input to tf.data with prefetch" in advice
    assert guard.report.signatures[0]["made_by"] is None
