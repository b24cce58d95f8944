"""TFG406: Keras ``predict``/``evaluate`` called on one sample on every iteration of a loop (or every agent step)."""

from __future__ import annotations

import re
from typing import Iterable, Optional

from astroid import nodes

from tfguard.static.analysis.function_creation import analysis_of
from tfguard.static.analysis.inference import argument_for
from tfguard.static.analysis.keras_steps import LoopPath, loop_path, one_sample
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.scopes import FUNCTIONS, function_label, is_ancestor
from tfguard.static.analysis.tf_functions import (
    assigned_in,
    builds_model,
    is_keras_model_class,
    is_keras_name,
    tf2_code,
    tf_functions,
)
from tfguard.static.finding import ChainLink, Finding
from tfguard.static.registry import Rule

#: Keras methods that set up a whole data-set run (a data adapter, callbacks, a progress bar) on every call.
METHODS = frozenset({"predict", "evaluate"})
#: Methods that pick an agent's action: called once per environment step by whatever loop drives the agent.
ACTION_METHOD = re.compile(r"^(act|policy|(get|choose|select|take|sample|predict|pick)_actions?)$")
#: Libraries whose ``predict`` is no Keras model's (scikit-learn, XGBoost, LightGBM...).
_OTHER_LIBRARIES = ("sklearn.", "xgboost.", "lightgbm.", "catboost.", "statsmodels.")

#: The headline: what is called, on what, and how often (formatted with method, input, cadence).
HEADLINE = "`.{method}()` runs on one sample ({what}) {cadence}"
#: The advice: why it costs and what to write instead (formatted with method).
ADVICE = (
    "Keras sets up a whole data-set run on every `{method}` call (a data adapter, callbacks, a step function "
    "call), 0.1-0.2 s each instead of about 1 ms: call the model directly, `model(x, training=False)` (a tensor, "
    "not a NumPy array), wrap that call in a `tf.function`, or collect the rows and call `{method}` once on the batch"
)


class PredictInLoop(Rule):
    """Keras' predict/evaluate are made for data sets: on one sample per step they cost 100x a direct call."""

    code = "TFG406"
    name = "predict-in-loop"
    severity = "warning"
    summary = "Keras `predict`/`evaluate` is called on one sample on every iteration of a loop or every agent step"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report each predict/evaluate call on one sample that a loop (or an agent's action method) repeats."""
        if not tf2_code(module):
            return
        facts = tf_functions(module)
        for call in module.candidate_calls(frozenset(), METHODS):
            func = call.func
            if not isinstance(func, nodes.Attribute) or func.attrname not in METHODS or not call.args \
                    or facts.inside_trace(call) or not _keras_receiver(module, func.expr):
                continue
            if _version_gated(call):
                continue
            path = loop_path(module, call)
            if _built_here(module, func.expr, path):
                continue
            cadence = _cadence(module, call, path)
            if cadence is None or not _small_input(module, call, path):
                continue
            what = call.args[0].as_string()
            what = what if len(what) <= 40 else what[:37] + "..."
            headline = HEADLINE.format(method=func.attrname, what=f"`{what}`", cadence=cadence)
            yield _finding(self, module, call, headline, ADVICE.format(method=func.attrname), path)
        if module.project is not None:
            yield from self._through_other_files(module)

    def _through_other_files(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """A loop here calling a function of another file that predicts on one sample (a model wrapper's
        ``predict(state)``): reported at the call here (a file's findings stay in it), the predict line in the chain.
        """
        facts = tf_functions(module)
        for call in module.nodes_of(nodes.Call):
            if not isinstance(call.func, nodes.Attribute) or facts.inside_trace(call):
                continue
            callee = module.called_function(call)
            if not isinstance(callee, FUNCTIONS) or callee.root() is module.module:
                continue
            owner = analysis_of(module, callee)
            if owner is None or not tf2_code(owner) or _action_method(callee):
                continue  # an action method is reported in its own file
            path = loop_path(module, call)
            if path is None:
                continue
            for inner in owner.own_nodes(callee):
                if not _keras_call(owner, inner) \
                        or not _small_through(owner, inner.args[0], callee, module, call, path):
                    continue
                method = inner.func.attrname
                headline = HEADLINE.format(method=method, what=f"`{inner.args[0].as_string()[:40]}` in "
                                           f"`{function_label(callee)}()`, {owner.path} line {inner.lineno}",
                                           cadence=_cadence(module, call, path))
                chain = (*path.chain(module.path), ChainLink(module.path, call.lineno, _label(call)),
                         ChainLink(owner.path, inner.lineno, function_label(callee)))
                end_col = call.end_col_offset if call.end_col_offset is not None else call.col_offset
                yield Finding(path=module.path, line=call.lineno, column=call.col_offset + 1,
                              end_line=call.end_lineno or call.lineno, end_column=end_col + 1, code=self.code,
                              name=self.name, severity=self.severity, headline=headline,
                              help=ADVICE.format(method=method), chain=chain)
                break


def _built_here(module: ModuleAnalysis, receiver: nodes.NodeNG, path: Optional[LoopPath]) -> bool:
    """A model built anew each time the predict runs (in the loop's body, or in the function the loop calls): a new
    model per call is TFG402's finding, and a trial that builds and trains a model is not slowed down by one predict.
    """
    if not isinstance(receiver, nodes.Name) or path is None:
        return False
    scope = receiver.scope()
    for binding in assigned_in(scope, receiver.name):
        if not (isinstance(binding, nodes.Assign) and builds_model(module, binding.value)):
            continue
        if len(path.calls) == 1 and is_ancestor(path.loop, binding):
            return True
        if len(path.calls) > 1 and isinstance(scope, FUNCTIONS):
            return True
    return False


def _version_gated(call: nodes.Call) -> bool:
    """Under ``if tf.__version__ > "2.4.0": model(x) else: model.predict(x)``: the author already calls the model
    where TensorFlow allows it, and keeps ``predict`` for old versions."""
    parent = call.parent
    while parent is not None and not isinstance(parent, (*FUNCTIONS, nodes.Module)):
        if isinstance(parent, nodes.If) and "__version__" in parent.test.as_string():
            return True
        parent = parent.parent
    return False


def _keras_call(module: ModuleAnalysis, node: nodes.NodeNG) -> bool:
    return isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) and node.func.attrname in METHODS \
        and bool(node.args) and _keras_receiver(module, node.func.expr)


def _small_through(owner: ModuleAnalysis, argument: nodes.NodeNG, callee: nodes.NodeNG, module: ModuleAnalysis,
                   call: nodes.Call, path: LoopPath) -> bool:
    """One sample made inside ``callee``, or its parameter that ``call`` (in ``module``) fills with one sample."""
    if one_sample(owner, argument):
        return True
    while isinstance(argument, nodes.Call) and argument.args and owner.called_function(argument) is not None:
        argument = argument.args[0]  # ``self.reshape(inp)``: a helper preparing the sample
    if not isinstance(argument, nodes.Name) or argument.name not in {a.name for a in callee.args.args or ()}:
        return False
    passed = argument_for(call, callee, argument.name, isinstance(call.func, nodes.Attribute))
    return isinstance(passed, nodes.NodeNG) and one_sample(module, passed, path)


def _action_method(function: nodes.NodeNG) -> bool:
    return isinstance(function.parent, nodes.ClassDef) and ACTION_METHOD.match(function.name) is not None


def _label(node: nodes.NodeNG) -> str:
    scope = node.scope()
    return function_label(scope) if isinstance(scope, FUNCTIONS) else "<module>"


def _cadence(module: ModuleAnalysis, call: nodes.Call, path: Optional[LoopPath]) -> Optional[str]:
    if path is not None:
        if len(path.calls) == 1:
            return f"on every iteration of the loop at line {path.loop.lineno}"
        return f"on every iteration of the loop at line {path.loop.lineno} (through the call at line " \
               f"{path.calls[0].lineno})"
    function = call.scope()
    if isinstance(function, FUNCTIONS) and isinstance(function.parent, nodes.ClassDef) \
            and ACTION_METHOD.match(function.name):
        return f"on every call of `{function_label(function)}()`, once per environment step"
    return None


def _small_input(module: ModuleAnalysis, call: nodes.Call, path: Optional[LoopPath]) -> bool:
    argument = call.args[0]
    if one_sample(module, argument, path):
        return True
    # ``self.model.predict(state)`` on a parameter of an action method: the state of one environment step
    function = call.scope()
    return isinstance(argument, nodes.Name) and isinstance(function, FUNCTIONS) \
        and argument.name in {a.name for a in function.args.args or ()} and ACTION_METHOD.match(function.name) \
        is not None


def _keras_receiver(module: ModuleAnalysis, receiver: nodes.NodeNG) -> bool:
    """Whether ``receiver.predict`` may be Keras': a Keras model, a subclass of one, or something unknown; not a
    local class with a ``predict`` of its own (then that method is the one called), nor another library's."""
    if isinstance(receiver, nodes.Name) and receiver.name == "self":
        cls = receiver.scope().parent
        return isinstance(cls, nodes.ClassDef) and is_keras_model_class(module, cls) \
            and not any(isinstance(m, FUNCTIONS) and m.name in METHODS for m in cls.body)
    value = module.value(receiver)
    if value is None:
        return not (isinstance(receiver, nodes.Name) and any(
            isinstance(b, nodes.Assign) and (module.call_qualname(b.value) or "").startswith(_OTHER_LIBRARIES)
            for b in assigned_in(receiver.scope(), receiver.name)))
    if value.kind in ("instance", "class") and isinstance(value.node, nodes.ClassDef):
        return is_keras_model_class(module, value.node) and not any(
            isinstance(m, FUNCTIONS) and m.name in METHODS for m in value.node.body)
    if value.kind in ("function", "pymodule", "session", "graph", "runner"):
        return False
    api = value.api or ""
    return value.kind == "tf" and not api.startswith(_OTHER_LIBRARIES) and (
        is_keras_name(api) or not api.startswith("tensorflow."))


def _finding(rule: Rule, module: ModuleAnalysis, call: nodes.Call, headline: str, advice: str,
             path: Optional[LoopPath]) -> Finding:
    """The finding at the predict call (the line to change), the loop's call and the hops between in its chain."""
    end_col = call.end_col_offset if call.end_col_offset is not None else call.col_offset
    return Finding(path=module.path, line=call.lineno, column=call.col_offset + 1,
                   end_line=call.end_lineno or call.lineno, end_column=end_col + 1, code=rule.code, name=rule.name,
                   severity=rule.severity, headline=headline, help=advice,
                   chain=path.chain(module.path) if path else ())
