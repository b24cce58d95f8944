"""Qualified-name resolution through import aliases, without inferring into TensorFlow."""

import astroid
import pytest

from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.tfapi import canonical


def qualname_of_last_call(source: str) -> str:
    module = astroid.parse(source)
    analysis = ModuleAnalysis(module, "m.py")
    call = list(module.nodes_of_class(astroid.nodes.Call))[-1]
    return analysis.call_qualname(call)


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import tensorflow as tf\ntf.train.Saver()", "tensorflow.train.Saver"),
        ("import tensorflow.compat.v1 as tf\ntf.train.Saver()", "tensorflow.train.Saver"),
        ("from tensorflow.compat import v1 as tf\ntf.train.Saver()", "tensorflow.train.Saver"),
        ("import tensorflow.compat.v1 as tf1\ntf1.train.Saver()", "tensorflow.train.Saver"),
        ("from tensorflow import train\ntrain.Saver()", "tensorflow.train.Saver"),
        ("from tensorflow.train import Saver as S\nS()", "tensorflow.train.Saver"),
        ("from tensorflow.compat.v1.summary import FileWriter\nFileWriter('d')", "tensorflow.summary.FileWriter"),
        ("import tensorflow\ntensorflow.compat.v1.train.Saver()", "tensorflow.train.Saver"),
        ("import tensorflow.compat.v1\ntensorflow.compat.v1.Session()", "tensorflow.Session"),
        ("import tensorflow as tf\ntf1 = tf.compat.v1\ntf1.Session()", "tensorflow.Session"),
        ("import tensorflow as tf\ntf.scalar_summary('a', 1)", "tensorflow.summary.scalar"),
        ("import tensorflow as tf\ntf.train.SummaryWriter('d')", "tensorflow.summary.FileWriter"),
        ("import tensorflow as tf\ntf.contrib.data.Dataset.range(3)", "tensorflow.data.Dataset.range"),
        (
            "try:\n    import tensorflow.compat.v1 as tf\n"
            "except ImportError:\n    import tensorflow as tf\ntf.Session()",
            "tensorflow.Session",
        ),
        ("import tensorflow as tf\ndef f():\n    return tf.constant(1)\nf()", None),
        ("import numpy as tf\ntf.zeros(3)", "numpy.zeros"),
    ],
)
def test_qualified_names(source, expected):
    assert qualname_of_last_call(source) == expected


def test_local_rebinding_hides_the_import():
    source = "import tensorflow as tf\ndef f(tf):\n    tf.Session()\n"
    assert qualname_of_last_call(source) is None


@pytest.mark.parametrize(
    "name, expected",
    [
        ("tensorflow.compat.v1.summary.merge_all", "tensorflow.summary.merge_all"),
        ("tensorflow.merge_all_summaries", "tensorflow.summary.merge_all"),
        ("tensorflow.initialize_all_variables", "tensorflow.global_variables_initializer"),
        ("tensorflow.io.gfile.exists", "tensorflow.gfile.exists"),
        ("tensorflow.nn.relu", "tensorflow.nn.relu"),
    ],
)
def test_canonical(name, expected):
    assert canonical(name) == expected
