"""What tfguard knows about TensorFlow's Python API, as data.

Names here are canonical: ``tensorflow.compat.v1.X`` is written ``tensorflow.X``
and TF 0.x names are mapped to their 1.x successors (see :data:`RENAMES`).
A test run where TensorFlow is installed checks that every entry names a real
API (entries under :data:`LEGACY_PREFIXES` exist only in older releases).
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Dict, FrozenSet, Optional, Tuple

TF = "tensorflow"

#: Old or alternative spellings and the canonical name they stand for.
RENAMES: Dict[str, str] = {
    "tensorflow.scalar_summary": "tensorflow.summary.scalar",
    "tensorflow.histogram_summary": "tensorflow.summary.histogram",
    "tensorflow.image_summary": "tensorflow.summary.image",
    "tensorflow.audio_summary": "tensorflow.summary.audio",
    "tensorflow.merge_summary": "tensorflow.summary.merge",
    "tensorflow.merge_all_summaries": "tensorflow.summary.merge_all",
    "tensorflow.train.SummaryWriter": "tensorflow.summary.FileWriter",
    "tensorflow.initialize_all_variables": "tensorflow.global_variables_initializer",
    "tensorflow.initialize_local_variables": "tensorflow.local_variables_initializer",
    "tensorflow.initialize_variables": "tensorflow.variables_initializer",
    "tensorflow.contrib.data": "tensorflow.data",
    "tensorflow.nn.seq2seq": "tensorflow.contrib.legacy_seq2seq",  # TF 0.x
    "tensorflow.io.gfile": "tensorflow.gfile",
    "tensorflow.compat.v1.keras": "tensorflow.keras",
    # standalone Keras 2's backend is TensorFlow's in graph mode: ``K.gradients``, ``K.function``...
    "keras.backend": "tensorflow.keras.backend",
}

#: Calls that create a session: they add no op, but each one allocates a runtime.
SESSION_CLASSES: FrozenSet[str] = frozenset({
    "tensorflow.Session",
    "tensorflow.InteractiveSession",
    "tensorflow.train.MonitoredSession",
    "tensorflow.train.MonitoredTrainingSession",
    "tensorflow.train.SingularMonitoredSession",
})

#: Calls that return an existing session.
SESSION_GETTERS: FrozenSet[str] = frozenset({
    "tensorflow.get_default_session",
    "tensorflow.keras.backend.get_session",
    "keras.backend.get_session",
})

#: Methods of TF objects that return (or, in a ``with``, yield) a session: a distributed worker's session.
SESSION_MAKING_METHODS: Dict[str, FrozenSet[str]] = {
    "tensorflow.train.Supervisor": frozenset({"managed_session", "prepare_or_wait_for_session"}),
    "tensorflow.train.SessionManager": frozenset({"prepare_session", "wait_for_session", "recover_session"}),
}

#: Calls that return a graph object.
GRAPH_FACTORIES: FrozenSet[str] = frozenset({"tensorflow.Graph", "tensorflow.get_default_graph"})

#: Calls that replace the default graph, so ops built afterwards go to a fresh one.
GRAPH_RESETS: FrozenSet[str] = frozenset({
    "tensorflow.reset_default_graph",
    "tensorflow.keras.backend.clear_session",
    "keras.backend.clear_session",
})

#: Calls that run the graph although they are not ``Session.run``.
GRAPH_RUN_FUNCTIONS: FrozenSet[str] = frozenset({"tensorflow.train.global_step"})

#: Calls that build a callable which runs the graph when called (``f = K.function(inputs, outputs)``).
RUNNER_FACTORIES: FrozenSet[str] = frozenset({"tensorflow.keras.backend.function"})

#: Calls that add no op to the graph.  An entry ending in ``.*`` covers a whole namespace.
NON_OP_APIS: FrozenSet[str] = frozenset({
    # sessions, configuration and run options
    "tensorflow.Session", "tensorflow.InteractiveSession", "tensorflow.ConfigProto",
    "tensorflow.GPUOptions", "tensorflow.GraphOptions", "tensorflow.OptimizerOptions",
    "tensorflow.RunOptions", "tensorflow.RunMetadata",
    "tensorflow.train.MonitoredSession", "tensorflow.train.MonitoredTrainingSession",
    "tensorflow.train.SingularMonitoredSession", "tensorflow.train.ChiefSessionCreator",
    "tensorflow.train.WorkerSessionCreator", "tensorflow.train.ClusterSpec", "tensorflow.train.Server",
    "tensorflow.train.replica_device_setter", "tensorflow.get_default_session",
    # graph and scope management
    "tensorflow.device", "tensorflow.name_scope", "tensorflow.variable_scope",
    "tensorflow.get_variable_scope", "tensorflow.get_default_graph", "tensorflow.Graph",
    "tensorflow.reset_default_graph", "tensorflow.control_dependencies", "tensorflow.colocate_with",
    "tensorflow.get_collection", "tensorflow.get_collection_ref", "tensorflow.add_to_collection",
    "tensorflow.add_to_collections", "tensorflow.trainable_variables", "tensorflow.global_variables",
    "tensorflow.local_variables", "tensorflow.model_variables", "tensorflow.all_variables",
    "tensorflow.moving_average_variables", "tensorflow.train.get_global_step",
    "tensorflow.contrib.framework.get_global_step",  # the deprecated alias: a collection lookup, no op
    "tensorflow.train.write_graph", "tensorflow.train.export_meta_graph",
    # Keras preprocessing utilities: NumPy and PIL on host data, under TensorFlow names (issue 32, item 13);
    # ``image.smart_resize`` and the ``*_dataset_from_*`` builders do make ops and are not listed
    "tensorflow.keras.preprocessing.sequence.*", "tensorflow.keras.preprocessing.text.*",
    "tensorflow.contrib.keras.preprocessing.sequence.*", "tensorflow.contrib.keras.preprocessing.text.*",
    "tensorflow.keras.preprocessing.image.ImageDataGenerator", "tensorflow.keras.preprocessing.image.load_img",
    "tensorflow.keras.preprocessing.image.img_to_array", "tensorflow.keras.preprocessing.image.array_to_img",
    "tensorflow.keras.preprocessing.image.save_img", "tensorflow.keras.preprocessing.image.apply_affine_transform",
    "tensorflow.contrib.keras.preprocessing.image.ImageDataGenerator",
    "tensorflow.contrib.keras.preprocessing.image.load_img",
    "tensorflow.contrib.keras.preprocessing.image.img_to_array",
    "tensorflow.contrib.keras.preprocessing.image.array_to_img",
    # utilities that never touch the graph
    "tensorflow.logging.*", "tensorflow.app.*", "tensorflow.flags.*", "tensorflow.gfile.*",
    "tensorflow.errors.*", "tensorflow.test.*", "tensorflow.sysconfig.*", "tensorflow.version.*",
    "tensorflow.train.latest_checkpoint", "tensorflow.train.get_checkpoint_state",
    "tensorflow.train.checkpoint_exists", "tensorflow.train.global_step", "tensorflow.train.Coordinator",
    "tensorflow.train.start_queue_runners", "tensorflow.train.list_variables",
    "tensorflow.train.load_checkpoint", "tensorflow.train.load_variable", "tensorflow.train.NewCheckpointReader",
    "tensorflow.train.SessionRunHook", "tensorflow.train.SessionRunArgs", "tensorflow.train.StopAtStepHook",
    "tensorflow.train.LoggingTensorHook", "tensorflow.train.NanTensorHook", "tensorflow.train.SummarySaverHook",
    "tensorflow.train.CheckpointSaverHook", "tensorflow.train.ProfilerHook", "tensorflow.train.StepCounterHook",
    "tensorflow.train.FinalOpsHook", "tensorflow.train.FeedFnHook", "tensorflow.train.GlobalStepWaiterHook",
    "tensorflow.train.CheckpointSaverListener", "tensorflow.train.Scaffold",
    "tensorflow.summary.FileWriter", "tensorflow.summary.FileWriterCache",
    "tensorflow.TensorShape", "tensorflow.Dimension", "tensorflow.as_dtype", "tensorflow.DType",
    "tensorflow.dtypes.as_dtype", "tensorflow.set_random_seed", "tensorflow.disable_eager_execution",
    "tensorflow.disable_v2_behavior", "tensorflow.enable_eager_execution", "tensorflow.executing_eagerly",
    "tensorflow.is_tensor", "tensorflow.get_logger", "tensorflow.config.*",
    "tensorflow.python_io.TFRecordWriter", "tensorflow.python_io.tf_record_iterator",
    "tensorflow.io.TFRecordWriter", "tensorflow.io.tf_record_iterator", "tensorflow.io.TFRecordOptions",
    "tensorflow.python_io.TFRecordOptions",
    # protocol-buffer classes
    "tensorflow.Summary", "tensorflow.Summary.Value", "tensorflow.Summary.Image", "tensorflow.Event",
    "tensorflow.GraphDef", "tensorflow.NodeDef", "tensorflow.MetaGraphDef", "tensorflow.HistogramProto",
    "tensorflow.SummaryMetadata", "tensorflow.AttrValue", "tensorflow.NameAttrList", "tensorflow.TensorInfo",
    "tensorflow.train.Example", "tensorflow.train.SequenceExample", "tensorflow.train.Features",
    "tensorflow.train.Feature", "tensorflow.train.FeatureList", "tensorflow.train.FeatureLists",
    "tensorflow.train.BytesList", "tensorflow.train.FloatList", "tensorflow.train.Int64List",
    "tensorflow.train.SaverDef", "tensorflow.train.ServerDef", "tensorflow.train.ClusterDef",
    "tensorflow.train.JobDef",
    # objects whose construction adds no op (their methods may)
    "tensorflow.train.GradientDescentOptimizer", "tensorflow.train.AdamOptimizer",
    "tensorflow.train.MomentumOptimizer", "tensorflow.train.RMSPropOptimizer",
    "tensorflow.train.AdagradOptimizer", "tensorflow.train.AdadeltaOptimizer",
    "tensorflow.train.FtrlOptimizer", "tensorflow.train.ProximalGradientDescentOptimizer",
    "tensorflow.train.ProximalAdagradOptimizer", "tensorflow.train.SyncReplicasOptimizer",
    "tensorflow.estimator.*", "tensorflow.feature_column.*", "tensorflow.keras.callbacks.*",
    "tensorflow.keras.datasets.*", "tensorflow.keras.utils.*", "tensorflow.keras.preprocessing.*",
    "tensorflow.keras.backend.get_session", "tensorflow.keras.backend.set_session",
    "tensorflow.keras.backend.clear_session", "tensorflow.keras.backend.set_learning_phase",
    "tensorflow.saved_model.builder.SavedModelBuilder",
    # graph surgery and profiling helpers that work on GraphDefs and step stats
    "tensorflow.graph_util.convert_variables_to_constants", "tensorflow.graph_util.extract_sub_graph",
    "tensorflow.graph_util.remove_training_nodes", "tensorflow.graph_util.must_run_on_cpu",
    "tensorflow.graph_util.tensor_shape_from_node_def_name",
    "tensorflow.python.client.timeline.*", "tensorflow.python.client.device_lib.*",
    "tensorflow.profiler.Profiler", "tensorflow.profiler.ProfileOptionBuilder",
    # TF 1.x contrib helpers that only configure or read (TF 2 dropped contrib, so the generated list lacks them)
    "tensorflow.contrib.framework.arg_scope", "tensorflow.contrib.slim.arg_scope",
    "tensorflow.contrib.training.HParams", "tensorflow.contrib.util.make_tensor_proto",
    "tensorflow.contrib.util.make_ndarray", "tensorflow.contrib.framework.list_variables",
    "tensorflow.contrib.framework.load_variable", "tensorflow.contrib.framework.load_checkpoint",
    "tensorflow.contrib.framework.get_variables_to_restore",
    "tensorflow.contrib.slim.get_variables_to_restore", "tensorflow.contrib.slim.get_model_variables",
    "tensorflow.contrib.framework.get_model_variables", "tensorflow.contrib.tensorboard.*",
    "tensorflow.contrib.learn.datasets.*", "tensorflow.contrib.learn.RunConfig",
    "tensorflow.examples.tutorials.*",  # MNIST readers: NumPy (their download retries defeat the wheel reader)
    "tensorflow.contrib.training.HParams.*",
})

#: Keras backend calls (``K.X``, standalone Keras 2 included) that add no op on a repeated call: settings,
#: shape queries, graph-cached placeholders (``K.learning_phase()``), reads, and ``K.set_value`` whose
#: assign op Keras builds once per variable.
BACKEND_NON_OP_APIS: FrozenSet[str] = frozenset(
    f"tensorflow.keras.backend.{name}" for name in (
        "learning_phase", "set_learning_phase", "learning_phase_scope", "epsilon", "set_epsilon", "floatx",
        "set_floatx", "image_data_format", "set_image_data_format", "image_dim_ordering", "int_shape", "ndim",
        "dtype", "is_keras_tensor", "is_sparse", "is_placeholder", "count_params", "manual_variable_initialization",
        "backend", "name_scope", "get_uid", "reset_uids", "clear_session", "get_session", "set_session",
        "get_graph", "get_value", "batch_get_value", "set_value", "batch_set_value",
    )
)

#: The data file ``tools/gen_tfapi_data.py`` writes from an installed TensorFlow: public ``tf.compat.v1``
#: functions and classes defined in modules that build no op (protocol buffers, ``tf.compat``, ``tf.nest``,
#: ``tf.io.gfile``, event and checkpoint readers, SavedModel signature helpers...).
GENERATED_NON_OP_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_non_op_apis.json")


#: Kinds of TF 1.x names (``tf1`` part of the data file, read from the 1.15 wheel by ``tools/tf1_wheel_api.py``)
#: whose attributes build no op either: protocol buffers and namedtuple value classes.
TF1_NAMESPACE_KINDS: FrozenSet[str] = frozenset({"protobuf", "value"})

#: Kinds of TF 1.x names whose call returns plain data (NumPy arrays, Python lists, namedtuples of them).
TF1_DATA_KINDS: FrozenSet[str] = frozenset({"numpy", "value"})


@lru_cache(maxsize=1)
def _generated_data() -> Dict[str, object]:
    with open(GENERATED_NON_OP_FILE, encoding="utf-8") as handle:
        return json.load(handle)


@lru_cache(maxsize=1)
def generated_non_op_apis() -> FrozenSet[str]:
    """Return the canonical names the generated data file lists as building no op, attributes included.

    Those are the names TensorFlow 2.x defines in helper modules, and the TF 1.x protocol buffers and
    namedtuple classes (whose fields and methods build nothing either).
    """
    data = _generated_data()
    tf1 = data.get("tf1", {}).get("non_op", {})
    return frozenset(data["non_op"]) | frozenset(name for name, kind in tf1.items() if kind in TF1_NAMESPACE_KINDS)


def tf1_kind(qualname: str) -> Optional[str]:
    """Return what the TF 1.15 wheel says a name that builds no op is (``numpy``, ``getter``, ``class``...)."""
    return _generated_data().get("tf1", {}).get("non_op", {}).get(qualname)


def returns_data(qualname: str) -> bool:
    """Return whether calling ``qualname`` returns plain data (NumPy arrays, lists, namedtuples of them)."""
    return tf1_kind(qualname) in TF1_DATA_KINDS


def _is_generated_non_op(qualname: str) -> bool:
    """A listed name, or an attribute of one (``tf.Summary.FromString``, ``tf.Summary.Value``)."""
    listed = generated_non_op_apis()
    if qualname in listed or tf1_kind(qualname) is not None:
        return True
    head, _, _ = qualname.rpartition(".")
    while head:
        if head in listed:
            return True
        head, _, _ = head.rpartition(".")
    return False

#: Base classes whose instances build ops when called (``net(x)`` on a Keras model subclass).
CALLABLE_BASES: FrozenSet[str] = frozenset({
    "tensorflow.keras.Model", "tensorflow.keras.models.Model", "tensorflow.keras.Sequential",
    "tensorflow.keras.layers.Layer", "tensorflow.layers.Layer", "keras.Model", "keras.layers.Layer",
})

#: Names (or prefixes) that exist only in TensorFlow 1.x or in TF 2 releases before Keras 3;
#: the keys of :data:`RENAMES` are old spellings too.
LEGACY_PREFIXES: Tuple[str, ...] = (
    "tensorflow.contrib",
    "tensorflow.examples",
    "tensorflow.estimator",
    "tensorflow.unpack",
    "tensorflow.keras.backend.get_session",
    "tensorflow.keras.backend.set_session",
    "tensorflow.keras.backend.set_learning_phase",
    "tensorflow.keras.backend.function",
)

#: Constructors of layer objects: creating one adds no op, calling it does.
LAYER_NAMESPACES: Tuple[str, ...] = ("tensorflow.layers.", "tensorflow.keras.layers.", "keras.layers.")

#: Calls that return a Python list or tuple of tensors rather than one tensor.
SEQUENCE_RETURNING: FrozenSet[str] = frozenset({
    "tensorflow.split", "tensorflow.unstack", "tensorflow.unpack", "tensorflow.gradients",
    "tensorflow.meshgrid", "tensorflow.tuple", "tensorflow.while_loop", "tensorflow.dynamic_partition",
    "tensorflow.nn.moments", "tensorflow.nn.dynamic_rnn", "tensorflow.nn.bidirectional_dynamic_rnn",
    "tensorflow.nn.top_k", "tensorflow.unique", "tensorflow.py_func", "tensorflow.numpy_function",
    "tensorflow.train.batch", "tensorflow.train.shuffle_batch", "tensorflow.keras.backend.gradients",
    "tensorflow.trainable_variables",
    "tensorflow.nn.static_rnn", "tensorflow.nn.static_bidirectional_rnn", "tensorflow.nn.static_state_saving_rnn",
    "tensorflow.contrib.rnn.static_rnn", "tensorflow.contrib.rnn.static_bidirectional_rnn",
    "tensorflow.contrib.rnn.stack_bidirectional_rnn", "tensorflow.contrib.legacy_seq2seq.*",
})

#: Calls returning a tuple whose items at these positions are Python lists of tensors
#: (``outputs, state = tf.nn.static_rnn(...)``: indexing ``outputs`` builds no op).
LIST_ITEMS: Dict[str, Tuple[int, ...]] = {
    "tensorflow.nn.static_rnn": (0,),
    "tensorflow.nn.static_bidirectional_rnn": (0,),
    "tensorflow.nn.static_state_saving_rnn": (0,),
    "tensorflow.contrib.rnn.static_rnn": (0,),
    "tensorflow.contrib.rnn.static_bidirectional_rnn": (0,),
    "tensorflow.contrib.rnn.stack_bidirectional_rnn": (0,),
    "tensorflow.contrib.legacy_seq2seq.*": (0,),
}

#: Methods returning a list of pairs (``opt.compute_gradients()``: ``[(grad, var), ...]``).
PAIR_LIST_METHODS: FrozenSet[str] = frozenset({"compute_gradients"})


def generated_list_items(qualname: str) -> Tuple[int, ...]:
    """Return the positions of the result tuple the TF 1.15 wheel shows to be Python lists (``-1``: the result)."""
    return tuple(_generated_data().get("tf1", {}).get("list_items", {}).get(qualname, ()))


def unknown_item_positions(qualname: str) -> Tuple[int, ...]:
    """Return the list positions of ``qualname``'s result whose items are not known to be tensors (lists of lists)."""
    return tuple(_generated_data().get("tf1", {}).get("unknown_items", {}).get(qualname, ()))


def list_item_positions(qualname: str) -> Tuple[int, ...]:
    """Return the positions of ``qualname``'s result tuple that hold Python lists (see :data:`LIST_ITEMS`)."""
    generated = generated_list_items(qualname)
    if generated:
        return generated
    if qualname in LIST_ITEMS:
        return LIST_ITEMS[qualname]
    parts = qualname.split(".")
    for i in range(len(parts) - 1, 0, -1):
        found = LIST_ITEMS.get(".".join(parts[:i]) + ".*")
        if found is not None:
            return found
    return ()

#: Methods of TensorFlow objects that add ops to the graph.
OP_BUILDING_METHODS: FrozenSet[str] = frozenset({
    # optimizers
    "minimize", "compute_gradients", "apply_gradients",
    # variables
    "assign", "assign_add", "assign_sub", "scatter_update", "scatter_add", "scatter_sub",
    "scatter_nd_update", "read_value", "initialized_value", "count_up_to",
    # tf.data
    "map", "batch", "padded_batch", "shuffle", "repeat", "prefetch", "filter", "interleave",
    "flat_map", "apply", "take", "skip", "cache", "unbatch", "concatenate", "zip", "shard",
    "map_and_batch", "make_one_shot_iterator", "make_initializable_iterator", "get_next",
    "string_handle", "make_initializer",
    # queues, tables, models, templates
    "enqueue", "enqueue_many", "dequeue", "dequeue_many", "dequeue_up_to", "lookup", "apply_gradient",
    "take_grad", "call", "predict_on_batch",
})

#: Op-building methods whose result is one tensor (others return datasets, ops or structures).
TENSOR_RETURNING_METHODS: FrozenSet[str] = frozenset({
    "assign", "assign_add", "assign_sub", "read_value", "initialized_value", "count_up_to",
    "scatter_update", "scatter_add", "scatter_sub", "scatter_nd_update", "dequeue", "lookup", "call",
})

#: Calls that return a Python list of the graph's variables.
VARIABLE_LISTS: FrozenSet[str] = frozenset({
    "tensorflow.trainable_variables", "tensorflow.global_variables", "tensorflow.local_variables",
    "tensorflow.model_variables", "tensorflow.all_variables", "tensorflow.moving_average_variables",
})

#: Calls that return a Python list of graph objects (tensors, ops or variables, depending on the key).
GRAPH_OBJECT_LISTS: FrozenSet[str] = frozenset({"tensorflow.get_collection", "tensorflow.get_collection_ref"})

#: Context managers whose ``reuse`` argument makes ``tf.get_variable`` return existing variables.
VARIABLE_SCOPES: FrozenSet[str] = frozenset({"tensorflow.variable_scope"})

#: Graph methods that return an existing tensor or operation.
GRAPH_LOOKUP_METHODS: FrozenSet[str] = frozenset({
    "get_tensor_by_name", "get_operation_by_name", "as_graph_element",
})


@lru_cache(maxsize=8192)
def canonical(qualname: str) -> str:
    """Map a dotted TF name to its canonical spelling (``compat.v1`` and TF 0.x names removed)."""
    for prefix in ("tensorflow.compat.v1", "tensorflow._api.v1"):
        if qualname == prefix:
            return TF
        if qualname.startswith(prefix + "."):
            qualname = TF + qualname[len(prefix):]
            break
    if qualname in RENAMES:
        return RENAMES[qualname]
    head, _, tail = qualname.rpartition(".")
    while head:
        if head in RENAMES:
            return RENAMES[head] + qualname[len(head):]
        head, _, _ = head.rpartition(".")
    return qualname


@lru_cache(maxsize=256)
def leaf_names(names: FrozenSet[str]) -> FrozenSet[str]:
    """Return the last names that calls of ``names`` can be written with (old TF 0.x spellings too)."""
    leaves = {name.rsplit(".", 1)[-1] for name in names}
    leaves.update(old.rsplit(".", 1)[-1] for old, new in RENAMES.items() if new in names)
    return frozenset(leaves)


def _in_table(qualname: str, table: FrozenSet[str]) -> bool:
    if qualname in table:
        return True
    parts = qualname.split(".")
    return any(".".join(parts[:i]) + ".*" in table for i in range(1, len(parts)))


def is_tf_name(qualname: Optional[str]) -> bool:
    """Return whether ``qualname`` is in the TensorFlow (or standalone Keras) namespace."""
    return bool(qualname) and (qualname == TF or qualname.startswith((TF + ".", "keras.")))


#: Modules under ``tensorflow.python`` (TF's internals) whose functions add ops; the rest
#: (logging, errors, utilities, session management) do not.
INTERNAL_OP_MODULES: Tuple[str, ...] = (
    "tensorflow.python.ops.",
    "tensorflow.python.framework.constant_op.",
    "tensorflow.python.framework.sparse_tensor.",
    "tensorflow.python.framework.importer.",
    "tensorflow.python.training.saver.",
    "tensorflow.python.training.training_util.",
    "tensorflow.python.summary.summary.",
    "tensorflow.python.data.ops.",
)


@lru_cache(maxsize=16384)
def builds_ops(qualname: str) -> bool:
    """Return whether calling the canonical TF API ``qualname`` adds ops to the default graph."""
    if _in_table(qualname, NON_OP_APIS) or qualname in BACKEND_NON_OP_APIS or _is_generated_non_op(qualname):
        return False
    if qualname.startswith("tensorflow.python."):
        return qualname.startswith(INTERNAL_OP_MODULES)
    if qualname.startswith(LAYER_NAMESPACES):
        leaf = qualname.rsplit(".", 1)[1]
        return not leaf[:1].isupper()
    return qualname.startswith(TF + ".")


def returns_single_tensor(qualname: str) -> bool:
    """Return whether an op-building TF API returns one tensor (so operators on it build ops)."""
    return (
        builds_ops(qualname)
        and not _in_table(qualname, SEQUENCE_RETURNING)
        and not _is_class(qualname)
        and -1 not in generated_list_items(qualname)
    )


def _is_class(qualname: str) -> bool:
    leaf = qualname.rsplit(".", 1)[-1]
    return leaf[:1].isupper() and qualname not in {"tensorflow.Variable"}


#: Ops that change state which a later run may read: running them first is the point.
STATE_CHANGING_APIS = frozenset({
    "tensorflow.assign", "tensorflow.assign_add", "tensorflow.assign_sub", "tensorflow.scatter_update",
    "tensorflow.scatter_add", "tensorflow.scatter_sub", "tensorflow.scatter_nd_update",
    "tensorflow.global_variables_initializer", "tensorflow.local_variables_initializer",
    "tensorflow.variables_initializer", "tensorflow.tables_initializer", "tensorflow.group",
})

STATE_CHANGING_METHODS = frozenset({
    "assign", "assign_add", "assign_sub", "scatter_update", "scatter_add", "scatter_sub", "scatter_nd_update",
    "initializer", "make_initializer",
})

#: Methods of queues, readers and iterators whose result depends on what ran before: a ``dequeue``, then
#: ``q.size()``, then an ``enqueue`` in separate runs happen in that order; in one run the order is undefined.
STATEFUL_METHODS = frozenset({
    "enqueue", "enqueue_many", "dequeue", "dequeue_many", "dequeue_up_to", "size", "close", "read",
    "read_up_to", "num_records_produced", "num_work_units_completed", "get_next", "restore_state",
})

STATEFUL_APIS = frozenset({
    "tensorflow.train.batch", "tensorflow.train.shuffle_batch", "tensorflow.train.batch_join",
    "tensorflow.train.shuffle_batch_join", "tensorflow.train.maybe_batch", "tensorflow.train.maybe_shuffle_batch",
})

#: Fetches that only read a variable (no forward pass behind them).
VARIABLE_APIS = frozenset({
    "tensorflow.Variable", "tensorflow.get_variable", "tensorflow.train.get_global_step",
    "tensorflow.train.get_or_create_global_step", "tensorflow.train.create_global_step",
    "tensorflow.contrib.framework.get_or_create_global_step", "tensorflow.contrib.framework.get_global_step",
})

#: Optimizer methods whose op applies gradients to a variable set, whatever object has them.
UPDATE_METHODS = frozenset({"minimize", "apply_gradients"})
#: TF functions that build a train op (an optimizer update) from a loss.
TRAIN_OP_BUILDERS = frozenset({
    "tensorflow.contrib.layers.optimize_loss", "tensorflow.contrib.slim.learning.create_train_op",
    "tensorflow.contrib.training.create_train_op",
})
#: Keywords that hand a train-op builder outside TensorFlow the variables it updates.
UPDATE_VARIABLE_KEYWORDS = frozenset({"var_list", "variables", "variables_to_train"})

# -- Names the rules and fixes read (one table per meaning; moved here from the modules that use them) --

#: Receivers of ``add_summary`` that write event files.
SUMMARY_WRITERS = frozenset({"tensorflow.summary.FileWriter", "tensorflow.summary.FileWriterCache.get()"})
#: Receivers of ``save`` that write checkpoints.
CHECKPOINT_SAVERS = frozenset({
    "tensorflow.train.Saver", "tensorflow.train.Checkpoint", "tensorflow.train.CheckpointManager",
})
#: APIs whose result is a serialised summary.
SUMMARY_APIS = frozenset({
    "tensorflow.summary.merge_all", "tensorflow.summary.merge", "tensorflow.summary.scalar",
    "tensorflow.summary.histogram", "tensorflow.summary.image", "tensorflow.summary.audio",
    "tensorflow.summary.text", "tensorflow.summary.tensor_summary",
})
#: Last parts of the names of library functions that return a callable running the graph.
RUNNER_FACTORY_SUFFIXES = ("tf_util.function",)
#: Keras model methods that run the graph (through the model's cached ``K.function``).
KERAS_RUN_METHODS = frozenset({
    "predict", "predict_on_batch", "train_on_batch", "test_on_batch", "fit", "evaluate", "fit_generator",
    "evaluate_generator", "predict_generator",
})
#: Producing APIs of Keras models (canonical names, standalone Keras included).
KERAS_MODEL_APIS = frozenset({
    "tensorflow.keras.Model", "tensorflow.keras.models.Model", "tensorflow.keras.Sequential",
    "tensorflow.keras.models.Sequential", "tensorflow.keras.models.load_model",
    "tensorflow.keras.models.model_from_json", "tensorflow.keras.models.model_from_yaml",
    "tensorflow.keras.models.clone_model", "keras.Model", "keras.models.Model", "keras.Sequential",
    "keras.models.Sequential", "keras.models.load_model", "keras.models.model_from_json",
    "keras.models.clone_model",
})
KERAS_APPLICATIONS = ("tensorflow.keras.applications.", "keras.applications.")
#: Names whose use says a module builds graphs (TF1 style): a Keras model's run methods run a graph there.
GRAPH_MODE_NAMES = frozenset({
    "Session", "InteractiveSession", "placeholder", "get_session", "set_session", "disable_eager_execution",
    "disable_v2_behavior", "v1", "compat",
})
#: APIs whose result depends on everything the graph holds when they are built.
COLLECTION_READERS = frozenset({
    "tensorflow.train.Saver", "tensorflow.global_variables_initializer", "tensorflow.local_variables_initializer",
    "tensorflow.initialize_all_variables", "tensorflow.initialize_local_variables", "tensorflow.summary.merge_all",
    "tensorflow.tables_initializer", "tensorflow.global_variables", "tensorflow.trainable_variables",
    "tensorflow.local_variables", "tensorflow.report_uninitialized_variables", "tensorflow.get_collection",
    "tensorflow.losses.get_total_loss", "tensorflow.losses.get_regularization_loss",
})
#: APIs that register the op they build in a collection (``merge_all`` collects them).
REGISTERING_PREFIXES = ("tensorflow.summary.",)
REGISTERING_EXCEPTIONS = frozenset({"tensorflow.summary.merge_all", "tensorflow.summary.merge",
                                    "tensorflow.summary.FileWriter"})
#: APIs and methods that create state: one built before the loop is one object, where the loop made many.
STATE_CREATING = frozenset({
    "tensorflow.Variable", "tensorflow.get_variable", "tensorflow.data.make_one_shot_iterator",
    ".make_one_shot_iterator", "tensorflow.data.make_initializable_iterator", ".make_initializable_iterator",
    ".minimize", ".apply_gradients", ".apply",
})
STATE_CREATING_PREFIXES = ("tensorflow.layers.", "tensorflow.keras.", "tensorflow.contrib.", "tensorflow.metrics.",
                           "tensorflow.estimator.")
#: Variables whose ``initializer`` assigns ``initializer.inputs[1]`` to them.
INITIALIZED_VARIABLE_APIS = frozenset({"tensorflow.Variable", "tensorflow.get_variable"})
#: Context managers that only name or place the ops built under them: the same block around the op built before the
#: loop gives it the same device and the scope of the first iteration (op names aside, nothing a run computes).
SCOPE_APIS = frozenset({"tensorflow.name_scope", "tensorflow.device", "tensorflow.variable_scope"})
#: APIs whose one object, built before the loop, writes or deletes other files than one built per iteration.
FILE_KEEPING_APIS = frozenset({"tensorflow.train.Saver"})
AUTOTUNE_NAMES = frozenset({"tensorflow.data.experimental.AUTOTUNE", "tensorflow.data.AUTOTUNE"})
#: Summary writers (``tf.train.SummaryWriter`` is the TF 0.x name of ``FileWriter``).
FILE_WRITERS = frozenset({"tensorflow.summary.FileWriter"})
CONFIG_PROTO = frozenset({"tensorflow.ConfigProto"})
CONFIG_CLASSES = frozenset({"tensorflow.ConfigProto", "tensorflow.GPUOptions"})
SESSION_CREATORS = frozenset({"tensorflow.train.ChiefSessionCreator", "tensorflow.train.WorkerSessionCreator"})
DEVICE_APIS = frozenset({"tensorflow.device"})
#: Session classes whose construction in the function puts a session on the default graph.
PLAIN_SESSIONS = frozenset({"tensorflow.Session", "tensorflow.InteractiveSession"})
#: Functions that run a ``main`` function once (``tf.app.run(main=f)``).
APP_RUNNERS = frozenset({"tensorflow.app.run", "absl.app.run"})
#: Objects whose ``save(sess, path)`` / ``restore(sess, path)`` run the graph (their save or restore ops).
SAVERS = frozenset({"tensorflow.train.Saver"})
#: Build-site APIs of assignments (module functions and variable methods).
ASSIGN_APIS = frozenset({"tensorflow.assign", "tensorflow.assign_add", "tensorflow.assign_sub"})
NAME_OR_VARIABLE_SCOPES = frozenset({"tensorflow.name_scope", "tensorflow.variable_scope"})
#: ``tf.function``; ``tensorflow.compat.v2`` names are not canonicalised (they are TF 2 names only), so spelled here.
TF_FUNCTION_APIS = frozenset({"tensorflow.function", "tensorflow.compat.v2.function"})
