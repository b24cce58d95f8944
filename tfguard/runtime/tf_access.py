"""Load TensorFlow lazily and pick the v1 API (`tf.compat.v1` on 2.x, `tf` on 1.15)."""

from __future__ import annotations

from typing import Any


def tf_v1() -> Any:
    """The TF 1.x-style API module; imports TensorFlow on first call."""
    import tensorflow as tf  # imported here so that `import tfguard` stays TF-free

    compat = getattr(tf, "compat", None)
    return getattr(compat, "v1", None) or tf


#: The `Graph` method that adds the ops a GraphDef import made (`tf.import_graph_def`, `import_meta_graph`), the
#: same name in TF 1.15 and 2.x: its `_check_not_finalized` call is where the importing line is noted.
IMPORT_OPS_FUNCTION = "_add_new_tf_operations"
