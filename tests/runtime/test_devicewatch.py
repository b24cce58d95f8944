"""placement_at=N under frozen/watch/GuardHook, and GPU sampling (the no-GPU path on CPU machines)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import tfguard
from tfguard.runtime.devices.devicewatch import DeviceWatch
from tfguard.runtime.devices.gpu import GpuSampler, GpuStats
from tfguard.runtime.output.session_report import SessionReport
from tfguard.runtime.verdict import Diagnostic

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _gpu_sampled():
    summary = GpuSampler(interval=0.01).start()
    summary.stop()
    return bool(summary.gpus)


needs_gpu = pytest.mark.skipif(not _gpu_sampled(), reason="needs an NVIDIA GPU and nvidia-ml-py")


@pytest.mark.parametrize("mode", ["watch", "frozen"])
def test_placement_at_traces_that_run_of_the_step(tf, graph, sess, mode):
    _, parts = graph
    guard_of = getattr(tfguard, mode)
    with guard_of(sess, placement_at=3) as guard:
        sess.run(parts["init"])  # another signature: never reaches 3 first
        for _ in range(5):
            sess.run(parts["step"], feed_dict={parts["x"]: 1.0})
        assert "run" in vars(sess)  # the guard's own wrapper stays
    report = guard.report
    assert report.runs == 6  # the traced run is one of the recorded runs, not an extra one
    assert sess.run(parts["w"]) == 6.0  # five steps from 1.0: no extra step ran
    placement = report.placement
    assert placement["run"] == 3 and placement["label"] == "step <- x:0"
    assert [d["device"] for d in placement["devices"]] == ["CPU:0"]
    assert report.placement_at == 3
    assert "placement of one step: `step <- x:0` (traced at run 3)" in report.table()
    assert "run" not in vars(sess)  # everything restored


def test_placement_wrapper_leaves_the_session_once_traced(tf, graph, sess):
    _, parts = graph
    with tfguard.watch(sess, placement_at=2):
        guarded_run = sess.run
        sess.run(parts["step"], feed_dict={parts["x"]: 1.0})
        sess.run(parts["step"], feed_dict={parts["x"]: 1.0})
        assert sess.run is not guarded_run  # traced: the counting wrapper took itself off


def test_placement_not_reached_says_so(tf, graph, sess):
    _, parts = graph
    with tfguard.watch(sess, placement_at=50) as guard:
        sess.run(parts["step"], feed_dict={parts["x"]: 1.0})
    assert guard.report.placement is None
    assert "placement: not traced (no fetch signature reached 50 runs through session.run)" in guard.report.table()


def test_fallback_is_a_report_diagnostic_and_survives_json(tf):
    if any(d.device_type == "GPU" for d in tf.Session().list_devices()):
        pytest.skip("a GPU is visible")
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        with tf.device("/gpu:0"):
            doubled = x * 2.0  # pinned, falls back
    sess = tf.Session(graph=g, config=tf.ConfigProto(allow_soft_placement=True))
    with tfguard.frozen(sess, placement_at=1) as guard:
        for _ in range(3):
            sess.run(doubled, {x: 1.0})
    sess.close()
    report = guard.report
    assert "TFG906" in [c for c, _, _ in report.diagnostics]
    again = SessionReport.from_dict(json.loads(json.dumps(report.to_dict())))
    assert again.table() == report.table()
    assert "doubled = x * 2.0" in again.table()
    assert again.placement["fallbacks"][0]["path"] == __file__


def test_guard_hook_placement_at(tf):
    g = tf.Graph()
    with g.as_default():
        step_var = tf.train.get_or_create_global_step()
        train = tf.assign_add(step_var, 1)
        hook = tfguard.GuardHook(log=False, placement_at=2)
        with tf.train.MonitoredSession(hooks=[hook]) as session:
            for _ in range(4):
                session.run(train)
    placement = hook.report.placement
    assert placement is not None and placement["run"] == 2
    assert [d["device"] for d in placement["devices"]] == ["CPU:0"]
    assert placement["variables"][0]["names"] == ["global_step"]
    with pytest.raises(ValueError, match="placement_at must be a positive whole number"):
        tfguard.GuardHook(placement_at=-1)


def test_no_gpu_is_one_line_and_nothing_fails(tf, graph, sess):
    _, parts = graph
    with tfguard.watch(sess) as guard:
        sess.run(parts["step"], feed_dict={parts["x"]: 1.0})
    gpu = guard.report.gpu
    if gpu["gpus"]:
        pytest.skip("a GPU is visible to NVML")
    assert gpu["reason"].startswith("no GPU visible")
    assert "GPU utilisation\n  no GPU visible" in guard.report.table()
    with tfguard.watch(sess, sample_gpu=False) as quiet:
        sess.run(parts["step"], feed_dict={parts["x"]: 1.0})
    assert quiet.report.gpu is None and "GPU utilisation" not in quiet.report.table()


@pytest.mark.parametrize("driver, reason", [
    (True, "no GPU visible (nvidia-ml-py not installed: pip install nvidia-ml-py)"),
    (False, "no GPU visible (no NVIDIA driver on this machine)")])  # no advice to install where it cannot help
def test_without_nvidia_ml_py_the_reason_says_how_to_install_where_a_driver_is(driver, reason):
    code = ("import sys; sys.modules['pynvml'] = None\n"
            "from tfguard.runtime.devices import gpu\n"
            "gpu._nvidia_driver = lambda: %s\n"
            "s = gpu.GpuSampler().start(); s.stop(); print(s.summary()['reason'])" % driver)
    done = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=ROOT),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == reason


def test_gpu_summary_statistics():
    stats = GpuStats("GPU 0 (test)", 1 << 30)
    for utilisation, used in ((0, 10), (5, 30), (50, 20), (90, 25)):
        stats.add(utilisation, used)
    summary = stats.summary()
    assert summary["samples"] == 4
    assert summary["utilisation_median"] == 27.5  # mean of the middle two (5, 50)
    assert summary["utilisation_mean"] == 36.25
    assert summary["idle_share"] == 0.5  # 0% and 5% are under 10%
    assert summary["peak_memory_bytes"] == 30


def test_tfg903_says_what_the_gpu_did():
    sampler = GpuSampler()
    stats = GpuStats("GPU 0 (test)")
    for utilisation in (3, 4, 80, 2):
        stats.add(utilisation, 1)
    sampler.gpus.append(stats)
    watch = DeviceWatch(sample_gpu=False)
    watch.sampler = sampler
    data = {}
    (said,) = watch.contribute(data, [Diagnostic("TFG903", "warning", "input-bound: ...")])
    assert said.headline == "input-bound: ...; meanwhile GPU 0 (test) busy in 25% of samples"
    assert data["gpu"]["gpus"][0]["idle_share"] == 0.75


@needs_gpu
def test_nvml_samples_every_visible_gpu():
    import time

    sampler = GpuSampler(interval=0.05).start()
    time.sleep(0.6)
    sampler.stop()
    summary = sampler.summary()
    assert summary["reason"] is None
    for gpu in summary["gpus"]:
        assert gpu["samples"] >= 3
        assert 0 <= gpu["utilisation_median"] <= 100
        assert 0 < gpu["peak_memory_bytes"] <= gpu["total_memory_bytes"]


def test_placement_names_load_without_tensorflow():
    code = ("import sys, tfguard\n"
            "tfguard.placement, tfguard.PlacementReport\n"
            "import tfguard.runtime.devices.devicewatch, tfguard.runtime.devices.gpu\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tensorflow', 'pynvml')))")
    done = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=ROOT),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
