"""Load TensorFlow lazily, pick the v1 API (`tf.compat.v1` on 2.x, on 1.15 too), and say where versions differ.

Supported: TensorFlow 1.15 (Python 3.7) and 2.x with `tf.compat.v1` (docs/supported-versions.md). What the
runtime needs differently on 1.15 is decided here, so the rest of the runtime asks this module, never a version.
"""

from __future__ import annotations

import functools
import re
from types import FunctionType
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

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


class FunctionHooks:
    """Where `tf.function` calls and traces can be seen, in the loaded TensorFlow (see `function_hooks`).

    `function_class.__call__` runs every call of a `tf.function` (Keras' train/test/predict functions
    included); `tracing_module.<trace_name>` runs once per trace, only on a cache miss, with the traced
    `FunctionType` and the `TracingOptions` that name the Python function.
    """

    def __init__(self, function_class: Any, tracing_module: Any, trace_name: str) -> None:
        self.function_class = function_class
        self.tracing_module = tracing_module
        self.trace_name = trace_name


#: Where TensorFlow 2.x (2.13 onwards) keeps `tf.function` and its tracing: the class of `tf.function` objects,
#: and the module function that builds one concrete function (called only when the function cache misses).
_FUNCTION_MODULE = "tensorflow.python.eager.polymorphic_function.polymorphic_function"
_TRACING_MODULE = "tensorflow.python.eager.polymorphic_function.tracing_compilation"
_TRACE_FUNCTION = "_create_concrete_function"


def function_hooks() -> Optional[FunctionHooks]:
    """The hooks for counting `tf.function` calls and traces, or None where this TensorFlow has none.

    Only a loaded TensorFlow is looked at (nothing is imported that the program did not load, beyond
    TensorFlow's own submodules). TF 1.15 has no `polymorphic_function` package, and 2.x before 2.13 keeps
    `tf.function` elsewhere (`def_function.py`): there the guard follows no function (\"not available\").
    """
    import importlib
    import sys

    if "tensorflow" not in sys.modules or version_of(sys.modules["tensorflow"]) < (2, 13):
        return None
    try:
        functions = importlib.import_module(_FUNCTION_MODULE)
        tracing = importlib.import_module(_TRACING_MODULE)
    except Exception:  # another TensorFlow layout
        return None
    function_class = getattr(functions, "Function", None)
    if not isinstance(function_class, type) or not callable(getattr(tracing, _TRACE_FUNCTION, None)) or \
            "__call__" not in vars(function_class):
        return None
    return FunctionHooks(function_class, tracing, _TRACE_FUNCTION)


def function_key(python_function: Any) -> Any:
    """The key TensorFlow's own retracing detector counts a function's traces by (`Function._key_for_call_stats`):
    the code object of the Python function under its decorators and method binding, else the function itself."""
    target = python_function
    for _ in range(32):  # `__wrapped__` chains of decorators; a cycle must not hang
        if not hasattr(target, "__wrapped__"):
            break
        target = target.__wrapped__
    target = getattr(target, "__func__", target)
    return getattr(target, "__code__", python_function)


def call_key(function: Any) -> Any:
    """The key of a `tf.function` object's calls (`Function._key_for_call_stats`), the same as `function_key` of its
    Python function: the code object run/step_watch.py names a step function by."""
    key = getattr(function, "_key_for_call_stats", None)
    return key if key is not None else function_key(getattr(function, "_python_function", function))


def traced_parameters(function_type: Any) -> Sequence[Tuple[str, Any]]:
    """(name, trace type) of each parameter of a traced `FunctionType` (the arguments' TraceTypes)."""
    parameters = getattr(function_type, "parameters", None) or {}
    return [(str(name), getattr(parameter, "type_constraint", None)) for name, parameter in parameters.items()]


def traced_function(tracing_options: Any) -> Tuple[Any, str, Any]:
    """(Python function, name, cache) of a trace's `TracingOptions`: the cache is the `tf.function` object's own
    (one per `tf.function` object, so a new object for the same Python function traces anew)."""
    return (getattr(tracing_options, "python_function", None), str(getattr(tracing_options, "name", "") or ""),
            getattr(tracing_options, "function_cache", None))


# -- TF2 training loops (capture/step_hooks.py) -------------------------------------------------------------------
#: What each patched place is: a step's gradients applied, a checkpoint written, a summary written or flushed, the
#: next batch taken eagerly from a tf.data iterator, a `Dataset.map` made, a Python function made into an op
#: (`tf.numpy_function`, `tf.py_function`, `Dataset.from_generator`), a Keras callback made.
APPLY, SAVE, SUMMARY, FLUSH, NEXT, MAP, PY_FUNCTION, CALLBACK = (
    "apply", "save", "summary", "flush", "next", "map", "py_function", "callback")
#: (module, class or "" for the module itself, attribute, kind), per top-level package, patched once that package
#: is loaded. Keras 3 applies gradients in `apply` (`apply_gradients` calls it); tf_keras in `apply_gradients`.
_STEP_TARGETS = {
    "tensorflow": (
        ("tensorflow.python.checkpoint.checkpoint", "Checkpoint", "save", SAVE),
        ("tensorflow.python.checkpoint.checkpoint", "Checkpoint", "write", SAVE),
        ("tensorflow.python.checkpoint.checkpoint_management", "CheckpointManager", "save", SAVE),
        ("tensorflow.python.ops.summary_ops_v2", "", "write", SUMMARY),
        ("tensorflow.python.ops.summary_ops_v2", "", "flush", FLUSH),
        ("tensorflow.python.ops.summary_ops_v2", "_ResourceSummaryWriter", "flush", FLUSH),
        ("tensorflow.summary", "", "scalar", SUMMARY),
        ("tensorflow.summary", "", "histogram", SUMMARY),
        ("tensorflow.summary", "", "image", SUMMARY),
        ("tensorflow.summary", "", "audio", SUMMARY),
        ("tensorflow.summary", "", "text", SUMMARY),
        ("tensorflow.summary", "", "write", SUMMARY),
        ("tensorflow.summary", "", "flush", FLUSH),
        ("tensorflow.python.data.ops.iterator_ops", "OwnedIterator", "__next__", NEXT),
        ("tensorflow.python.distribute.input_lib", "DistributedIteratorBase", "__next__", NEXT),
        ("tensorflow.python.data.ops.dataset_ops", "DatasetV2", "map", MAP),
        ("tensorflow.python.ops.script_ops", "", "_internal_py_func", PY_FUNCTION),
    ),
    "keras": (
        ("keras.src.optimizers.base_optimizer", "BaseOptimizer", "apply", APPLY),
        ("keras.src.models.model", "Model", "save", SAVE),
        ("keras.src.models.model", "Model", "save_weights", SAVE),
        ("keras.src.callbacks.callback", "Callback", "__init__", CALLBACK),
    ),
    "tf_keras": (
        ("tf_keras.src.optimizers.optimizer", "_BaseOptimizer", "apply_gradients", APPLY),
        ("tf_keras.src.optimizers.legacy.optimizer_v2", "OptimizerV2", "apply_gradients", APPLY),
        ("tf_keras.src.engine.training", "Model", "save", SAVE),
        ("tf_keras.src.engine.training", "Model", "save_weights", SAVE),
        ("tf_keras.src.callbacks", "Callback", "__init__", CALLBACK),
    ),
}
#: The packages whose loading brings step targets.
STEP_PACKAGES = tuple(_STEP_TARGETS)


def step_targets(package: str) -> Sequence[Tuple[Any, str, str]]:
    """(owner, attribute, kind) of each place of `package` (loaded already) where a TF2 training loop is seen;
    places this version does not have are left out. Empty before TensorFlow 2.13 (no tf.function hooks either)."""
    import importlib
    import sys

    if version_of(sys.modules.get("tensorflow")) < (2, 13):
        return ()
    found = []
    for module_name, class_name, attribute, kind in _STEP_TARGETS.get(package, ()):
        try:
            owner: Any = importlib.import_module(module_name)
            if class_name:
                owner = getattr(owner, class_name)
        except Exception:  # another layout of this version: that place is not seen
            continue
        if callable(vars(owner).get(attribute)):
            found.append((owner, attribute, kind))
    return found


def summary_wrote(result: Any) -> bool:
    """Whether a `tf.summary` call wrote, by its result: they return False (a bool, or an eager scalar bool tensor)
    when nothing records (no default writer, `record_if` off: Keras 3's `TensorBoard` calls `tf.summary.scalar` for
    every batch under `update_freq="epoch"`, and those write nothing); any other result counts as written."""
    if isinstance(result, bool):
        return result
    dtype = getattr(result, "dtype", None)
    if dtype is None or not getattr(dtype, "is_bool", False) or getattr(result, "shape", None) != ():
        return True
    try:
        return bool(result)
    except Exception:  # a symbolic tensor (not eager): not judged here
        return True


def executing_eagerly() -> bool:
    """Whether TensorFlow runs ops now (not building a graph: a tf.function trace, a v1 graph)."""
    import sys

    context = sys.modules.get("tensorflow.python.eager.context")
    return bool(context is not None and context.executing_eagerly())


def map_parallel_calls(args: Sequence[Any], kwargs: Any) -> Any:
    """The `num_parallel_calls` of a `Dataset.map(map_func, num_parallel_calls=None, ...)` call (None: serial)."""
    if "num_parallel_calls" in kwargs:
        return kwargs["num_parallel_calls"]
    return args[1] if len(args) > 1 else None
#: Keras' methods that take the program's input as `x` and build a tf.data pipeline of it (`from_generator`) when it
#: is a Python generator, a `PyDataset` (Keras 3) or a `Sequence` (tf_keras; Keras 3's `Sequence` is `PyDataset`).
_KERAS_INPUT_METHODS = frozenset(("fit", "evaluate", "predict"))
#: The kinds of Python input `input_source` names.
GENERATOR, PY_DATASET, SEQUENCE, FROM_GENERATOR = "generator", "PyDataset", "Sequence", "from_generator"


def input_source(frame: Any) -> Optional[Tuple[str, Any, bool]]:
    """(kind, the program's object or function, whether it makes batches in parallel) of the Python input whose
    `tf.data` pipeline is being built on the stack from `frame` outwards: the `x` of a Keras `fit`/`evaluate`/
    `predict` (a generator, a PyDataset or a Sequence), else the generator of a `Dataset.from_generator`; None for
    another. Parallel: a Keras 3 PyDataset with `workers` > 1 or multiprocessing; tf_keras' `fit(workers=...,
    use_multiprocessing=...)` for a Sequence or a generator (Keras 3's `fit` has no `workers`)."""
    import types

    generator = None
    while frame is not None:
        code = frame.f_code
        name = code.co_name
        module = frame.f_globals.get("__name__", "")
        if name in _KERAS_INPUT_METHODS and module.startswith(("keras.", "tf_keras.")):
            x = frame.f_locals.get("x")
            workers = frame.f_locals.get("workers")
            parallel = bool(isinstance(workers, int) and workers > 1 or frame.f_locals.get("use_multiprocessing"))
            if isinstance(x, types.GeneratorType):
                return GENERATOR, x, parallel
            for base in type(x).__mro__:
                base_module = getattr(base, "__module__", "")
                if base.__name__ in (PY_DATASET, SEQUENCE) and base_module.startswith(("keras.", "tf_keras.")):
                    if base.__name__ == PY_DATASET:
                        parallel = _py_dataset_parallel(x)
                    return base.__name__, x, parallel
            return None
        if name == "from_generator" and module.startswith("tensorflow.") and generator is None:
            generator = frame.f_locals.get("generator")
        frame = frame.f_back
    return (FROM_GENERATOR, generator, False) if generator is not None else None


def _py_dataset_parallel(dataset: Any) -> bool:
    """Whether a Keras 3 PyDataset makes its batches ahead in workers (its `workers`, `use_multiprocessing`)."""
    try:
        workers = getattr(dataset, "workers", 1)
        return bool(isinstance(workers, int) and workers > 1 or getattr(dataset, "use_multiprocessing", False))
    except Exception:  # a program's property that raises: taken as one worker
        return False


#: Where each Keras keeps the classes `tfguard run` follows for TFG910/TFG911, by the module that defines them
#: (patched when the program imports that module): the class whose `predict`/`evaluate` a model runs, and the
#: `CallbackList` that `fit` calls each batch hook through. Keras 3 (`keras`, `tf.keras` on TF 2.16+) and tf_keras
#: (Keras 2, `TF_USE_LEGACY_KERAS=1`) keep them in different places.
KERAS_MODEL_CLASSES = {"keras.src.backend.tensorflow.trainer": "TensorFlowTrainer",
                       "tf_keras.src.engine.training": "Model"}
KERAS_CALLBACK_LISTS = {"keras.src.callbacks.callback_list": "CallbackList", "tf_keras.src.callbacks": "CallbackList"}
#: The Keras methods that run a whole input through a model (TFG910).
KERAS_MODEL_METHODS = ("predict", "evaluate")
#: The train-batch hooks of a callback that `fit` calls every batch (TFG911); the `on_batch_*` aliases run inside
#: them (Keras' default `on_train_batch_end` calls `on_batch_end`).
KERAS_BATCH_HOOKS = ("on_train_batch_begin", "on_train_batch_end")


def keras_class(module: Any, table: Dict[str, str]) -> Optional[type]:
    """The class `table` names in a just-imported Keras `module` (None: another module, or a Keras that moved it)."""
    name = table.get(getattr(module, "__name__", ""))
    found = getattr(module, name, None) if name else None
    return found if isinstance(found, type) else None


def callbacks_of(callback_list: Any) -> List[Any]:
    """The callbacks a Keras `CallbackList` calls (its `callbacks` attribute in both Kerases)."""
    found = getattr(callback_list, "callbacks", None)
    return list(found) if isinstance(found, (list, tuple)) else []


def is_default_hook(method: Any) -> bool:
    """Whether a callback's hook is Keras' own empty default (tf_keras marks them `_is_default`; Keras 3's base
    `Callback` defines them), i.e. not worth timing."""
    if getattr(method, "_is_default", False):
        return True
    function = getattr(method, "__func__", method)
    module = getattr(function, "__module__", "") or ""
    return module.startswith(("keras.", "tf_keras."))


#: The class every eager tensor inherits its Python methods from (`EagerTensor` is made from it in C, and takes
#: a change to its methods): the ones that copy a value to the host (TFG912).
_EAGER_TENSOR_MODULE = "tensorflow.python.framework.ops"
_EAGER_TENSOR_BASE = "_EagerTensorBase"
#: Method -> what the user wrote: the host syncs TFG912 counts.
HOST_SYNC_METHODS = {"numpy": ".numpy()", "__float__": "float(t)", "__int__": "int(t)", "__str__": "print(t)",
                     "__repr__": "repr(t)", "__format__": "an f-string"}


def eager_tensor_base() -> Optional[type]:
    """The Python base class of eager tensors in the loaded TensorFlow 2.x, or None (1.15, another layout)."""
    import sys

    module = sys.modules.get(_EAGER_TENSOR_MODULE)
    found = getattr(module, _EAGER_TENSOR_BASE, None) if module is not None else None
    if not isinstance(found, type) or "numpy" not in vars(found):
        return None
    return found


def tensor_facts(tensor: Any) -> Tuple[str, str, int]:
    """(device, dtype name, number of elements) of an eager tensor, read once per syncing line."""
    device = str(getattr(tensor, "device", "") or "")
    dtype = getattr(getattr(tensor, "dtype", None), "name", "") or ""
    try:
        size = 1
        for dim in tuple(tensor.shape):
            size *= int(dim)
    except Exception:  # an unknown dimension
        size = -1
    return device, str(dtype), size


#: The module of `tf.distribute`'s replica threads: MirroredStrategy (and MultiWorkerMirroredStrategy, its
#: multi-worker form) runs each replica's part of `strategy.run(fn)` on a thread of its own, `_MirroredReplicaThread`,
#: which builds into the graph of the thread that called `run` (a tf.function's trace) or runs eagerly.
_REPLICA_THREAD_MODULE = "tensorflow.python.distribute.mirrored_run"


def replica_thread(thread: Any) -> Optional[Tuple[int, Any]]:
    """(replica id, the graph it builds in) when `thread` is a `tf.distribute` replica thread, else None."""
    cls = type(thread)
    if cls.__name__ != "_MirroredReplicaThread" or cls.__module__ != _REPLICA_THREAD_MODULE:
        return None
    try:
        return int(thread.replica_id), thread.graph
    except Exception:  # another TensorFlow layout: seen as a thread of its own
        return None


def outer_graphs(graph: Any) -> Sequence[Any]:
    """`graph` and the graphs it is built inside (a `tf.while_loop` body's FuncGraph, then the function's), at
    most 64."""
    found = []
    while graph is not None and len(found) < 64:
        found.append(graph)
        graph = getattr(graph, "outer_graph", None)
    return found
