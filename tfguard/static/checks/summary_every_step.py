"""TFG201: summaries written (or summary ops evaluated) on every training step."""

from __future__ import annotations

from typing import Iterable, Iterator, List, Optional, Set

from astroid import nodes

from tfguard.static.analysis.eager_steps import TENSORBOARD_CALLBACK
from tfguard.static.analysis.frequency import StepAnalysis, frequency
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.analysis.scalar_summaries import writes_only_scalars
from tfguard.static.analysis.step_effects import SUMMARY_WRITE, merged_chain, step_effects
from tfguard.static.analysis.steps import fetched, is_summary_tensor, is_summary_write
from tfguard.static.checks._eager_writes import every_step_writes, frequent_callbacks
from tfguard.static.checks._links import with_default, with_lines
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import UNSAFE, Finding
from tfguard.static.fixes import cadence
from tfguard.static.registry import FixOffer

DEFAULTS = "TensorFlow's own defaults write summaries every 100 steps"
TF2_ADVICE = (
    "write them under a guard such as `if step % 100 == 0:` or `tf.summary.record_if(lambda: step % 100 == 0)`, "
    "and leave flushing to the writer (it flushes every 120 s by default)"
)


class SummaryEveryStep(NodeRule):
    """Writing summaries every step costs a GPU→host copy, serialisation and disk I/O per step."""

    code = "TFG201"
    name = "summary-every-step"
    severity = "warning"
    summary = "summaries written (or the summary op fetched) on every training step"
    fix = FixOffer(
        UNSAFE,
        "writes `writer.add_summary(sess.run(...), step)` only when `step % 100 == 0`",
        cadence.plan_guard,
    )

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report ``add_summary`` calls made on every step (directly or in a helper the loop calls), and
        summary fetches made on every step for a write that is guarded."""
        steps = frequency(module)
        effects = step_effects(module)
        loops_with_guarded_writes = {}
        for call in module.nodes_of(nodes.Call):
            if next(module.enclosing_loops(call), None) is None:
                continue
            if is_summary_write(module, call):
                loop = steps.every_step_loop(call)
                if loop is None and steps.step_loop(call) is not None:
                    loops_with_guarded_writes.setdefault(id(steps.step_loop(call)), steps.step_loop(call))
                if loop is not None and not writes_only_scalars(module, call):
                    yield self.finding(
                        module, call,
                        f"`{describe(call)}` writes summaries {steps.how_often(call, loop)} of "
                        f"{steps.loop_text(loop)}",
                        f"write them under a guard such as `if step % 100 == 0:` ({DEFAULTS})",
                        with_default((), module, steps, call, loop),  # the default the message names
                    )
                continue
            reached = effects.through_helpers(call, SUMMARY_WRITE)
            # the scalar-only exemption holds behind a helper as it does at a direct write (issue 32, item 16)
            reached = [site for site in reached if not writes_only_scalars(site.owner, site.site)]
            if reached:
                loop = steps.every_step_loop(call)
                if loop is not None:
                    site = reached[0]
                    # every write the helper makes on each call, in every branch it may take (issue 40, class 3)
                    places = _places(module, reached)
                    yield self.finding(
                        module, call,
                        f"`{describe(call)}` calls `{describe(site.site)}` ({places}) on each call, "
                        f"so it writes summaries {steps.how_often(call, loop)} of {steps.loop_text(loop)}",
                        f"write them under a guard such as `if step % 100 == 0:` ({DEFAULTS})",
                        with_default(merged_chain(reached), module, steps, call, loop),
                    )
        for loop in loops_with_guarded_writes.values():
            yield from self._fetches_for_guarded_writes(module, steps, loop)
        yield from self._eager(module, steps)

    def _eager(self, module: ModuleAnalysis, steps: StepAnalysis) -> Iterator[Finding]:
        """TF 2: histograms, images or a writer flush on every step of a custom loop, and a Keras
        ``TensorBoard`` callback that logs every batch and writes histograms."""
        yield from every_step_writes(self, module, steps, SUMMARY_WRITE, "writes summaries", TF2_ADVICE,
                                     _places)
        yield from frequent_callbacks(
            self, module, TENSORBOARD_CALLBACK,
            "writes every logged metric every few batches besides histograms of every weight (Keras warns that "
            "writing this often slows training)",
            "use `update_freq=\"epoch\"` or a step count such as `update_freq=100`")

    def _fetches_for_guarded_writes(self, module: ModuleAnalysis, steps: StepAnalysis, loop) -> Iterator[Finding]:
        """A summary fetched on every step whose value is written only under a guard is computed for nothing.

        The fetch may be a helper's: ``_, loss, summary = model.train(sess, batch)`` where ``train`` returns
        what its ``sess.run([self.update, self.loss, self.train_summary])`` fetched.
        """
        for run in steps.direct_runs(loop):
            if steps.every_step_loop(run) is not loop:
                continue
            summaries = [f for f in fetched(module, run) if is_summary_tensor(module, f)]
            if not summaries:
                summaries = _helper_summary_fetches(module, run)
            if not summaries:
                continue
            names = _names_bound_to(run, summaries)
            writes = [
                w for w in steps.iteration_nodes(loop)
                if isinstance(w, nodes.Call) and is_summary_write(module, w) and _mentions(w.args[:1], names)
                and steps.step_loop(w) is loop
            ]
            if not writes or any(steps.every_step_loop(w) is loop for w in writes):
                continue  # not written here, or written every step (reported at the write)
            write = writes[0]
            guard = steps.guard(write, loop)
            when = f"only when `{guard.as_string()}`" if guard is not None else "only on some steps"
            yield self.finding(
                module, run,
                f"`{describe(run)}` evaluates the summary op `{summaries[0].as_string()}` on every step of "
                f"{steps.loop_text(loop)}, but it is written {when} (line {write.lineno})", f"fetch it in a "
                f"separate `sess.run` under that guard ({DEFAULTS})",
                with_lines((), module, [write], run.lineno),  # the write the message names (issue 44)
            )


def _helper_summary_fetches(module: ModuleAnalysis, call: nodes.Call) -> List[nodes.NodeNG]:
    """The summary ops fetched by the graph run of the helper ``call`` calls, when it returns what it fetched."""
    event = module.run_event(call)
    function = module.called_function(call) if event is not None and event.chain else None
    summary = module.summary(function) if function is not None else None
    if summary is None or summary.run is None or len(summary.run.chain) != 1:
        return []  # no run of the helper's own (a run deeper down is not followed)
    run = summary.run.node
    owner = module.project.owner(run) if module.project is not None and run.root() is not module.module else module
    if owner is None or not isinstance(run, nodes.Call) or not _returned(run, function):
        return []
    return [f for f in fetched(owner, run) if is_summary_tensor(owner, f)]


def _returned(run: nodes.Call, function: nodes.NodeNG) -> bool:
    """``return sess.run(...)``, or ``out = sess.run(...)`` and a ``return`` of ``out`` (or of items of it)."""
    statement = run.statement()
    if isinstance(statement, nodes.Return):
        return True
    if not (isinstance(statement, nodes.Assign) and statement.value is run):
        return False
    bound = {n.name for target in statement.targets for n in target.nodes_of_class(nodes.AssignName)}
    return any(
        isinstance(node, nodes.Return) and node.value is not None and _mentions([node.value], bound)
        for node in function.nodes_of_class(nodes.Return)
    )


def _places(module: ModuleAnalysis, reached) -> str:
    """Every line a called helper writes summaries on, in every branch it may take (issue 40, class 3)."""
    return ", ".join(dict.fromkeys(_place(module, effect) for effect in reached))


def _place(module: ModuleAnalysis, effect) -> str:
    where = effect.owner.path
    return f"line {effect.site.lineno}" if where == module.path else f"{where}:{effect.site.lineno}"


def _names_bound_to(run: nodes.Call, summaries: List[nodes.NodeNG]) -> Set[str]:
    """Return the names the run's statement binds to the summary fetches (all it binds when unsure)."""
    statement = run.statement()
    if not isinstance(statement, nodes.Assign) or statement.value is not run or len(statement.targets) != 1:
        return set()
    target = statement.targets[0]
    fetches: Optional[nodes.NodeNG] = run.args[0] if run.args else None
    if (
        isinstance(target, (nodes.Tuple, nodes.List))
        and isinstance(fetches, (nodes.List, nodes.Tuple))
        and len(target.elts) == len(fetches.elts)
    ):
        wanted = {id(s) for s in summaries}
        return {
            name.name
            for element, item in zip(target.elts, fetches.elts) if id(item) in wanted
            for name in element.nodes_of_class(nodes.AssignName)
        }
    return {name.name for name in target.nodes_of_class(nodes.AssignName)}


def _mentions(exprs, names: Set[str]) -> bool:
    return any(
        isinstance(node, nodes.Name) and node.name in names
        for expr in exprs for node in (expr, *expr.nodes_of_class(nodes.Name))
    )
