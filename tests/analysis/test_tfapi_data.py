"""The generated list of TF APIs that build no op: shipped, used, and current for the installed TensorFlow."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tfguard.static.analysis import tfapi

GENERATOR = Path(__file__).resolve().parents[2] / "tools" / "gen_tfapi_data.py"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_tfapi_data", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", [
    "tensorflow.compat.as_bytes", "tensorflow.compat.as_str", "tensorflow.compat.as_text",
    "tensorflow.nest.flatten", "tensorflow.nest.map_structure", "tensorflow.make_tensor_proto",
    "tensorflow.make_ndarray", "tensorflow.train.summary_iterator", "tensorflow.train.checkpoints_iterator",
    "tensorflow.io.gfile.exists", "tensorflow.gfile.Exists", "tensorflow.resource_loader.get_data_files_path",
    "tensorflow.saved_model.signature_def_utils.build_signature_def",
    "tensorflow.saved_model.utils.build_tensor_info", "tensorflow.Summary", "tensorflow.Summary.FromString",
    "tensorflow.Summary.Value", "tensorflow.GraphDef", "tensorflow.ConfigProto",
    "tensorflow.contrib.util.make_tensor_proto",
])
def test_pure_python_helpers_build_no_op(name):
    assert not tfapi.builds_ops(tfapi.canonical(name))


@pytest.mark.parametrize("name", [
    "tensorflow.reduce_sum", "tensorflow.constant", "tensorflow.train.Saver", "tensorflow.summary.scalar",
    "tensorflow.train.init_from_checkpoint", "tensorflow.nn.relu", "tensorflow.data.Dataset.from_tensor_slices",
    "tensorflow.convert_to_tensor", "tensorflow.contrib.layers.fully_connected",
])
def test_op_builders_still_build_ops(name):
    assert tfapi.builds_ops(tfapi.canonical(name))


def test_the_shipped_file_is_current_for_the_installed_tensorflow():
    pytest.importorskip("tensorflow")
    generator = _generator()
    expected = generator.render(generator.generate())
    shipped = Path(tfapi.GENERATED_NON_OP_FILE).read_text(encoding="utf-8")
    assert shipped == expected, "stale: run `python tools/gen_tfapi_data.py` and commit the file"
