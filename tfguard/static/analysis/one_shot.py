"""One-shot scripts: a module that opens a session and runs it a few times, never in a loop.

A script that restores a checkpoint, runs one ``sess.run`` and exits, or multiplies two matrices on
``/gpu:0`` to see that the GPU works, prints its device placement once and holds the GPU for a second:
``log_device_placement=True`` (TFG302) and an unbounded GPU memory grab (TFG304) are its point, not a cost.
A hard GPU pin without soft placement (TFG301) is not exempt: it fails at the first run on a host with fewer
GPUs, so running once does not make it cheaper.  These rules report a module only when its sessions
may run repeatedly: a session loop (more than a handful of literal iterations, see ``trip_counts``), a
training call that loops inside TensorFlow or Keras (``fit``, an Estimator's ``train``,
``MonitoredTrainingSession``), a session handed to a function of the project (``train(sess, model)``),
no run at all in the module (the session is run elsewhere), no session of its own (a helper whose
caller may loop), or a session that leaves the code that made it: returned (``return sess``), kept on an
object (``self.sess = tf.Session()``), or kept in a module global that a function reads (``SESS.run`` in
``def predict``): other code runs it, as often as it likes.
"""

from __future__ import annotations

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.dataflow import MODULE, SESSION
from tfguard.static.analysis.scopes import FUNCTIONS, LOOPS

#: Calls that run the graph many times inside TensorFlow or Keras.
LOOPING_METHODS = frozenset({
    "fit", "fit_generator", "train_on_batch", "train", "train_and_evaluate", "evaluate", "evaluate_generator",
    "predict", "predict_generator",
})

#: Sessions that run in loops TensorFlow drives (hooks, ``while not sess.should_stop()``).
LOOPING_SESSIONS = frozenset({
    "tensorflow.train.MonitoredTrainingSession", "tensorflow.train.MonitoredSession",
    "tensorflow.train.SingularMonitoredSession",
})


def is_one_shot_script(module) -> bool:
    """Return whether ``module`` (a ModuleAnalysis) opens a session and never runs the graph repeatedly."""
    return module.facts("one_shot_script", _compute)


def _compute(module) -> bool:
    if not module.calls_to(tfapi.SESSION_CLASSES - LOOPING_SESSIONS):
        return False  # no session of its own: a helper, whose caller may loop
    if module.calls_to(LOOPING_SESSIONS):
        return False
    for call in module.nodes_of(nodes.Call):
        func = call.func
        if isinstance(func, nodes.Attribute) and func.attrname in LOOPING_METHODS:
            return False
    if any(module.is_session_loop(loop) for loop in module.nodes_of(*LOOPS)):
        return False
    runs = [call for call in module.nodes_of(nodes.Call) if module.run_event(call) is not None]
    if not runs:
        return False  # a session made here and run elsewhere
    if _session_escapes(module):
        return False
    return not any(_hands_a_session_over(module, call) for call in module.nodes_of(nodes.Call))


def _session_escapes(module) -> bool:
    """A session returned, stored on an object or read by a function from a module global: others run it."""
    for node in module.nodes_of(nodes.Return):
        if node.value is not None and _is_session(module, node.value):
            return True
    for node in module.nodes_of(nodes.Assign):
        if any(isinstance(t, nodes.AssignAttr) for t in node.targets) and _is_session(module, node.value):
            return True
        if any(isinstance(t, nodes.AssignName) and _declared_global(t) for t in node.targets) and _is_session(
                module, node.value):
            return True
    held = {name for name, bindings in module.module.locals.items()
            if any(isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Assign)
                   and _is_session(module, b.parent.value) for b in bindings)}
    if not held:
        return False
    for name in module.nodes_of(nodes.Name):
        if name.name in held and isinstance(name.scope(), FUNCTIONS) and isinstance(
                name.lookup(name.name)[0], nodes.Module):
            return True  # ``SESS.run(...)`` in a function: whoever calls it runs the module's session
    return False


def _declared_global(target: nodes.AssignName) -> bool:
    scope = target.scope()
    return isinstance(scope, FUNCTIONS) and any(
        target.name in g.names for g in scope.nodes_of_class(nodes.Global))


def _hands_a_session_over(module, call: nodes.Call) -> bool:
    """``train(sess, model)``: a function of the project (or an unknown one) gets the session and may loop.

    TF's own calls (``saver.restore(sess, path)``, ``tf.train.start_queue_runners(sess)``) do not count.
    """
    arguments = [*call.args, *(k.value for k in call.keywords or ())]
    if not any(_is_session(module, a) for a in arguments):
        return False
    callee = module.value(call.func)
    if callee is not None and callee.kind == MODULE and tfapi.is_tf_name(callee.api):
        return False
    return not module.dataflow.is_method_of_tf_object(call.func)


def _is_session(module, expr: nodes.NodeNG) -> bool:
    value = module.value(expr)
    return value is not None and value.kind == SESSION
