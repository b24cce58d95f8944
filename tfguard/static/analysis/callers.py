"""Who calls a function of this module, and whether a loop does (issue 44: retracing reach).

A ``tf.function`` called with a parameter of its enclosing helper retraces when the helper's callers pass a
varying Python value: ``def run_batch(x, epoch): return step_fn(x, epoch)`` called as ``run_batch(x, epoch)`` in
``for epoch in range(epochs):``.  These facts follow such calls up to :data:`MAX_CALLER_LEVELS` helpers, within
the module.
"""

from __future__ import annotations

from typing import Dict, Iterator, List

from astroid import nodes

from tfguard.static.analysis.scopes import FUNCTIONS
from tfguard.static.analysis.tf_functions import enclosing_loop, few_traces, tf2_code, tf_functions

#: Helpers followed between a loop and the tf.function call (``loop -> helper -> helper -> tf.function``).
MAX_CALLER_LEVELS = 2


def call_sites(module, function: nodes.NodeNG) -> List[nodes.Call]:
    """Return the calls in ``module`` (a ModuleAnalysis) that resolve to ``function``.

    Only the calls whose last written name is the function's (``run_batch(...)``, ``self.run_batch(...)``) are
    resolved: resolving every call of a large module costs more than the rest of the check.
    """
    memo: Dict[int, List[nodes.Call]] = module.facts("call_sites", lambda _: {})
    key = id(function)
    if key not in memo:
        name = getattr(function, "name", None)
        candidates = module.candidate_calls(frozenset(), frozenset({name})) if name else []
        memo[key] = [call for call in candidates if module.called_function(call) is function]
    return memo[key]


def called_in_loop(module, function: nodes.NodeNG, levels: int = MAX_CALLER_LEVELS) -> bool:
    """Whether ``function`` is called from a loop that may run many times, directly or through at most
    ``levels`` helpers of the module."""
    for site in call_sites(module, function):
        loop = enclosing_loop(site)
        if loop is not None and not few_traces(loop):
            return True
        caller = site.scope()
        if levels > 1 and loop is None and isinstance(caller, FUNCTIONS) and caller is not function \
                and called_in_loop(module, caller, levels - 1):
            return True
    return False


def unsigned_calls_in_loops(module, through_callers: bool = False) -> Iterator[tuple]:
    """Yield ``(call, loop, traced)`` for each call, in TF 2 code, of a tf.function without ``input_signature``
    made from a loop that may run many times (not a bounded one, not only while an outer tf.function traces):
    the calls whose arguments the argument rules (TFG403, TFG405) judge.  With ``through_callers``, also the
    calls outside any loop of a helper that a loop calls (through at most two helpers), with ``loop`` None."""
    facts = tf_functions(module)
    if not facts.all() or not tf2_code(module):
        return  # no tf.function here to call (the cheap test first)
    for call in module.nodes_of(nodes.Call):
        loop = enclosing_loop(call)
        if loop is None:
            if not through_callers or not (call.args or call.keywords) or facts.inside_trace(call):
                continue
            traced = facts.traced_of(call)
            if traced is not None and not traced.has_signature and _called_in_loop(module, call):
                yield call, None, traced
            continue
        if loop is None or few_traces(loop) or facts.inside_trace(call):
            continue
        traced = facts.traced_of(call)
        if traced is None or traced.has_signature:
            continue  # with an input_signature a non-Tensor argument is an error, not a retrace
        yield call, loop, traced


def _called_in_loop(module, call: nodes.Call) -> bool:
    scope = call.scope()
    return isinstance(scope, FUNCTIONS) and called_in_loop(module, scope)
