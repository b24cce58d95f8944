"""What a training step does: ``sess.run`` fetches and feeds, summary writes, checkpoint saves."""

from __future__ import annotations

from typing import List, Optional

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.dataflow import MODULE, RUNNER, SESSION, TF, Value
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.tfapi import CHECKPOINT_SAVERS, SUMMARY_APIS, SUMMARY_WRITERS


def _receiver_api(module: ModuleAnalysis, call: nodes.Call, method: str) -> Optional[str]:
    func = call.func
    if not (isinstance(func, nodes.Attribute) and func.attrname == method):
        return None
    value = module.value(func.expr)
    return value.api if value is not None and value.kind == TF else None


def is_summary_write(module: ModuleAnalysis, call: nodes.NodeNG) -> bool:
    """Return whether ``call`` is ``writer.add_summary(...)`` on a ``tf.summary.FileWriter``.

    In a file that imports TensorFlow, ``w.add_summary(s, step)`` on a receiver tfguard cannot
    resolve (a writer made in a module it cannot read) counts too: the method name is TF's own.
    """
    if not isinstance(call, nodes.Call):
        return False
    func = call.func
    if not (isinstance(func, nodes.Attribute) and func.attrname == "add_summary"):
        return False
    receiver = module.value(func.expr)
    if is_opaque(receiver):
        return bool(call.args) and (imports_tensorflow(module) or _from_graph_run(module, call.args[0]))
    return receiver.kind == TF and receiver.api in SUMMARY_WRITERS


def _from_graph_run(module: ModuleAnalysis, expr: nodes.NodeNG) -> bool:
    """Whether ``expr`` is a name bound (in its scope) only from calls that run the graph.

    ``_, loss, summary = model.train(sess, batch)`` then ``writer.add_summary(summary, step)``: in a driver
    script that never imports TensorFlow, the value written came out of a graph run, so the writer is TF's.
    """
    if not isinstance(expr, nodes.Name):
        return False
    bindings = module.dataflow.definitions(expr, expr.name)
    if not bindings:
        return False
    for binding in bindings:
        statement = binding.statement()
        if not (isinstance(binding, nodes.AssignName) and isinstance(statement, nodes.Assign)):
            return False
        if not isinstance(statement.value, nodes.Call) or module.run_event(statement.value) is None:
            return False
    return True


def is_opaque(value: Optional[Value]) -> bool:
    """Return whether a value is unknown to tfguard: unresolved, or a name from a module it cannot read."""
    return value is None or (value.kind == MODULE and not tfapi.is_tf_name(value.api))


def imports_tensorflow(module: ModuleAnalysis) -> bool:
    """Return whether the module imports TensorFlow (or standalone Keras) anywhere."""
    return module.facts("imports_tensorflow", _imports_tensorflow)


def _imports_tensorflow(module: ModuleAnalysis) -> bool:
    for node in module.nodes_of(nodes.Import):
        if any(name.split(".")[0] in ("tensorflow", "keras") for name, _ in node.names):
            return True
    return any(
        (node.modname or "").split(".")[0] in ("tensorflow", "keras") for node in module.nodes_of(nodes.ImportFrom)
    )


def is_checkpoint_save(module: ModuleAnalysis, call: nodes.NodeNG) -> bool:
    """Return whether ``call`` is ``saver.save(...)`` on a ``tf.train.Saver`` (or ``Checkpoint``)."""
    return isinstance(call, nodes.Call) and _receiver_api(module, call, "save") in CHECKPOINT_SAVERS


def is_summary_tensor(module: ModuleAnalysis, expr: nodes.NodeNG) -> bool:
    """Return whether ``expr`` holds a summary op's output (``merged = tf.summary.merge_all()``)."""
    value = module.value(expr)
    return value is not None and value.kind == TF and value.api in SUMMARY_APIS


def is_session_run(module: ModuleAnalysis, call: nodes.NodeNG) -> bool:
    """Return whether ``call`` runs the graph itself: ``sess.run``, ``t.eval()``, ``op.run()``.

    Helpers that run, ``make_callable`` runners and ``partial_run`` are not included.
    """
    if not isinstance(call, nodes.Call):
        return False
    func = call.func
    if not isinstance(func, nodes.Attribute) or func.attrname not in ("run", "eval"):
        return False
    event = module.run_event(call)
    if event is None or event.chain:
        return False
    value = module.value(func)
    return value is None or value.kind != RUNNER


def _runs_on_session(module: ModuleAnalysis, call: nodes.Call) -> bool:
    receiver = module.value(call.func.expr)
    if receiver is not None:
        return receiver.kind == SESSION
    return call.func.attrname == "run" and not any(k.arg == "session" for k in call.keywords or ())


def fetched(module: ModuleAnalysis, call: nodes.Call) -> List[nodes.NodeNG]:
    """Return the expressions a run call fetches (list, tuple and dict fetches flattened)."""
    if not is_session_run(module, call):
        return []
    if _runs_on_session(module, call):
        fetches = call.args[0] if call.args else next(
            (k.value for k in call.keywords or () if k.arg == "fetches"), None
        )
    else:
        fetches = call.func.expr
    result: List[nodes.NodeNG] = []
    stack = [fetches] if fetches is not None else []
    while stack:
        expr = stack.pop()
        if isinstance(expr, (nodes.List, nodes.Tuple)):
            stack.extend(reversed(expr.elts))
        elif isinstance(expr, nodes.Dict):
            stack.extend(reversed([value for _, value in expr.items]))
        else:
            result.append(expr)
    return result


def feed(module: ModuleAnalysis, call: nodes.Call) -> Optional[nodes.NodeNG]:
    """Return the ``feed_dict`` expression of a run call, if any."""
    for keyword in call.keywords or ():
        if keyword.arg == "feed_dict":
            return keyword.value
    index = 1 if _runs_on_session(module, call) else 0
    return call.args[index] if len(call.args) > index else None
