"""TF 2 training loops: which loops step, which calls write summaries or checkpoints, and how often.

A TF 1 step loop runs ``sess.run`` (:mod:`~tfguard.static.analysis.frequency`).  In eager TF 2 code a loop
*steps* when one of its own iterations (not only a nested loop's) trains: it calls a ``tf.function``, a
method named like a step (``train_step``, ``train_on_batch``), ``optimizer.apply_gradients``,
``strategy.run``, ``tape.gradient``, an agent's ``policy.train(batch...)`` / ``agent.learn(batch...)`` (with
arguments: ``trainer.train()`` runs a whole training), opens a ``tf.GradientTape``, or calls a function of this
module that does one of these itself.  A loop whose iterations run such a loop nested (or call a function that
loops over steps) is an epoch loop: what it does directly runs once per epoch.  A loop of at most 10 literal iterations
is no step loop (:func:`~tfguard.static.analysis.tf_functions.bounded_loop`): a handful of saves costs little.

The TF 2 cadence costs (issue 44, rule 4) are the writes TF 2 makes on every call, unlike TF 1 ops:

* summary writes that serialise tensors: ``tf.summary.histogram`` / ``image`` / ``audio`` and
  ``writer.flush()`` (a ``tf.summary.scalar`` is buffered and flushed every 120 s by default, as TF 1's
  scalar-only writes it is no finding);
* checkpoint saves: ``CheckpointManager.save()``, ``Checkpoint.save()`` / ``write()``, ``model.save(...)``,
  ``model.save_weights(...)``;
* Keras callbacks that save or log per batch: ``ModelCheckpoint(..., save_freq=N)`` and
  ``TensorBoard(update_freq="batch" | N, histogram_freq=K)`` with ``N`` at most :data:`FREQUENT_BATCHES`.

A module that calls ``tf.summary.record_if(...)`` chooses when summaries are recorded: its writes are taken
as guarded.
"""

from __future__ import annotations

import re
from typing import Dict, Optional

from astroid import nodes

from tfguard.static.analysis.defaults import default_number
from tfguard.static.analysis.frequency import frequency
from tfguard.static.analysis.tf_functions import KERAS_PREFIXES, bounded_loop, tf2_code, tf_functions
from tfguard.static.analysis.trip_counts import SMALL_TRIP_COUNT

#: What a call does, as :class:`~tfguard.static.analysis.step_effects.StepEffect` kinds (same spelling).
SUMMARY_WRITE, CHECKPOINT_SAVE = "summary write", "checkpoint save"

#: TF 2 summary calls that serialise a tensor per call (``scalar`` is left out on purpose, see above).
HEAVY_SUMMARIES = frozenset({
    "tensorflow.summary.histogram", "tensorflow.summary.image", "tensorflow.summary.audio",
    "tensorflow.compat.v2.summary.histogram", "tensorflow.compat.v2.summary.image",
    "tensorflow.compat.v2.summary.audio",
})
RECORD_IF = frozenset({"tensorflow.summary.record_if", "tensorflow.compat.v2.summary.record_if"})
#: Receivers whose ``save()`` / ``write()`` writes a TF 2 checkpoint.
CHECKPOINTS = frozenset({"tensorflow.train.Checkpoint", "tensorflow.train.CheckpointManager"})
#: A ``save_freq`` / ``update_freq`` of at most this many batches counts as every step.
FREQUENT_BATCHES = 10
#: Methods that train one step when a loop calls them.
STEP_METHODS = frozenset({"apply_gradients", "train_on_batch", "gradient", "minimize"})
_STEP_NAME = re.compile(r"^_?(distributed_)?(train|training|update)_?(step|batch|on_batch)$")
#: Names that hold a Keras model (``model``, ``self.generator_model``) when tfguard cannot resolve it.
_MODEL_NAME = re.compile(r"(^|_)(model|net|network|generator|discriminator)s?$", re.IGNORECASE)


#: Calls only TF 2 (or eager TF 1) code makes: they show the module runs eagerly, not merely that it shows no
#: session (a TF 1 model-building module shows none either).
TF2_SIGNS = frozenset({
    "tensorflow.function", "tensorflow.GradientTape", "tensorflow.summary.create_file_writer",
    "tensorflow.random.set_seed", "tensorflow.executing_eagerly", "tensorflow.enable_eager_execution",
    "tensorflow.compat.v1.enable_eager_execution", "tensorflow.train.Checkpoint", "tensorflow.train.CheckpointManager",
    "tensorflow.config.list_physical_devices", "tensorflow.config.experimental.list_physical_devices",
    "tensorflow.config.experimental.set_memory_growth", "tensorflow.config.set_visible_devices",
    "tensorflow.config.run_functions_eagerly", "tensorflow.config.experimental_run_functions_eagerly",
})


def eager_tf2_code(module) -> bool:
    """Whether ``module`` is eager TF 2 code: no sign of graph mode
    (:func:`~tfguard.static.analysis.tf_functions.tf2_code`) and a sign of eager execution: a ``tf.function``,
    a ``GradientTape``, a TF 2 writer or checkpoint, ``tf.config`` device calls, or ``.numpy()`` on a value."""
    return module.facts("eager_tf2_code", _eager_tf2_code)


def _eager_tf2_code(module) -> bool:
    if not tf2_code(module):
        return False
    if tf_functions(module).all() or module.calls_to(TF2_SIGNS):
        return True
    numpy_calls = module.candidate_calls(frozenset(), frozenset({"numpy"}))
    return any(not call.args and not call.keywords for call in numpy_calls)


def eager_kind(module, call: nodes.NodeNG) -> Optional[str]:
    """Return what a TF 2 ``call`` writes on every call (:data:`SUMMARY_WRITE`, :data:`CHECKPOINT_SAVE`) or None.

    Only in TF 2 eager code (:func:`~tfguard.static.analysis.tf_functions.tf2_code`): in TF 1 code
    ``tf.summary.histogram`` builds an op, which writes nothing by itself.
    """
    if not isinstance(call, nodes.Call) or not isinstance(call.func, (nodes.Attribute, nodes.Name)):
        return None
    leaf = call.func.attrname if isinstance(call.func, nodes.Attribute) else call.func.name
    if leaf not in ("histogram", "image", "audio", "flush", "save", "write", "save_weights"):
        return None
    if not tf2_code(module):
        return None
    if leaf in ("histogram", "image", "audio"):
        return SUMMARY_WRITE if module.call_named(call, HEAVY_SUMMARIES) and not _records_if(module) else None
    if not isinstance(call.func, nodes.Attribute):
        return None
    receiver = module.value(call.func.expr)
    api = receiver.api if receiver is not None and receiver.kind == "tf" else ""
    if leaf == "flush":
        return SUMMARY_WRITE if api.startswith("tensorflow.summary.create_file_writer") else None
    if leaf in ("save", "write") and api in CHECKPOINTS:
        return CHECKPOINT_SAVE
    if leaf == "write":
        return None
    if api.startswith(KERAS_PREFIXES) or (not api and _MODEL_NAME.search(_receiver_name(call.func.expr))):
        # ``model.save(path)`` / ``model.save_weights(path)``: a Keras model, or a name that says it holds one
        return CHECKPOINT_SAVE if (call.args or call.keywords) else None
    return None


def _receiver_name(expr: nodes.NodeNG) -> str:
    if isinstance(expr, nodes.Attribute):
        return expr.attrname
    return expr.name if isinstance(expr, nodes.Name) else ""


def _records_if(module) -> bool:
    """Whether the module chooses when summaries are recorded (``tf.summary.record_if(...)``)."""
    return bool(module.calls_to(RECORD_IF))


def eager_steps(module) -> "EagerSteps":
    """Return the module's memoised :class:`EagerSteps`."""
    return module.facts("eager_steps", EagerSteps)


class EagerSteps:
    """Answers "which TF 2 step loop runs this node on every step?" for one module."""

    def __init__(self, module) -> None:
        self.module = module
        self._steps: Dict[int, bool] = {}
        self._loops_over_steps: Dict[int, bool] = {}

    def step_loop(self, node: nodes.NodeNG) -> Optional[nodes.NodeNG]:
        """Return the TF 2 step loop whose iterations run ``node`` (guarded or not), if any."""
        if not tf2_code(self.module):
            return None
        for loop in self.module.enclosing_loops(node):
            if self._is_epoch_loop(loop):
                return None
            if self.steps(loop):
                return None if bounded_loop(loop) or _takes_a_handful(loop) else loop
        return None

    def every_step_loop(self, node: nodes.NodeNG) -> Optional[nodes.NodeNG]:
        """Return the step loop that runs ``node`` on every iteration, with no frequency guard; else None."""
        loop = self.step_loop(node)
        if loop is None:
            return None
        steps = frequency(self.module)
        if steps.guard(node, loop) is not None or steps.skipping_continues(node, loop):
            return None
        return loop

    def how_often(self, node: nodes.NodeNG, loop: nodes.NodeNG) -> str:
        """Say how often ``node`` runs in step loop ``loop``: "on every step", or, under a modulo test on a value the
        step loop does not change (``if epoch % 25 == 0:`` inside the batch loop), "on every step of the passes
        where `epoch % 25 == 0`" (every batch of one epoch in 25: an indentation slip, seen in the field)."""
        steps = frequency(self.module)
        child, parent = node, node.parent
        while parent is not None and parent is not loop:
            if isinstance(parent, nodes.If) and child is not parent.test and "%" in parent.test.as_string() \
                    and not steps.is_frequency_guard(parent.test, loop):
                condition = parent.test.as_string() if child in parent.body else f"not ({parent.test.as_string()})"
                return f"on every step of the passes where `{condition}`"
            child, parent = parent, parent.parent
        return steps.how_often(node, loop)

    def steps(self, loop: nodes.NodeNG) -> bool:
        """Whether one of ``loop``'s own iterations trains a step (see the module's docstring)."""
        key = id(loop)
        if key not in self._steps:
            self._steps[key] = any(
                self._trains(node) and next(self.module.enclosing_loops(node), None) is loop
                for node in self.module.iteration_nodes(loop)
            )
        return self._steps[key]

    def _trains(self, node: nodes.NodeNG, depth: int = 0) -> bool:
        if isinstance(node, nodes.With):
            return any(isinstance(item, nodes.Call) and _leaf(item.func) == "GradientTape" for item, _ in node.items)
        if not isinstance(node, nodes.Call):
            return False
        leaf = _leaf(node.func)
        if leaf in STEP_METHODS or (leaf and _STEP_NAME.match(leaf)):
            return True
        if leaf in ("train", "learn") and isinstance(node.func, nodes.Attribute) and node.args:
            return True  # ``policy.train(obs, act, rew)``: an agent's update on a batch (not ``trainer.train()``)
        if leaf == "run" and isinstance(node.func, nodes.Attribute) and "strategy" in node.func.expr.as_string():
            return True  # ``strategy.run(train_step, args=(x,))``
        if tf_functions(self.module).traced_of(node) is not None:
            return True
        if depth == 0:
            function = self.module.called_function(node)
            if function is not None and function.root() is self.module.module:
                return any(self._trains(inner, 1) for inner in function.nodes_of_class((nodes.Call, nodes.With)))
        return False

    def _is_epoch_loop(self, loop: nodes.NodeNG) -> bool:
        """A loop whose own iterations run a nested step loop, or call a function of this module that has one."""
        key = id(loop)
        if key not in self._loops_over_steps:
            self._loops_over_steps[key] = any(
                (isinstance(node, (nodes.For, nodes.While)) and node is not loop and self.steps(node))
                or (isinstance(node, nodes.Call) and self._calls_step_loop(node))
                for node in self.module.iteration_nodes(loop)
            )
        return self._loops_over_steps[key]

    def _calls_step_loop(self, call: nodes.Call) -> bool:
        function = self.module.called_function(call)
        if function is None or function.root() is not self.module.module:
            return False
        return any(self.steps(inner) for inner in function.nodes_of_class((nodes.For, nodes.While)))


def _takes_a_handful(loop: nodes.NodeNG) -> bool:
    """``for x, y in dataset.take(3):``: a literal handful of batches (a smoke test, a warm-up)."""
    iterable = getattr(loop, "iter", None)
    if not (isinstance(iterable, nodes.Call) and _leaf(iterable.func) == "take" and len(iterable.args) == 1):
        return False
    count = iterable.args[0]
    return isinstance(count, nodes.Const) and type(count.value) is int and count.value <= SMALL_TRIP_COUNT


def _leaf(func: nodes.NodeNG) -> str:
    if isinstance(func, nodes.Attribute):
        return func.attrname
    return func.name if isinstance(func, nodes.Name) else ""


# -- Keras callbacks ----------------------------------------------------------------------------------------------

CHECKPOINT_CALLBACK, TENSORBOARD_CALLBACK = "ModelCheckpoint", "TensorBoard"


def frequent_callback(module, call: nodes.NodeNG, which: str) -> Optional[str]:
    """Return, for a Keras ``ModelCheckpoint`` / ``TensorBoard`` callback that saves or logs every few batches,
    the keyword text that makes it so (``save_freq=1``); else None.

    ``TensorBoard(update_freq="batch")`` logs only scalars per batch (its histograms are per epoch), which is no
    finding, as scalar summaries are not in TF 1: it counts when it also writes histograms (``histogram_freq``).
    """
    if not isinstance(call, nodes.Call) or _leaf(call.func) != which:
        return None
    name = module.call_qualname(call)
    if name is None or not name.startswith(KERAS_PREFIXES) and not name.startswith("tensorflow.python.keras."):
        return None
    keywords = {k.arg: k.value for k in call.keywords or () if k.arg}
    if which == CHECKPOINT_CALLBACK:
        value = keywords.get("save_freq")
        return f"save_freq={value.as_string()}" if _few_batches(module, value) else None
    value = keywords.get("update_freq")
    histograms = keywords.get("histogram_freq")
    if not _few_batches(module, value) or not _positive_int(histograms):
        return None
    return f"update_freq={value.as_string()}, histogram_freq={histograms.as_string()}"


def _few_batches(module, value: Optional[nodes.NodeNG]) -> bool:
    """``"batch"``, or an int (literal or argparse/keyword default) of at most :data:`FREQUENT_BATCHES`."""
    if value is None:
        return False
    if isinstance(value, nodes.Const):
        if value.value == "batch":
            return True
        return type(value.value) is int and 0 < value.value <= FREQUENT_BATCHES
    number = default_number(module, value)
    return number is not None and 0 < number <= FREQUENT_BATCHES


def _positive_int(value: Optional[nodes.NodeNG]) -> bool:
    return isinstance(value, nodes.Const) and type(value.value) is int and value.value > 0 \
        or (value is not None and not isinstance(value, nodes.Const))

