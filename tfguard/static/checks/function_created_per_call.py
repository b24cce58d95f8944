"""TFG401: a ``tf.function`` created anew on every iteration or call, so every call traces a new graph."""

from __future__ import annotations

import builtins
from typing import Iterable, Optional

from astroid import nodes

from tfguard.static.analysis.function_creation import (
    analysis_of,
    creation_statement,
    fresh_objects,
    is_cached,
    nested_functions,
    object_parameters,
    options_vary,
    per_call_creations,
    used_names,
)
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.scopes import function_label
from tfguard.static.analysis.tf_functions import creation_link, enclosing_loop, few_traces, tf2_code, tf_functions
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding

_BUILTINS = frozenset(dir(builtins))


class FunctionCreatedPerCall(NodeRule):
    """A new tf.function object has no graph yet: its first call traces, and the old graphs stay in memory."""

    code = "TFG401"
    name = "function-created-per-call"
    severity = "warning"
    summary = "a `tf.function` is created again on every iteration or call, so every call traces a new graph"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report tf.functions made in a loop, and calls in a loop of functions that make one each call."""
        if not tf2_code(module):
            return
        facts = tf_functions(module)
        for traced in facts.all():
            node = creation_statement(traced)
            loop = enclosing_loop(node)
            if loop is None or facts.inside_trace(node) or is_cached(module, traced):
                continue
            if few_traces(loop) or self._fresh_in_loop(module, loop, traced):
                continue
            decorated = node is traced.function
            what = f"`@tf.function def {traced.label}`" if decorated else f"`{traced.creation.as_string()}`"
            yield self.finding(
                module, traced.creation if decorated else node,
                f"{what} is created again on every iteration of the loop at line {loop.lineno}: each new "
                "tf.function traces a new graph on its first call (and keeps it in memory)", "create it once, "
                "before the loop, and pass what changes as tensor arguments",
            )
        for call in module.nodes_of(nodes.Call):
            finding = self._call_in_loop(module, facts, call)
            if finding is not None:
                yield finding

    def _fresh_in_loop(self, module: ModuleAnalysis, loop: nodes.NodeNG, traced) -> bool:
        """Whether the iteration builds the objects the function works on (a model per fold): a trace each anyway."""
        fresh = fresh_objects(module, loop.body)
        if not fresh:
            return False
        used = used_names(traced.function, nested_functions(loop.body)) | self._passed_to(loop, traced)
        # The function may reach the new model through a helper tfguard cannot read (``strategy.run(step_fn)``
        # with ``step_fn`` defined elsewhere): a new model in the iteration is enough to stay silent.  Names the
        # enclosing function binds (a model made once before the loop, the loop's batch) are read, not unknown:
        # a fresh metric beside them does not make the function's own objects new (issue 44).  Its parameters
        # stay unknown (a ``step_fn`` passed in may reach the iteration's model).
        scope = loop.scope()
        bound = {n.name for n in scope.nodes_of_class(nodes.AssignName) if not isinstance(n.parent, nodes.Arguments)
                 and n.scope() is scope} if scope is not module.module else set()
        return bool(fresh & used) or bool(used - set(module.module.locals) - _BUILTINS - bound)

    def _passed_to(self, loop: nodes.NodeNG, traced) -> set:
        """The names the loop passes to calls of the tf.function made at ``traced`` (``f = tf.function(g)``)."""
        creation = traced.creation
        target = creation.parent.targets[0] if isinstance(creation.parent, nodes.Assign) else None
        name = target.name if isinstance(target, nodes.AssignName) else getattr(traced.function, "name", None)
        passed = set()
        for call in loop.nodes_of_class(nodes.Call):
            if isinstance(call.func, nodes.Name) and call.func.name == name:
                passed.update(a.name for a in [*call.args, *(k.value for k in call.keywords or ())]
                              if isinstance(a, nodes.Name))
        return passed

    def _call_in_loop(self, module: ModuleAnalysis, facts, call: nodes.Call) -> Optional[Finding]:
        loop = enclosing_loop(call)
        if loop is None or facts.inside_trace(call) or few_traces(loop):
            return None
        callee = module.called_function(call)
        if callee is None or not isinstance(callee, (nodes.FunctionDef, nodes.AsyncFunctionDef)):
            return None
        owner = analysis_of(module, callee)
        if owner is None:
            return None
        creations = [
            c for c in per_call_creations(owner, callee)
            if not self._unavoidable(owner, callee, c.traced) and not (
                c.use == "returns" and self._fresh_arguments(module, loop, call)
            )
        ]
        if not creations:
            return None
        names = ", ".join(f"`{c.traced.label}` (line {c.traced.creation.lineno})" for c in creations)
        where = "" if owner is module else f" in {owner.path}"
        label = function_label(callee)
        if all(c.use == "returns" for c in creations):
            message = (
                f"`{label}()`{where} returns a new tf.function, {names}, on every call, and it is called here on "
                f"every iteration of the loop at line {loop.lineno}: each new one traces its graph again", "call "
                f"`{label}()` once, before the loop, and reuse what it returns"
            )
        else:
            message = (
                f"`{label}()`{where} creates a new tf.function, {names}, on every call and calls it, and it is "
                f"called here on every iteration of the loop at line {loop.lineno}: each call traces a new graph",
                f"define the tf.function once, outside `{label}()` (module level, or in `__init__`), and pass "
                "what changes as tensor arguments"
            )
        # the lines to change: where each tf.function is created (issue 44)
        return self.finding(module, call, *message, [creation_link(owner.path, c.traced) for c in creations])

    def _unavoidable(self, owner: ModuleAnalysis, callee: nodes.NodeNG, traced) -> bool:
        """Whether each call builds (or is handed) the objects the function works on, so it must trace anyway."""
        if object_parameters(callee, traced.function) or options_vary(traced, callee):
            return True
        fresh = fresh_objects(owner, callee.body)
        return bool(fresh & used_names(traced.function, nested_functions(callee.body)))

    def _fresh_arguments(self, module: ModuleAnalysis, loop: nodes.NodeNG, call: nodes.Call) -> bool:
        """Whether the factory's result is called with objects the same iteration builds (a new optimizer per run)."""
        target = call.parent.targets[0] if isinstance(call.parent, nodes.Assign) else None
        if not isinstance(target, nodes.AssignName):
            return False
        fresh = fresh_objects(module, loop.body)
        for use in loop.nodes_of_class(nodes.Call):
            if isinstance(use.func, nodes.Name) and use.func.name == target.name:
                passed = {a.name for a in use.args if isinstance(a, nodes.Name)}
                if passed & fresh:
                    return True
        return False
