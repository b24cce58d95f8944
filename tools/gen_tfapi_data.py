"""Write ``tfguard/static/analysis/tf_non_op_apis.json``: the public TF APIs that build no op, from TensorFlow itself.

The checker must know which ``tf.*`` calls add ops to the graph, without importing TensorFlow.  This script (the
only place that imports it) walks the public ``tf.compat.v1`` API of the installed TensorFlow, looks up the module
that defines each function and class, and records as *non-op* those defined in helper modules: protocol-buffer
classes (``tf.Summary``, ``tf.ConfigProto``), pure-Python utilities (``tf.compat.as_bytes``, ``tf.nest``), file
and platform helpers (``tf.io.gfile``, ``tf.resource_loader``), event and checkpoint readers, SavedModel
signature helpers.  Everything else (``tensorflow.python.ops``, ``data``, ``training`` ...) may build ops.

Run ``python tools/gen_tfapi_data.py`` after upgrading TensorFlow; ``tests/analysis/test_tfapi_data.py`` fails
while the shipped file's 2.x part is stale for the installed release.

Names TensorFlow 2 dropped (``tf.contrib.*``, ``tf.SparseTensorValue`` ...) come from the TensorFlow 1.15 wheel,
read as files by ``tools/tf1_wheel_api.py`` (never installed nor imported)::

    pip download tensorflow==1.15.5 --no-deps --python-version 37 --only-binary=:all: \
        --platform manylinux2010_x86_64 -d /tmp/tf115
    python tools/gen_tfapi_data.py --tf1-wheel /tmp/tf115/tensorflow-1.15.5-cp37-cp37m-manylinux2010_x86_64.whl

Without ``--tf1-wheel`` the ``tf1`` part of the shipped file is kept as it is (CI never downloads the wheel).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import types
from typing import Dict, List, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, "tfguard", "static", "analysis", "tf_non_op_apis.json")

#: Modules (prefixes, dotted) whose functions and classes never add an op to the default graph.
NON_OP_MODULES = (
    "tensorflow.core.",  # protocol buffers: Summary, GraphDef, ConfigProto, Example...
    "xla.tsl.protobuf.",  # HistogramProto
    "tensorflow.python.util.",  # compat.as_bytes/as_str/as_text, nest, deprecation
    "tensorflow.python.platform.",  # gfile, logging, flags, app, resource_loader, sysconfig, test
    "tensorflow.python.lib.io.",  # io.gfile, TFRecordWriter, tf_record_iterator
    "tensorflow.python.client.",  # Session, device_lib, timeline
    "tensorflow.python.compat.",  # forward_compatible, enable/disable_v2_behavior
    "tensorflow.python.profiler.",
    "tensorflow.python.eager.context",  # executing_eagerly, device policies
    "tensorflow.python.framework.tensor_util",  # make_tensor_proto, make_ndarray, constant_value
    "tensorflow.python.framework.dtypes",
    "tensorflow.python.framework.tensor_shape",
    "tensorflow.python.framework.errors_impl",
    "tensorflow.python.framework.device_spec",
    "tensorflow.python.framework.config",
    "tensorflow.python.framework.random_seed",
    "tensorflow.python.framework.load_library",
    "tensorflow.python.framework.graph_io",  # write_graph
    "tensorflow.python.framework.graph_util_impl",  # works on GraphDef protos
    "tensorflow.python.framework.convert_to_constants",
    "tensorflow.python.summary.summary_iterator",
    "tensorflow.python.summary.writer.",  # FileWriter, FileWriterCache
    "tensorflow.python.saved_model.signature_def_utils_impl",
    "tensorflow.python.saved_model.utils_impl",  # build_tensor_info
    "tensorflow.python.checkpoint.checkpoint_management",  # latest_checkpoint, get_checkpoint_state
    "tensorflow.python.training.checkpoint_utils",  # load_variable, list_variables, checkpoints_iterator
    "tensorflow.python.training.py_checkpoint_reader",
    "tensorflow.python.training.coordinator",
    "tensorflow.python.training.server_lib",
    "tensorflow.python.training.session_run_hook",
    "tensorflow.python.training.device_setter",
    "tensorflow.python.data.ops.options",
    "tensorflow.python.distribute.cluster_resolver.",
)

#: Names defined in one of those modules that do build ops all the same.
BUILDS_OPS_ANYWAY = frozenset({
    "tensorflow.train.init_from_checkpoint",  # replaces variable initializers with restore ops
})


def _defining_modules() -> Dict[str, str]:
    """Map every public function and class of ``tf.compat.v1`` (by its shortest dotted name) to its module."""
    import tensorflow as tf

    root = tf.compat.v1
    found: Dict[str, str] = {}
    seen = {id(root)}
    queue = [(root, "tensorflow")]
    while queue:  # breadth first, so each object is named by its shortest path
        module, prefix = queue.pop(0)
        for name in sorted(dir(module)):
            if name.startswith("_"):
                continue
            try:
                member = getattr(module, name)
            except Exception:  # noqa: BLE001 - lazily loaded members may fail to load (Keras 3)
                continue
            dotted = f"{prefix}.{name}"
            if isinstance(member, types.ModuleType):
                try:
                    module_name = member.__name__
                except Exception:  # noqa: BLE001
                    continue
                if module_name.startswith("tensorflow._api.v2.compat.v1") and id(member) not in seen:
                    seen.add(id(member))
                    queue.append((member, dotted))
            elif callable(member):
                found[dotted] = getattr(member, "__module__", None) or ""
    return found


def shipped_tf1_part() -> Optional[Dict[str, object]]:
    """Return the ``tf1`` part of the shipped data file (None when it has none)."""
    if not os.path.exists(OUTPUT):
        return None
    with open(OUTPUT, encoding="utf-8") as handle:
        return json.load(handle).get("tf1")


def tf1_part(wheel: str) -> Dict[str, object]:
    """Return the facts read from a TensorFlow 1.x wheel, in canonical names."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, ROOT)
    from tf1_wheel_api import read_wheel

    from tfguard.static.analysis.tfapi import canonical

    facts = read_wheel(wheel)
    return {
        "tensorflow": facts["tensorflow"],
        "non_op": {canonical(name): kind for name, kind in sorted(facts["non_op"].items())},
        "list_items": {canonical(name): items for name, items in sorted(facts["list_items"].items())},
        "unknown_items": {canonical(name): items for name, items in sorted(facts["unknown_items"].items())},
    }


def generate(tf1_wheel: Optional[str] = None) -> Dict[str, object]:
    """Return the data file's content for the installed TensorFlow (2.x) and the 1.x facts.

    The 1.x facts are read from ``tf1_wheel`` when given, else kept from the shipped file.
    """
    import tensorflow as tf

    sys.path.insert(0, ROOT)
    from tfguard.static.analysis.tfapi import canonical

    non_op: List[str] = sorted({
        canonical(name)
        for name, module in _defining_modules().items()
        if module.startswith(NON_OP_MODULES) and canonical(name) not in BUILDS_OPS_ANYWAY
    })
    data: Dict[str, object] = {
        "generated_by": "tools/gen_tfapi_data.py",
        "tensorflow": tf.__version__,
        "non_op": non_op,
    }
    tf1 = tf1_part(tf1_wheel) if tf1_wheel else shipped_tf1_part()
    if tf1 is not None:
        data["tf1"] = tf1
    return data


def render(data: Dict[str, object]) -> str:
    """Return the file text for ``data`` (one name a line, so diffs stay readable)."""
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def main(argv: Optional[List[str]] = None) -> int:
    """Write the data file and say how many names it holds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf1-wheel", metavar="WHEEL", help="a TensorFlow 1.x wheel (or its unpacked folder) to read")
    args = parser.parse_args(argv)
    if args.tf1_wheel and not os.path.exists(args.tf1_wheel):
        print(f"gen_tfapi_data: no such wheel: {args.tf1_wheel}", file=sys.stderr)
        return 2
    data = generate(args.tf1_wheel)
    with open(OUTPUT, "w", encoding="utf-8") as handle:
        handle.write(render(data))
    print(f"{os.path.relpath(OUTPUT, ROOT)}: {len(data['non_op'])} non-op names from TensorFlow {data['tensorflow']}")
    tf1 = data.get("tf1")
    if tf1:
        print(f"  and {len(tf1['non_op'])} non-op names, {len(tf1['list_items'])} list-returning functions"
              f" from TensorFlow {tf1['tensorflow']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
