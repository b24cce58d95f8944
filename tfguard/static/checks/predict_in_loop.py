"""TFG406: Keras ``predict``/``evaluate`` called on one sample on every iteration of a loop (or every agent step)."""

from __future__ import annotations

import re
from typing import Iterable, Optional

from astroid import nodes

from tfguard.static.analysis.keras_steps import LoopPath, loop_path, one_sample
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.scopes import FUNCTIONS, function_label
from tfguard.static.analysis.tf_functions import (
    assigned_in,
    is_keras_model_class,
    is_keras_name,
    tf2_code,
    tf_functions,
)
from tfguard.static.finding import Finding
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
            path = loop_path(module, call)
            cadence = _cadence(module, call, path)
            if cadence is None or not _small_input(module, call, path):
                continue
            what = call.args[0].as_string()
            what = what if len(what) <= 40 else what[:37] + "..."
            message = (HEADLINE.format(method=func.attrname, what=f"`{what}`", cadence=cadence) + "; "
                       + ADVICE.format(method=func.attrname))
            yield _finding(self, module, call, message, path)


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


def _finding(rule: Rule, module: ModuleAnalysis, call: nodes.Call, message: str,
             path: Optional[LoopPath]) -> Finding:
    """The finding at the predict call (the line to change), the loop's call and the hops between in its chain."""
    end_col = call.end_col_offset if call.end_col_offset is not None else call.col_offset
    return Finding(path=module.path, line=call.lineno, column=call.col_offset + 1,
                   end_line=call.end_lineno or call.lineno, end_column=end_col + 1, code=rule.code, name=rule.name,
                   severity=rule.severity, message=message, chain=path.chain(module.path) if path else ())
