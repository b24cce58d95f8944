"""tfguard.placement on real TensorFlow (CPU): fallbacks with lines, copies between two CPUs, round trip.

What a CPU-only build can show: every op's device, ops pinned to a GPU that soft placement put on
the CPU, and the _Send/_Recv pairs between two CPU devices (from the partition graphs; TF 2.x does
not list them in step_stats), with bytes from the producing op's allocation. What it cannot show:
GPU kernel time (`/stream:all`) and GPU memcpy events, which only a GPU trace has.
"""

from __future__ import annotations

import json

import pytest

import tfguard
from tfguard.runtime.devices.placement import PlacementReport, device_type, short_device


def _line_of(marker):
    lines = open(__file__, encoding="utf-8").read().splitlines()
    return next(i for i, text in enumerate(lines, 1) if marker in text and "_line_of" not in text)


@pytest.fixture
def no_gpu(tf):
    """Skip when TensorFlow sees a GPU (the fallback tests need soft placement onto the CPU)."""
    if any(d.device_type == "GPU" for d in tf.Session().list_devices()):
        pytest.skip("a GPU is visible: ops pinned to it would run there")


@pytest.fixture
def two_cpus(tf):
    """A graph over /cpu:0, /gpu:0 (absent) and /cpu:1 and a session with two CPU devices."""
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:0"):
            x = tf.placeholder(tf.float32, [4, 4], name="x")
            w = tf.Variable(tf.ones([4, 4]), name="w")
        with tf.device("/gpu:0"):
            y = tf.matmul(x, w, name="mm")  # pinned to the GPU
        with tf.device("/cpu:1"):
            v = tf.Variable(tf.zeros([4]), name="v")
            z = tf.reduce_sum(y * 2.0 + v[0], name="z")
        init = tf.global_variables_initializer()
    config = tf.ConfigProto(device_count={"CPU": 2}, allow_soft_placement=True)
    sess = tf.Session(graph=g, config=config)
    sess.run(init)
    yield sess, {"x": x, "z": z, "feed": {x: [[1.0] * 4] * 4}}
    sess.close()


def test_ops_pinned_to_a_missing_gpu_are_listed_with_their_lines(tf, no_gpu, two_cpus):
    sess, parts = two_cpus
    report = tfguard.placement(sess, parts["z"], parts["feed"])
    fallback = {f["op"]: f for f in report.fallbacks}
    assert set(fallback) == {"mm"}
    assert fallback["mm"]["ran_on"] == "CPU:0"
    assert fallback["mm"]["type"] == "MatMul"
    assert fallback["mm"]["requested"].lower().endswith("gpu:0")
    assert fallback["mm"]["path"] == __file__
    assert fallback["mm"]["line"] == _line_of("# pinned to the GPU")
    assert "tf.matmul(x, w" in fallback["mm"]["code"]
    codes = dict((c, (s, m)) for c, s, m in report.diagnostics)
    severity, message = codes["TFG906"]
    assert severity == "warning"
    assert "1 op pinned to a GPU ran on a CPU" in message and "(MatMul)" in message
    assert "no GPU is visible" in message
    assert report.gpus_visible == []
    table = report.table()
    assert "ops pinned to a GPU that ran on a CPU" in table and "GPUs visible to the session: none" in table


def test_tensors_between_two_cpu_devices_are_counted_with_bytes(tf, no_gpu, two_cpus):
    sess, parts = two_cpus
    report = tfguard.placement(sess, parts["z"], parts["feed"])
    devices = {d["device"]: d for d in report.devices}
    assert set(devices) == {"CPU:0", "CPU:1"}
    assert devices["CPU:0"]["ops"] >= 3 and devices["CPU:1"]["ops"] >= 3
    assert abs(sum(d["share"] for d in report.devices) - 1.0) < 1e-9
    pairs = {(t["from"], t["to"]): t for t in report.transfers}
    # mm (4x4 float32 = 64 bytes) goes to CPU:1; z (a scalar) comes back to be fetched.
    assert pairs[("CPU:0", "CPU:1")]["count"] == 1
    assert pairs[("CPU:0", "CPU:1")]["bytes"] == 64
    assert pairs[("CPU:1", "CPU:0")]["bytes"] == 4
    assert report.memcpy == []  # GPU memcpy events exist only in a GPU trace
    assert "TFG907" not in [c for c, _, _ in report.diagnostics]  # 2 copies: under the default threshold
    busy = tfguard.placement(sess, parts["z"], parts["feed"], copies_threshold=2)
    assert ("TFG907", "info") in [(c, s) for c, s, _ in busy.diagnostics]


def test_variables_by_device_parameter_server_placement_is_not_a_warning(tf, no_gpu, two_cpus):
    sess, parts = two_cpus
    report = tfguard.placement(sess, parts["z"], parts["feed"])
    by_device = {v["device"]: v for v in report.variables}
    assert by_device["CPU:0"]["names"] == ["w"] and by_device["CPU:0"]["bytes"] == 64
    assert by_device["CPU:1"]["names"] == ["v"] and by_device["CPU:1"]["bytes"] == 16
    assert "parameter-server style placement is fine" in report.table()
    assert all(c in ("TFG906", "TFG907") for c, _, _ in report.diagnostics)


def test_round_trip_through_json(tf, two_cpus):
    sess, parts = two_cpus
    report = tfguard.placement(sess, parts["z"], parts["feed"])
    again = PlacementReport.from_dict(json.loads(json.dumps(report.to_dict())))
    assert again.to_dict() == report.to_dict()
    assert again.table() == report.table()
    assert again.diagnostics == report.diagnostics
    with pytest.raises(ValueError, match="unsupported tfguard placement report version"):
        PlacementReport.from_dict({"version": 99})


def test_well_placed_step_has_no_findings(tf, sess, graph):
    _, parts = graph
    report = tfguard.placement(sess, parts["step"], {parts["x"]: 1.0})
    assert report.fallbacks == [] and report.transfers == [] and report.diagnostics == []
    assert [d["device"] for d in report.devices] == ["CPU:0"]
    assert report.label == "step <- x:0"
    assert "tensors crossing devices in the step: none" in report.table()


def test_bad_arguments_are_one_line_errors(tf, sess, graph):
    with pytest.raises(TypeError, match="needs a TensorFlow session"):
        tfguard.placement(object(), None)
    with pytest.raises(ValueError, match="copies_threshold must be a positive whole number"):
        tfguard.placement(sess, graph[1]["step"], copies_threshold=0)
    with pytest.raises(ValueError, match="placement_at must be a positive whole number"):
        tfguard.watch(sess, placement_at=0)


@pytest.mark.parametrize("name, short", [
    ("/job:localhost/replica:0/task:0/device:CPU:0", "CPU:0"),
    ("/device:GPU:1", "GPU:1"),
    ("/gpu:0", "GPU:0"),
    ("/device:GPU:0/stream:all", "GPU:0"),
    ("/job:worker/replica:0/task:1/device:GPU:0", "worker/1/GPU:0"),
    ("/job:ps/task:0/cpu:0", "ps/0/CPU:0"),
    ("/host:CPU", ""),
    ("", ""),
])
def test_short_device_names(name, short):
    assert short_device(name) == short
    assert device_type(name) == (short.rsplit("/", 1)[-1].split(":")[0])
