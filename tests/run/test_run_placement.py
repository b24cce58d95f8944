"""`tfguard run --placement[=N]` through the real CLI: the printed report, the JSON, usage errors."""

from __future__ import annotations

import json

import pytest

from tests.run.conftest import busiest, tfguard

pytestmark = pytest.mark.usefixtures("tensorflow_installed")

PINNED_SCRIPT = '''
import sys
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
print("argv=" + repr(sys.argv[1:]))
x = tf.placeholder(tf.float32, [4, 4])
with tf.device("/gpu:0"):
    y = tf.reduce_sum(tf.matmul(x, x))  # pinned to the GPU
with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
    for i in range(int(sys.argv[1])):
        sess.run(y, {x: [[1.0] * 4] * 4})
'''
PINNED_LINE = PINNED_SCRIPT.splitlines().index("    y = tf.reduce_sum(tf.matmul(x, x))  # pinned to the GPU") + 1


@pytest.fixture
def pinned_script(tmp_path, tf_v1):
    """A script whose ops are pinned to /gpu:0 with soft placement; skipped where a GPU exists."""
    if any(d.device_type == "GPU" for d in tf_v1.Session().list_devices()):
        pytest.skip("a GPU is visible: the ops would run there")
    path = tmp_path / "pinned.py"
    path.write_text(PINNED_SCRIPT, encoding="utf-8")
    return path


@pytest.mark.slow
def test_placement_in_printed_report_and_json(pinned_script, tmp_path):
    out = tmp_path / "run.json"
    done = tfguard("run", "--placement", "--json", out, pinned_script, "8", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "argv=['8']" in done.stdout  # a bare --placement left the script and its arguments alone
    assert "placement of one step: `Sum:0 <- Placeholder:0` (traced at run 5)" in done.stderr
    assert "pinned.py:%d" % PINNED_LINE in done.stderr
    assert "GPU utilisation\n  no GPU visible" in done.stderr
    document = busiest(json.loads(out.read_text(encoding="utf-8")))
    placement = document["placement"]
    assert placement["run"] == 5 and document["placement_at"] == 5
    assert {(f["type"], f["ran_on"], f["path"], f["line"]) for f in placement["fallbacks"]} >= {
        ("MatMul", "CPU:0", str(pinned_script), PINNED_LINE), ("Sum", "CPU:0", str(pinned_script), PINNED_LINE)}
    assert "TFG906" in [d["code"] for d in document["diagnostics"]]
    assert document["gpu"]["reason"].startswith("no GPU visible")
    shown = tfguard("report", out, cwd=tmp_path)  # the saved report prints the same section
    assert shown.returncode == 0 and "ops pinned to a GPU that ran on a CPU" in shown.stdout


@pytest.mark.slow
def test_placement_equals_n_and_fail_on(pinned_script, tmp_path):
    out = tmp_path / "run.json"
    done = tfguard("run", "--quiet", "--placement=3", "--fail-on", "cpu-fallback", "--json", out,
                   pinned_script, "4", cwd=tmp_path)
    assert done.returncode == 1
    assert "failing (--fail-on): cpu-fallback (TFG906)" in done.stderr
    assert busiest(json.loads(out.read_text(encoding="utf-8")))["placement"]["run"] == 3


@pytest.mark.slow
def test_without_placement_and_script_options_are_the_scripts(pinned_script, tmp_path):
    out = tmp_path / "run.json"
    done = tfguard("run", "--quiet", "--json", out, pinned_script, "2", "--placement", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "argv=['2', '--placement']" in done.stdout
    document = busiest(json.loads(out.read_text(encoding="utf-8")))
    assert document["placement"] is None and document["placement_at"] is None


@pytest.mark.slow
def test_not_reached_says_so(pinned_script, tmp_path):
    done = tfguard("run", "--placement=50", pinned_script, "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "placement: not traced (no fetch signature reached 50 runs through session.run)" in done.stderr


@pytest.mark.parametrize("value", ["0", "two"])
def test_bad_placement_is_one_line(value, tmp_path):
    done = tfguard("run", "--placement=" + value, "x.py", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == "tfguard: error: --placement needs a positive whole number, got %r" % value
