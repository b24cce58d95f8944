"""TFG203: several ``sess.run`` calls on every step that could be one."""

from __future__ import annotations

from typing import Dict, Iterable, List, Set

from astroid import nodes

from tfguard.static.analysis.frequency import StepAnalysis, frequency
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.analysis.scopes import position
from tfguard.static.analysis.steps import feed, fetched, is_session_run
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding


class SplitSessionRun(NodeRule):
    """Each ``sess.run`` re-executes the parts of the graph its fetches share with the others."""

    code = "TFG203"
    name = "split-session-run"
    severity = "warning"
    summary = "two or more `sess.run` calls on every step that could be merged into one"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report each every-step run call after the first in its step loop, unless it feeds on an earlier one."""
        steps = frequency(module)
        by_loop: Dict[int, List[nodes.Call]] = {}
        for call in module.nodes_of(nodes.Call):
            if is_session_run(module, call):
                loop = steps.every_step_loop(call)
                if loop is not None:
                    by_loop.setdefault(id(loop), []).append(call)
        for runs in by_loop.values():
            runs.sort(key=position)
            loop = steps.step_loop(runs[0])
            for index, later in enumerate(runs[1:], start=1):
                later_updates = _runs_an_update(module, later)
                earlier = [
                    run for run in runs[:index]
                    if not _exclusive(run, later) and not (later_updates and _runs_an_update(module, run))
                ]
                if not earlier or _feeds_on(module, steps, loop, earlier, later):
                    continue
                yield self.finding(
                    module, later,
                    f"`{describe(later)}` is another graph run on every step of {steps.loop_text(loop)} "
                    f"after `{describe(earlier[0])}` at line {earlier[0].lineno}; fetch everything in one "
                    "`sess.run([...])`: each extra call re-executes the graph parts they share "
                    "(input pipeline, forward pass)",
                )


def _runs_an_update(module: ModuleAnalysis, call: nodes.Call) -> bool:
    """Return whether a run fetches an optimizer update (``opt.minimize()`` / ``apply_gradients()``).

    Two updates in a row (a GAN's discriminator, then its generator) must run one after
    the other: merged into one ``sess.run`` they would both see the old weights.
    """
    for expr in fetched(module, call):
        value = module.value(expr)
        if value is not None and value.api.endswith((".minimize", ".apply_gradients")):
            return True
    return False


def _exclusive(first: nodes.NodeNG, second: nodes.NodeNG) -> bool:
    """Return whether the two nodes sit in different branches of one ``if``."""
    ancestors = {}
    child, parent = first, first.parent
    while parent is not None:
        ancestors[id(parent)] = child
        child, parent = parent, parent.parent
    child, parent = second, second.parent
    while parent is not None:
        if id(parent) in ancestors:
            if isinstance(parent, nodes.If):
                return (ancestors[id(parent)] in parent.body) != (child in parent.body)
            return False
        child, parent = parent, parent.parent
    return False


def _feeds_on(module: ModuleAnalysis, steps: StepAnalysis, loop, earlier: List[nodes.Call], later: nodes.Call) -> bool:
    """Return whether ``later``'s feed_dict uses a value an earlier run returned (directly or derived)."""
    feed_expr = feed(module, later)
    if feed_expr is None:
        return False
    tainted: Set[str] = set()
    for run in earlier:
        statement = run.statement()
        if isinstance(statement, (nodes.Assign, nodes.AugAssign)):
            targets = statement.targets if isinstance(statement, nodes.Assign) else [statement.target]
            for target in targets:
                tainted.update(n.name for n in target.nodes_of_class(nodes.AssignName))
    start, end = min(position(r) for r in earlier), position(later)
    changed = True
    while changed:
        changed = False
        for node in steps.iteration_nodes(loop):
            if not isinstance(node, nodes.Assign) or not start <= position(node) < end:
                continue
            if _mentions(node.value, tainted):
                names = {n.name for t in node.targets for n in t.nodes_of_class(nodes.AssignName)}
                if not names <= tainted:
                    tainted |= names
                    changed = True
    return _mentions(feed_expr, tainted)


def _mentions(expr: nodes.NodeNG, names: Set[str]) -> bool:
    return any(n.name in names for n in (expr, *expr.nodes_of_class(nodes.Name)) if isinstance(n, nodes.Name))
