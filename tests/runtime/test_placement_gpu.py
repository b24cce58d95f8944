"""tfguard.placement with a real GPU: skipped where TensorFlow sees none (the CPU path: test_placement.py)."""

from __future__ import annotations

import pytest

import tfguard


@pytest.fixture
def gpu_session(tf):
    """A session factory on a fresh graph; skips unless TensorFlow sees a GPU."""
    if not any(d.device_type == "GPU" for d in tf.Session().list_devices()):
        pytest.skip("needs a GPU visible to TensorFlow")
    sessions = []

    def make(graph):
        sess = tf.Session(graph=graph, config=tf.ConfigProto(allow_soft_placement=True))
        sessions.append(sess)
        return sess

    yield make
    for sess in sessions:
        sess.close()


def test_ops_on_the_gpu_and_the_feed_copied_to_it(tf, gpu_session):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [256, 256], name="x")
        with tf.device("/gpu:0"):
            y = tf.reduce_sum(tf.matmul(x, x), name="y")
    sess = gpu_session(g)
    report = tfguard.placement(sess, y, {x: [[1.0] * 256] * 256})
    devices = {d["device"]: d for d in report.devices}
    assert "GPU:0" in devices and devices["GPU:0"]["ops"] >= 2
    assert report.fallbacks == []
    assert "GPU:0" in report.gpus_visible
    into_gpu = [t for t in report.transfers if t["to"] == "GPU:0"]
    assert sum(t["bytes"] for t in into_gpu) >= 256 * 256 * 4  # the fed matrix goes to the GPU


def test_an_op_without_a_gpu_kernel_falls_back_with_its_line(tf, gpu_session):
    g = tf.Graph()
    with g.as_default():
        words = tf.placeholder(tf.string, [None], name="words")
        with tf.device("/gpu:0"):
            lengths = tf.strings.length(words)  # no GPU kernel for strings
    sess = gpu_session(g)
    report = tfguard.placement(sess, lengths, {words: ["a", "bcd"]})
    fallback = [f for f in report.fallbacks if f["type"] == "StringLength"]
    assert fallback and fallback[0]["ran_on"] == "CPU:0" and fallback[0]["path"] == __file__
    message = dict((c, m) for c, _, m in report.diagnostics)["TFG906"]
    assert "no GPU kernel" in message
