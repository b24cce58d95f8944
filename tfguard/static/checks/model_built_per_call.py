"""TFG402: a Keras model built (or loaded) on every iteration or call and then ``predict``-ed or ``evaluate``-d."""

from __future__ import annotations

from typing import Iterable, List, Optional, Tuple

from astroid import nodes

from tfguard.static.analysis.function_creation import analysis_of
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.scopes import FUNCTIONS, function_label
from tfguard.static.analysis.tf_functions import bounded_loop, builds_model, enclosing_loop, tf2_code, tf_functions
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import ChainLink, Finding

#: Keras methods that run the model through a ``tf.function`` Keras makes once per model.
TRACED_METHODS = frozenset({"predict", "evaluate", "predict_on_batch", "test_on_batch", "predict_generator",
                            "evaluate_generator"})
#: Methods that train the model: a model built per iteration to be trained (a trial, a fold) is the point.
TRAINING_METHODS = frozenset({"fit", "fit_generator", "train_on_batch"})


class ModelBuiltPerCall(NodeRule):
    """Each new model has its own predict/evaluate function: the first call on every new model traces it."""

    code = "TFG402"
    name = "model-built-per-call"
    severity = "warning"
    summary = "a Keras model is built or loaded on every iteration or call and then `predict`-ed or `evaluate`-d"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report model builds in a loop that are predicted there, and loop calls of helpers that do so."""
        if not tf2_code(module):
            return
        facts = tf_functions(module)
        for call in module.nodes_of(nodes.Call):
            loop = enclosing_loop(call)
            if loop is None or facts.inside_trace(call) or bounded_loop(loop):
                continue
            if builds_model(module, call):
                method = _predicted_in(module, call, loop.body)
                if method is not None:
                    yield self.finding(
                        module, call,
                        f"a new Keras model is built on every iteration of the loop at line {loop.lineno} and "
                        f"`.{method}()` is called on it: every new model traces its {method} function again "
                        "(Keras 2 and 3 alike, and the old graphs stay until `clear_session()`)", "build or load the "
                        "model once, before the loop, and reuse it (`load_weights`/`set_weights` change its weights)",
                    )
                continue
            helper = self._predicting_helper(module, call)
            if helper is not None:
                callee, build, method = helper
                owner = analysis_of(module, callee)
                where = "" if owner is module else f" in {owner.path}"
                yield self.finding(
                    module, call,
                    f"`{function_label(callee)}()`{where} builds a new Keras model (line {build.lineno}) and calls "
                    f"`.{method}()` on it on every call, and it is called here on every iteration of the loop at "
                    f"line {loop.lineno}: every new model traces its {method} function again", "build the model once "
                    "and pass it in",
                    [ChainLink(owner.path, build.lineno, function_label(callee))],
                )

    def _predicting_helper(
        self, module: ModuleAnalysis, call: nodes.Call
    ) -> Optional[Tuple[nodes.NodeNG, nodes.Call, str]]:
        callee = module.called_function(call)
        if not isinstance(callee, FUNCTIONS):
            return None
        owner = analysis_of(module, callee)
        if owner is None or tf_functions(owner).inside_trace(callee) or tf_functions(owner).is_traced_body(callee):
            return None
        for build in callee.nodes_of_class(nodes.Call):
            if build.scope() is not callee or enclosing_loop(build) is not None:
                continue  # a build in a loop of the helper is the helper's own finding
            if builds_model(owner, build):
                method = _predicted_in(owner, build, callee.body)
                if method is not None:
                    return callee, build, method
        return None


def _predicted_in(module: ModuleAnalysis, build: nodes.Call, statements: List[nodes.NodeNG]) -> Optional[str]:
    """Return the traced Keras method called on the model ``build`` makes, within ``statements``, unless the
    model is trained there too; None when it is not predicted (or is trained)."""
    if _trained_by_builder(module, build):
        return None
    parent = build.parent
    if isinstance(parent, nodes.Attribute) and parent.attrname in TRACED_METHODS:
        return parent.attrname  # ``load_model(path).predict(x)``
    if not isinstance(parent, nodes.Assign) or len(parent.targets) != 1 \
            or not isinstance(parent.targets[0], nodes.AssignName):
        return None
    name = parent.targets[0].name
    method = None
    for statement in statements:
        for node in statement.nodes_of_class(nodes.Attribute):
            if not isinstance(node.expr, nodes.Name) or node.expr.name != name:
                continue
            if node.attrname in TRAINING_METHODS or node.attrname == "trainable_variables":
                return None
            if node.attrname in TRACED_METHODS and method is None:
                method = node.attrname
    return method


def _trained_by_builder(module: ModuleAnalysis, build: nodes.Call) -> bool:
    """Whether ``build`` calls a local function that trains the model it returns (``model = training(data)``:
    a model per fold or trial, fitted inside the helper)."""
    value = module.value(build.func)
    if value is None or value.kind != "function" or not isinstance(value.node, FUNCTIONS):
        return False
    for node in value.node.nodes_of_class(nodes.Attribute):
        if node.attrname in TRAINING_METHODS or node.attrname in ("apply_gradients", "minimize"):
            return True
    return False
