"""Load TensorFlow lazily, pick the v1 API (`tf.compat.v1` on 2.x, on 1.15 too), and say where versions differ.

Supported: TensorFlow 1.15 (Python 3.7) and 2.x with `tf.compat.v1` (docs/supported-versions.md). What the
runtime needs differently on 1.15 is decided here, so the rest of the runtime asks this module, never a version.
"""

from __future__ import annotations

import functools
import re
from types import FunctionType
from typing import Any, Callable, Optional, Sequence, Tuple

#: The oldest TensorFlow the runtime guard supports: 1.15 has `tf.compat.v1`, `Operation.traceback` and
#: the RunMetadata partition graphs the placement report reads.
MINIMUM_VERSION = (1, 15)


class UnsupportedTensorFlowError(RuntimeError):
    """The loaded TensorFlow is one the runtime guard does not support; the message is one line."""


def version_of(tensorflow: Any) -> Tuple[int, int]:
    """(major, minor) of a loaded `tensorflow` module; (0, 0) when it names no version."""
    found = re.match(r"(\d+)\.(\d+)", str(getattr(tensorflow, "__version__", "") or ""))
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


def unsupported_reason(tensorflow: Any) -> Optional[str]:
    """One line saying why the guard cannot run on `tensorflow`, or None when it is supported."""
    version = str(getattr(tensorflow, "__version__", "") or "of unknown version")
    needs = "tfguard needs TensorFlow 1.15, or 2.x with tf.compat.v1"
    if version_of(tensorflow) < MINIMUM_VERSION:
        return "TensorFlow %s is not supported: %s" % (version, needs)
    if _compat_v1(tensorflow) is None:
        return "TensorFlow %s has no tf.compat.v1: %s" % (version, needs)
    return None


def _compat_v1(tensorflow: Any) -> Any:
    return getattr(getattr(tensorflow, "compat", None), "v1", None)


def tf_v1() -> Any:
    """The TF 1.x-style API module; imports TensorFlow on first call.

    Raises UnsupportedTensorFlowError (one line) on TensorFlow older than 1.15 or a 2.x without compat.v1.
    """
    import tensorflow as tf  # imported here so that `import tfguard` stays TF-free

    reason = unsupported_reason(tf)
    if reason is not None:
        raise UnsupportedTensorFlowError(reason)
    return _compat_v1(tf)


def op_traceback(op: Any) -> Sequence[Any]:
    """`op.traceback`, outermost frame first, or () when TensorFlow kept none.

    1.15 records the Python stack for every op, imported ones included (plain tuples); 2.x gives FrameSummary
    objects, and None for the ops `import_graph_def`/`import_meta_graph` create in C.
    """
    try:
        traceback = op.traceback
    except Exception:  # an op of another kind (a C-only op wrapper)
        return ()
    return traceback if traceback is not None else ()


#: The `Graph` method that adds the ops a GraphDef import made (`tf.import_graph_def`, `import_meta_graph`), the
#: same name in TF 1.15 and 2.x: its `_check_not_finalized` call is where the importing line is noted.
IMPORT_OPS_FUNCTION = "_add_new_tf_operations"


def version_reader(graph: Any) -> Callable[[], int]:
    """A callable that returns `graph.version` (read after every run of a graph that can grow), made cheap.

    2.x computes `Graph.version` in C. 1.15's is a Python property that takes the graph's lock to read the
    counter `_version`; reading the counter directly gives the same number (an int attribute is read whole)
    without a Python call and a lock per run. Any other graph (a test's stand-in) is asked for `version`.
    """
    prop = getattr(type(graph), "version", None)
    getter = getattr(prop, "fget", None)
    counter = getattr(graph, "__dict__", {}).get("_version")  # 2.x's C++ graph may have no __dict__
    if isinstance(prop, property) and isinstance(getter, FunctionType) and \
            getter.__module__.startswith("tensorflow") and isinstance(counter, int):
        return functools.partial(getattr, graph, "_version")
    return functools.partial(getattr, graph, "version")
