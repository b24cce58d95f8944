"""Who calls a function of this module, and whether a loop does (issue 44: retracing reach).

A ``tf.function`` called with a parameter of its enclosing helper retraces when the helper's callers pass a
varying Python value: ``def run_batch(x, epoch): return step_fn(x, epoch)`` called as ``run_batch(x, epoch)`` in
``for epoch in range(epochs):``.  These facts follow such calls up to :data:`MAX_CALLER_LEVELS` helpers, within
the module.
"""

from __future__ import annotations

from typing import Dict, List

from astroid import nodes

from tfguard.static.analysis.scopes import FUNCTIONS
from tfguard.static.analysis.tf_functions import enclosing_loop, few_traces

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
