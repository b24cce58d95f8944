"""The TF 1.x part of the API data: read statically from a wheel, shipped, and used by the checker."""

from __future__ import annotations

import importlib.util
import sys
import zipfile
from pathlib import Path

import pytest

from tfguard.static.analysis import tfapi

TOOLS = Path(__file__).resolve().parents[2] / "tools"


def _reader():
    sys.path.insert(0, str(TOOLS))
    try:
        spec = importlib.util.spec_from_file_location("tf1_wheel_api", TOOLS / "tf1_wheel_api.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(TOOLS))


#: A miniature TF 1.x wheel: the public API files and the sources they name.
WHEEL_FILES = {
    "tensorflow-1.15.5.dist-info/METADATA": "Name: tensorflow\nVersion: 1.15.5\n",
    "tensorflow_core/_api/v1/v1.py": (
        "from tensorflow.python.ops.math_ops import add\n"
        "from tensorflow.python.framework.sparse_tensor import SparseTensorValue\n"
        "from tensorflow.python.core_pb2 import ConfigProto\n"
    ),
    "tensorflow_core/_api/v1/train/__init__.py": (
        "from tensorflow.python.training.training_util import get_global_step\n"
        "from tensorflow.python.training.saver import Saver\n"
        "from tensorflow.python.training.adam import AdamOptimizer\n"
    ),
    "tensorflow_core/python/__init__.py": "",
    "tensorflow_core/python/ops/__init__.py": "",
    "tensorflow_core/python/ops/gen_math_ops.py": (
        "def add(x, y):\n    return _op_def_lib._apply_op_helper('Add', x=x, y=y)\n"
    ),
    "tensorflow_core/python/ops/math_ops.py": (
        "from tensorflow.python.ops import gen_math_ops\n"
        "def add(x, y):\n    return gen_math_ops.add(x, y)\n"
    ),
    "tensorflow_core/python/core_pb2.py": "ConfigProto = object\n",
    "tensorflow_core/python/framework/__init__.py": "",
    "tensorflow_core/python/framework/sparse_tensor.py": (
        "import collections\nSparseTensorValue = collections.namedtuple('SparseTensorValue', ['indices'])\n"
    ),
    "tensorflow_core/python/framework/ops.py": (
        "class Graph(object):\n    def get_collection(self, key):\n        return []\n"
        "_default = Graph()\n"
        "def get_default_graph():\n    return _default\n"
    ),
    "tensorflow_core/python/training/__init__.py": "",
    "tensorflow_core/python/training/training_util.py": (
        "from tensorflow.python.framework import ops\n"
        "def get_global_step(graph=None):\n"
        "    graph = graph or ops.get_default_graph()\n"
        "    found = graph.get_collection('global_step')\n"
        "    return found[0] if found else None\n"
    ),
    "tensorflow_core/python/training/saver.py": (
        "class Saver(object):\n    def __init__(self):\n        self._builder.build()\n"
    ),
    "tensorflow_core/python/training/adam.py": (
        "class AdamOptimizer(object):\n    def __init__(self, learning_rate=0.001):\n"
        "        self._lr = learning_rate\n"
    ),
    "tensorflow_core/contrib/__init__.py": "",
    "tensorflow_core/contrib/crf/__init__.py": "from tensorflow.contrib.crf.python.ops.crf import *\n",
    "tensorflow_core/contrib/crf/python/__init__.py": "",
    "tensorflow_core/contrib/crf/python/ops/__init__.py": "",
    "tensorflow_core/contrib/crf/python/ops/crf.py": (
        "import numpy as np\n"
        "from tensorflow.python.ops import math_ops\n"
        "def viterbi_decode(score, transition_params):\n"
        "    trellis = np.zeros_like(score)\n"
        "    path = [np.argmax(trellis[-1])]\n"
        "    path.reverse()\n"
        "    return path, np.max(trellis[-1])\n"
        "def crf_unary_score(a, b):\n"
        "    return math_ops.add(a, b)\n"
        "def model_with_buckets(inputs, seq2seq):\n"
        "    outputs = []\n"
        "    losses = []\n"
        "    for x in inputs:\n"
        "        outputs.append(seq2seq(x))\n"
        "        losses.append(crf_unary_score(x, x))\n"
        "    return outputs, losses\n"
    ),
}


@pytest.fixture(scope="module")
def facts(tmp_path_factory):
    wheel = tmp_path_factory.mktemp("wheel") / "tensorflow-1.15.5-cp37-cp37m-manylinux2010_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in WHEEL_FILES.items():
            archive.writestr(name, text)
    return _reader().read_wheel(str(wheel))


def test_the_version_comes_from_the_wheel(facts):
    assert facts["tensorflow"] == "1.15.5"


@pytest.mark.parametrize("name, kind", [
    ("tensorflow.SparseTensorValue", "value"),
    ("tensorflow.train.get_global_step", "getter"),
    ("tensorflow.train.AdamOptimizer", "class"),
    ("tensorflow.ConfigProto", "protobuf"),
    ("tensorflow.contrib.crf.viterbi_decode", "numpy"),
])
def test_functions_and_classes_that_build_no_op_are_classified(facts, name, kind):
    assert facts["non_op"][name] == kind


@pytest.mark.parametrize("name", [
    "tensorflow.add",  # reaches a generated op wrapper
    "tensorflow.contrib.crf.crf_unary_score",  # through math_ops
    "tensorflow.train.Saver",  # its constructor calls something the reader cannot follow: never claimed
])
def test_op_builders_and_unknown_code_are_not_claimed_to_build_nothing(facts, name):
    assert name not in facts["non_op"]


def test_returned_lists_and_their_items_are_recorded(facts):
    name = "tensorflow.contrib.crf.model_with_buckets"
    assert facts["list_items"][name] == [0, 1]
    assert facts["unknown_items"][name] == [0]  # the callback's results: not known to be tensors


def test_the_generator_says_so_when_the_wheel_is_missing(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("gen_tfapi_data", TOOLS / "gen_tfapi_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--tf1-wheel", str(tmp_path / "missing.whl")]) == 2
    assert "no such wheel" in capsys.readouterr().err


@pytest.mark.parametrize("name", [
    "tensorflow.contrib.framework.get_global_step", "tensorflow.contrib.crf.viterbi_decode",
    "tensorflow.SparseTensorValue", "tensorflow.SparseTensorValue.indices",
    "tensorflow.keras.datasets.mnist.load_data",
])
def test_the_shipped_tf1_facts_know_names_tensorflow_2_lacks(name):
    assert not tfapi.builds_ops(name)


def test_the_shipped_tf1_facts_keep_class_methods_op_building():
    # a constructor that builds nothing does not make the class's methods pure
    assert not tfapi.builds_ops("tensorflow.train.AdamOptimizer")
    assert tfapi.builds_ops("tensorflow.train.AdamOptimizer.minimize")
    assert tfapi.builds_ops("tensorflow.data.Dataset.from_tensor_slices")


def test_the_shipped_tf1_facts_record_returned_lists():
    assert tfapi.list_item_positions("tensorflow.contrib.legacy_seq2seq.model_with_buckets") == (0, 1)
    assert tfapi.returns_data("tensorflow.contrib.crf.viterbi_decode")
