"""The generated list of TF APIs whose ops hold state: shipped, read by the fixes, and current for TensorFlow."""

from __future__ import annotations

import importlib.util
import json

import pytest

from tfguard.static.fixes import stateful


@pytest.mark.parametrize("name", [
    "tensorflow.random_normal", "tensorflow.random.normal", "tensorflow.random_uniform", "tensorflow.truncated_normal",
    "tensorflow.multinomial", "tensorflow.nn.dropout", "tensorflow.random_crop",
    "tensorflow.image.random_flip_left_right", "tensorflow.random_shuffle", "tensorflow.Print", "tensorflow.py_func",
    "tensorflow.FIFOQueue", "tensorflow.TextLineReader", ".make_one_shot_iterator",
    # control flow running a function of the caller's, whose builds the data cannot follow (issue 40)
    "tensorflow.cond", "tensorflow.while_loop", "tensorflow.map_fn", "tensorflow.nn.dynamic_rnn",
])
def test_random_ops_queues_readers_print_and_py_func_hold_state(name):
    assert stateful.state_holding_ops(name)


@pytest.mark.parametrize("name", [
    "tensorflow.reduce_mean", "tensorflow.argmax", "tensorflow.matmul", "tensorflow.nn.softmax", "tensorflow.concat",
    "tensorflow.assign", ".assign", ".assign_add", ".get_next", "tensorflow.random.stateless_uniform",
    "tensorflow.global_variables_initializer",
    # their While/If/TensorArray ops are TensorFlow's own and hold nothing between runs (issue 40)
    "tensorflow.norm", "tensorflow.losses.sparse_softmax_cross_entropy", "tensorflow.image.per_image_standardization",
])
def test_stateless_ops_and_ops_on_shared_state_do_not(name):
    assert not stateful.state_holding_ops(name)


def test_the_shipped_file_was_generated_from_the_installed_tensorflow():
    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("needs TensorFlow")
    import tensorflow as tf
    from tensorflow.core.framework import types_pb2
    from tensorflow.python.framework import op_def_registry

    assert stateful.generated_for() == tf.__version__, "stale: run `python tools/gen_stateful_ops.py` and commit"
    with open(stateful.DATA, encoding="utf-8") as handle:
        data = json.load(handle)
    for name in data["ops"]:
        op_def = op_def_registry.get(name)
        assert op_def is not None and op_def.is_stateful and op_def.output_arg, name
        assert not any(arg.type == types_pb2.DT_RESOURCE or arg.is_ref for arg in op_def.input_arg), name
    assert all(set(ops) <= set(data["ops"]) for table in ("apis", "methods") for ops in data[table].values())
