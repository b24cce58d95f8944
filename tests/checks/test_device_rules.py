"""Unit tests for the device and memory rules TFG301–TFG305 (snippets through ``tfguard.check_source``)."""

from __future__ import annotations

import textwrap

import pytest

import tfguard
from tfguard.static.config import Settings
from tfguard.static.registry import all_rules

HEADER = """\
import os
import tensorflow as tf
FLAGS = tf.app.flags.FLAGS
"""
HEADER_LINES = HEADER.count("\n")


def lines_of(code: str, body: str) -> list:
    """Return the lines (relative to ``body``) where ``code`` fires on HEADER + body."""
    source = HEADER + textwrap.dedent(body)
    findings = tfguard.check_source(source, "snippet.py", Settings(select=(code,)))
    return [f.line - HEADER_LINES for f in findings]


def findings_of(code: str, body: str) -> list:
    """Return the findings of ``code`` on HEADER + body."""
    return tfguard.check_source(HEADER + textwrap.dedent(body), "snippet.py", Settings(select=(code,)))


# -- TFG301 gpu-without-soft-placement ---------------------------------------------------

@pytest.mark.parametrize("body, expected", [
    pytest.param("""\
        with tf.device('/gpu:1'):
            a = tf.constant(1.0)
        sess = tf.Session()
        """, [1], id="literal-pin-no-config"),
    pytest.param("""\
        for i in range(2):
            with tf.device('/device:GPU:%d' % i):
                a = tf.constant(1.0)
            with tf.device('/gpu:{}'.format(i)):
                b = tf.constant(1.0)
            with tf.device(f'/gpu:{i}'):
                c = tf.constant(1.0)
            with tf.device('/gpu:' + str(i)):
                d = tf.constant(1.0)
        sess = tf.Session(config=tf.ConfigProto(log_device_placement=FLAGS.log))
        """, [2, 4, 6, 8], id="format-strings"),
    pytest.param("""\
        for d in ['/device:GPU:2', '/device:GPU:3']:
            with tf.device(d):
                a = tf.constant(1.0)
        config = tf.ConfigProto()
        config.gpu_options.allow_growth = True
        sess = tf.Session(config=config)
        """, [2], id="device-from-list-and-config-name"),
    pytest.param("""\
        with tf.device('/gpu:0'):
            a = tf.constant(1.0)
        sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=False))
        """, [1], id="soft-placement-false"),
])
def test_gpu_without_soft_placement_fires(body, expected):
    assert lines_of("TFG301", body) == expected


@pytest.mark.parametrize("body", [
    pytest.param("""\
        with tf.device('/gpu:0'):
            a = tf.constant(1.0)
        sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True))
        """, id="soft-placement-keyword"),
    pytest.param("""\
        with tf.device('/gpu:0'):
            a = tf.constant(1.0)
        config = tf.ConfigProto()
        config.allow_soft_placement = True
        sess = tf.Session(config=config)
        """, id="soft-placement-attribute"),
    pytest.param("""\
        def make_config():
            config = tf.ConfigProto()
            config.allow_soft_placement = True
            return config
        with tf.device('/gpu:0'):
            a = tf.constant(1.0)
        sess = tf.Session(config=make_config())
        """, id="config-from-local-helper"),
    pytest.param("""\
        with tf.device('/gpu:0'):
            a = tf.constant(1.0)
        """, id="no-session-in-module"),
    pytest.param("""\
        with tf.device('/cpu:0'):
            a = tf.constant(1.0)
        sess = tf.Session()
        """, id="cpu-pin"),
    pytest.param("""\
        def train(config):
            with tf.device('/gpu:0'):
                a = tf.constant(1.0)
            sess = tf.Session(config=config)
        """, id="config-unknown"),
])
def test_gpu_without_soft_placement_silent(body):
    assert lines_of("TFG301", body) == []


def test_gpu_pin_message_names_the_session_that_runs_it():
    body = """\
        def export():
            return tf.Session()
        def train():
            with tf.device('/gpu:0'):
                a = tf.constant(1.0)
            sess = tf.Session(config=tf.ConfigProto(log_device_placement=False))
            for step in range(100): sess.run(a)
        with tf.device('/gpu:1'):
            b = tf.constant(2.0)
        """
    messages = {f.line - HEADER_LINES: f.message for f in findings_of("TFG301", body)}
    assert "but `tf.Session()` at line 9 is created without" in messages[4]  # the session of train()
    assert "but the sessions at lines 5 and 9 are created without" in messages[8]  # module level: either


# -- TFG302 log-device-placement ---------------------------------------------------------

@pytest.mark.parametrize("body, expected", [
    pytest.param("""\
        sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
        """, [1], id="keyword"),
    pytest.param("""\
        import tensorflow.compat.v1 as tf1
        config = tf1.ConfigProto(allow_soft_placement=True,
                                 log_device_placement=True)
        config.log_device_placement = True
        """, [3, 4], id="compat-keyword-and-attribute"),
])
def test_log_device_placement_fires(body, expected):
    assert lines_of("TFG302", body) == expected


@pytest.mark.parametrize("body", [
    pytest.param("""\
        sess = tf.Session(config=tf.ConfigProto(log_device_placement=FLAGS.log_device_placement))
        """, id="from-flag"),
    pytest.param("""\
        config = tf.ConfigProto(log_device_placement=False)
        config.log_device_placement = args.verbose
        """, id="false-and-variable"),
])
def test_log_device_placement_silent(body):
    assert lines_of("TFG302", body) == []


# -- TFG303 tower-without-reuse ----------------------------------------------------------

VARIABLE_ON_CPU = """\
        def _variable_on_cpu(name, shape, initializer):
            with tf.device('/cpu:0'):
                var = tf.get_variable(name, shape, initializer=initializer)
            return var
"""


@pytest.mark.parametrize("body, expected", [
    pytest.param("""\
        for i in range(2):
            with tf.device('/gpu:%d' % i):
                w = tf.get_variable('w', [10, 10])
        """, [3], id="direct-get-variable"),
    pytest.param(VARIABLE_ON_CPU + """\
        for i in range(FLAGS.num_gpus):
            with tf.device('/gpu:%d' % i):
                with tf.name_scope('tower_%d' % i) as scope:
                    w = _variable_on_cpu('w', [10, 10], tf.zeros_initializer())
        """, [8], id="through-helper"),
    pytest.param("""\
        for i in range(2):
            with tf.name_scope('tower_%d' % i):
                w = tf.get_variable('w', [10])
        """, [3], id="name-scope-tower"),
    pytest.param("""\
        for i in range(2):
            with tf.device('/gpu:%d' % i), tf.variable_scope('model', reuse=False):
                w = tf.get_variable('w', [10])
        """, [3], id="reuse-false"),
])
def test_tower_without_reuse_fires(body, expected):
    assert lines_of("TFG303", body) == expected


@pytest.mark.parametrize("body", [
    pytest.param("""\
        for i in range(2):
            with tf.device('/gpu:%d' % i), tf.variable_scope('model', reuse=(i > 0)):
                w = tf.get_variable('w', [10])
        """, id="reuse-i-greater-than-zero"),
    pytest.param("""\
        for i in range(2):
            with tf.device('/gpu:%d' % i):
                with tf.variable_scope(tf.get_variable_scope(), reuse=bool(i)):
                    w = tf.get_variable('w', [10])
        """, id="reuse-bool-i"),
    pytest.param("""\
        with tf.variable_scope(tf.get_variable_scope(), reuse=tf.AUTO_REUSE):
            for i in range(2):
                with tf.device('/gpu:%d' % i):
                    w = tf.get_variable('w', [10])
        """, id="enclosing-auto-reuse"),
    pytest.param(VARIABLE_ON_CPU + """\
        for i in range(2):
            with tf.device('/gpu:%d' % i):
                w = _variable_on_cpu('w', [10], tf.zeros_initializer())
                tf.get_variable_scope().reuse_variables()
        """, id="reuse-variables-in-loop"),
    pytest.param(VARIABLE_ON_CPU + """\
        w = _variable_on_cpu('w', [10], tf.zeros_initializer())
        tf.get_variable_scope().reuse_variables()
        for i in range(2):
            with tf.device('/gpu:%d' % i):
                w = _variable_on_cpu('w', [10], tf.zeros_initializer())
        """, id="reuse-variables-before-loop"),
    pytest.param("""\
        for i in range(2):
            with tf.device('/gpu:%d' % i), tf.variable_scope('tower_%d' % i):
                w = tf.get_variable('w', [10])
        """, id="variable-scope-per-tower-gives-unique-names"),
    pytest.param("""\
        for i in range(3):
            w = tf.get_variable('w', [10])
        """, id="not-a-tower-loop"),
    pytest.param("""\
        for i in range(2):
            with tf.device('/gpu:%d' % i):
                w = tf.get_variable('w_%d' % i, [10])
        """, id="variable-name-from-loop-variable"),
])
def test_tower_without_reuse_silent(body):
    assert lines_of("TFG303", body) == []


def test_tower_finding_chains_into_helper():
    (finding,) = findings_of("TFG303", VARIABLE_ON_CPU + """\
        for i in range(2):
            with tf.device('/gpu:%d' % i):
                w = _variable_on_cpu('w', [10], tf.zeros_initializer())
        """)
    assert [(link.line - HEADER_LINES, link.function) for link in finding.chain] == [(3, "_variable_on_cpu")]
    assert "already exists" in finding.message and "reuse_variables()" in finding.message
    assert finding.severity == "error"


# -- TFG304 gpu-memory-unbounded ---------------------------------------------------------

def test_gpu_memory_unbounded_is_info_and_off_by_default():
    rule = all_rules()["TFG304"]
    assert rule.severity == "info" and rule.default_enabled is False
    source = HEADER + "with tf.device('/gpu:0'):\n    a = tf.constant(1.0)\nsess = tf.Session()\n"
    assert [f.code for f in tfguard.check_source(source, "s.py")].count("TFG304") == 0


@pytest.mark.parametrize("body, expected", [
    pytest.param("""\
        with tf.device('/gpu:0'):
            a = tf.constant(1.0)
        sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True))
        """, [3], id="no-memory-option"),
    pytest.param("""\
        with tf.device('/gpu:0'):
            a = tf.constant(1.0)
        sess = tf.train.MonitoredTrainingSession(config=tf.ConfigProto(gpu_options=tf.GPUOptions(allow_growth=False)))
        """, [3], id="allow-growth-false"),
])
def test_gpu_memory_unbounded_fires(body, expected):
    assert lines_of("TFG304", body) == expected


@pytest.mark.parametrize("body", [
    pytest.param("""\
        with tf.device('/gpu:0'):
            a = tf.constant(1.0)
        config = tf.ConfigProto()
        config.gpu_options.allow_growth = True
        sess = tf.Session(config=config)
        """, id="allow-growth-attribute"),
    pytest.param("""\
        with tf.device('/gpu:0'):
            a = tf.constant(1.0)
        gpu_options = tf.GPUOptions(per_process_gpu_memory_fraction=0.4)
        sess = tf.Session(config=tf.ConfigProto(gpu_options=gpu_options))
        """, id="memory-fraction-through-name"),
    pytest.param("""\
        os.environ['TF_FORCE_GPU_ALLOW_GROWTH'] = 'true'
        with tf.device('/gpu:0'):
            a = tf.constant(1.0)
        sess = tf.Session()
        """, id="env-allow-growth"),
    pytest.param("""\
        a = tf.constant(1.0)
        sess = tf.Session()
        """, id="no-gpu-pin"),
])
def test_gpu_memory_unbounded_silent(body):
    assert lines_of("TFG304", body) == []


# -- TFG305 cuda-visible-devices-late ----------------------------------------------------

@pytest.mark.parametrize("body, expected", [
    pytest.param("""\
        sess = tf.Session()
        os.environ["CUDA_VISIBLE_DEVICES"] = "1"
        """, [2], id="subscript-after-session"),
    pytest.param("""\
        def main():
            sess = tf.InteractiveSession()
            os.environ.update({"CUDA_VISIBLE_DEVICES": "0,1"})
            os.putenv("CUDA_VISIBLE_DEVICES", "0")
        """, [3, 4], id="update-and-putenv-in-function"),
    pytest.param("""\
        def make_session():
            return tf.Session()
        sess = make_session()
        os.environ.setdefault("CUDA_VISIBLE_DEVICES", "0")
        """, [4], id="session-from-helper"),
])
def test_cuda_visible_devices_late_fires(body, expected):
    assert lines_of("TFG305", body) == expected


@pytest.mark.parametrize("body", [
    pytest.param("""\
        os.environ["CUDA_VISIBLE_DEVICES"] = "1"
        sess = tf.Session()
        """, id="before-session"),
    pytest.param("""\
        sess = tf.Session()
        os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
        """, id="other-variable"),
    pytest.param("""\
        def build():
            return tf.Session()
        def main():
            os.environ["CUDA_VISIBLE_DEVICES"] = "0"
            sess = build()
        """, id="session-in-another-function"),
])
def test_cuda_visible_devices_late_silent(body):
    assert lines_of("TFG305", body) == []


def test_tower_helper_with_computed_variable_names_is_silent():
    source = VARIABLE_ON_CPU + """\
        class Net:
            def __init__(self):
                self.count = 0
            def fc(self, x):
                self.count += 1
                return _variable_on_cpu("W_fc_%d" % self.count, [10], tf.zeros_initializer())
            def named(self, x, name="w"):
                return _variable_on_cpu(name, [10], tf.zeros_initializer())
        net = Net()
        for i in range(2):
            with tf.name_scope("branch_%d" % i):
                net.fc(1)
                net.named(1)
        """
    found = findings_of("TFG303", source)
    assert [f.line - HEADER_LINES for f in found] == [len(VARIABLE_ON_CPU.splitlines()) + 13]
