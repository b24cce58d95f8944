"""TFG203: several ``sess.run`` calls on every step that could be one."""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Set

from astroid import nodes

from tfguard.static.analysis.frequency import StepAnalysis, frequency
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.analysis.run_fetches import (
    GraphRun,
    changes_state,
    copy_sources,
    fetched_items,
    forget_runs,
    only_reads_variables,
)
from tfguard.static.analysis.scopes import position
from tfguard.static.analysis.split_runs import (
    fed_alike,
    feeds_on,
    mergeable,
    mergeable_pair_in_helper,
    reread_across_an_update,
    run_between,
    runs_inside,
    shared_feed,
)
from tfguard.static.analysis.step_effects import GRAPH_RUN, StepEffect, direct_kind, step_effects
from tfguard.static.checks._links import with_lines
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding


class SplitSessionRun(NodeRule):
    """Each ``sess.run`` re-executes the parts of the graph its fetches share with the others."""

    code = "TFG203"
    name = "split-session-run"
    severity = "warning"
    summary = "two or more `sess.run` calls on every step that could be merged into one"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report each every-step graph run after the first in its step loop, unless it cannot be merged
        with the earlier ones: it feeds on their results, feeds other values into the same placeholders,
        one of the two runs an assignment or initializer, or both run optimizer updates."""
        steps = frequency(module)
        forget_runs()  # per-run memos, keyed by node identity: valid for this module only
        by_loop: Dict[tuple, List[GraphRun]] = {}
        every_run = list(_runs(module))  # guarded ones too: an update under an ``if`` still changes variables
        for run in every_run:
            loop = steps.step_loop(run.node)
            if loop is None:
                continue
            # Runs after the same ``continue`` (``if batch is None: continue``) run on the same iterations:
            # they are compared with each other, never with a run the ``continue`` does not skip. Runs under
            # one frequency guard (``if step % 10 == 0:``) run on the same iterations too: compared together.
            skipped_by = steps.skipping_continues(run.node, loop)
            guard = steps.guard(run.node, loop)
            by_loop.setdefault((id(loop), skipped_by, id(guard) if guard is not None else None), []).append(run)
        reported: Set[int] = set()
        for finding in self._loop_findings(module, steps, by_loop, every_run):
            reported.add(finding.line)
            yield finding
        yield from self._helper_findings(module, steps, by_loop, reported)

    def _loop_findings(self, module: ModuleAnalysis, steps: StepAnalysis, by_loop,
                       every_run: List[GraphRun]) -> Iterable[Finding]:
        for runs in by_loop.values():
            runs.sort(key=lambda r: position(r.node))
            loop = steps.step_loop(runs[0].node)
            for index, later in enumerate(runs[1:], start=1):
                guarded = steps.guard(later.node, loop) is not None
                earlier = [
                    run for run in runs[:index]
                    if mergeable(module, run, later) and not reread_across_an_update(every_run, run, later)
                    and not ((changes_state(run) or changes_state(later)) and run_between(every_run, run, later))
                    # under a guard, only runs fed alike (a repeated forward pass) are worth a finding
                    and (not guarded or fed_alike(module, run, later))
                ]
                if not earlier or feeds_on(steps, loop, earlier, later.node) or runs_inside(later.node, runs):
                    continue  # the later run needs an earlier result (a nested run: it is reported itself)
                first = earlier[0]
                when = _when(steps, later.node, loop)
                again = _same_variable_read(later, earlier)
                if again is not None:
                    yield self.finding(
                        module, later.node,
                        f"`{describe(later.node)}` reads `{_variables_text(later)}` again {when}: "
                        f"line {again.node.lineno} read the same value (no update or "
                        "assignment ran since)", "keep that value, or fetch it once with the other fetches: each "
                        "extra call is another round trip through the runtime",
                        with_lines(later.sites[0].chain, module, [again.node], later.node.lineno),
                    )
                    continue
                cost = (
                    "each extra call is another round trip through the runtime"
                    if only_reads_variables(later) or copy_sources(later) is not None
                    else "each extra call re-executes the graph parts they share (input pipeline, forward pass)"
                )
                what = f"`{describe(later.node)}` is another graph run"
                if later.through_helper:
                    site = later.sites[0]
                    what = f"`{describe(later.node)}` runs the graph (`{describe(site.site)}`, line {site.site.lineno})"
                yield self.finding(
                    module, later.node,
                    f"{what} {when} after `{describe(first.node)}` at line "
                    f"{first.node.lineno}", f"fetch everything in one `sess.run([...])`: {cost}",
                    with_lines(later.sites[0].chain, module, [first.node], later.node.lineno),
                )

    def _helper_findings(self, module: ModuleAnalysis, steps: StepAnalysis, by_loop, reported) -> Iterable[Finding]:
        """A call in a step loop whose helper runs the graph several times on every call, in runs that could be
        one: ``agent.train()`` running ``self.actor.update_target()`` then ``self.critic.update_target()``."""
        for runs in by_loop.values():
            loop = steps.step_loop(runs[0].node)
            for run in runs:
                if not run.through_helper or run.node.lineno in reported or steps.guard(run.node, loop) is not None:
                    continue
                pair = mergeable_pair_in_helper(run)
                if pair is None:
                    continue
                first, later = pair
                shared = shared_feed(first)
                fed = ("neither fed nor reading" if shared is None
                       else f"both fed the same `{shared.name}`, neither reading")
                cost = ("each extra call is another round trip through the runtime" if shared is None
                        else "each extra call re-executes the graph parts they share (the forward pass)")
                yield self.finding(
                    module, run.node,
                    f"`{describe(run.node)}` runs the graph more than once on every call, on every step of "
                    f"{steps.loop_text(loop)}: {_site_text(module, later)} after {_site_text(module, first)}, "
                    f"{fed} the other's result", f"fetch both in one `sess.run([...])` (return the "
                    f"ops from the helpers): {cost}",
                    # both runs the message names: the later's hops, then the earlier's (issue 44)
                    with_lines(later.chain, module, [*first.chain, first.site], run.node.lineno),
                )


def _when(steps: StepAnalysis, node: nodes.NodeNG, loop: nodes.NodeNG) -> str:
    """"on every step of the `for ...` loop at line 12", or "every 10 iterations of ..." under a guard."""
    if steps.guard(node, loop) is None:
        return f"on every step of {steps.loop_text(loop)}"
    return steps.iteration_words(node, loop)


def _site_text(module: ModuleAnalysis, effect: StepEffect) -> str:
    """```self.sess.run(self.target_update)`` in `CriticNetwork.update_target()` (networks.py:94)``."""
    where = effect.owner.path
    place = f"line {effect.site.lineno}" if where == module.path else f"{where}:{effect.site.lineno}"
    function = f" in `{effect.chain[-1].function}()`" if effect.chain else ""
    return f"`{describe(effect.site, 80).replace('()', '(' + _fetch_text(effect) + ')')}`{function} ({place})"


def _fetch_text(effect: StepEffect) -> str:
    call = effect.site
    text = call.args[0].as_string() if call.args else ""
    return text if len(text) <= 40 else text[:39] + "…"


def _runs(module: ModuleAnalysis) -> Iterable[GraphRun]:
    """Yield the calls inside loops that run the graph: directly, or every time through a helper."""
    effects = step_effects(module)
    for call in module.nodes_of(nodes.Call):
        if next(module.enclosing_loops(call), None) is None:
            continue
        if direct_kind(module, call) == GRAPH_RUN:
            yield GraphRun(call, (StepEffect(GRAPH_RUN, call, module),))
            continue
        reached = effects.through_helpers(call, GRAPH_RUN)
        if reached:
            yield GraphRun(call, tuple(reached))


def _variables_text(run: GraphRun) -> str:
    """The variables a direct run reads, as written (``global_step``); "" for other runs."""
    if run.through_helper or not run.sites:
        return ""
    site = run.sites[0]
    return ", ".join(item.as_string() for item in fetched_items(site))


def _same_variable_read(later: GraphRun, earlier: List[GraphRun]) -> Optional[GraphRun]:
    """An earlier run that read the very variables ``later`` reads (``sess.run([global_step])[0]`` in the
    loop's test, then again as an argument, in a ``print``, in a feed): one value, read by several runs."""
    if not only_reads_variables(later):
        return None
    text = _variables_text(later)
    if not text:
        return None
    return next((run for run in earlier if only_reads_variables(run) and _variables_text(run) == text), None)
