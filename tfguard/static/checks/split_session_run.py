"""TFG203: several ``sess.run`` calls on every step that could be one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Set

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.dataflow import INSTANCE, SESSION, TF
from tfguard.static.analysis.frequency import StepAnalysis, frequency
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.analysis.scopes import position
from tfguard.static.analysis.step_effects import GRAPH_RUN, StepEffect, direct_kind, step_effects
from tfguard.static.analysis.steps import feed, fetched, is_session_run
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding

#: Ops that change state which a later run may read: running them first is the point.
STATE_CHANGING_APIS = frozenset({
    "tensorflow.assign", "tensorflow.assign_add", "tensorflow.assign_sub", "tensorflow.scatter_update",
    "tensorflow.scatter_add", "tensorflow.scatter_sub", "tensorflow.scatter_nd_update",
    "tensorflow.global_variables_initializer", "tensorflow.local_variables_initializer",
    "tensorflow.variables_initializer", "tensorflow.tables_initializer", "tensorflow.group",
})
STATE_CHANGING_METHODS = frozenset({
    "assign", "assign_add", "assign_sub", "scatter_update", "scatter_add", "scatter_sub", "scatter_nd_update",
    "initializer", "make_initializer",
})
#: Methods of queues, readers and iterators whose result depends on what ran before: a ``dequeue``, then
#: ``q.size()``, then an ``enqueue`` in separate runs happen in that order; in one run the order is undefined.
STATEFUL_METHODS = frozenset({
    "enqueue", "enqueue_many", "dequeue", "dequeue_many", "dequeue_up_to", "size", "close", "read",
    "read_up_to", "num_records_produced", "num_work_units_completed", "get_next", "restore_state",
})
STATEFUL_APIS = frozenset({
    "tensorflow.train.batch", "tensorflow.train.shuffle_batch", "tensorflow.train.batch_join",
    "tensorflow.train.shuffle_batch_join", "tensorflow.train.maybe_batch", "tensorflow.train.maybe_shuffle_batch",
})
#: Fetches that only read a variable (no forward pass behind them).
VARIABLE_APIS = frozenset({
    "tensorflow.Variable", "tensorflow.get_variable", "tensorflow.train.get_global_step",
    "tensorflow.train.get_or_create_global_step", "tensorflow.train.create_global_step",
    "tensorflow.contrib.framework.get_or_create_global_step", "tensorflow.contrib.framework.get_global_step",
})


@dataclass(frozen=True)
class _Run:
    """A call in a step loop that runs the graph: itself (``sess.run``) or through a helper (``sites`` chains)."""

    node: nodes.Call
    sites: tuple  # of StepEffect

    @property
    def through_helper(self) -> bool:
        return any(site.chain for site in self.sites)


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
        _UPDATES.clear()  # per-run memos, keyed by node identity: valid for this module only
        _READS.clear()
        by_loop: Dict[tuple, List[_Run]] = {}
        every_run = list(_runs(module))  # guarded ones too: an update under an ``if`` still changes variables
        for run in every_run:
            loop = steps.step_loop(run.node)
            if loop is None or steps.guard(run.node, loop) is not None:
                continue
            # Runs after the same ``continue`` (``if batch is None: continue``) run on the same iterations:
            # they are compared with each other, never with a run the ``continue`` does not skip.
            skipped_by = steps.skipping_continues(run.node, loop)
            by_loop.setdefault((id(loop), skipped_by), []).append(run)
        reported: Set[int] = set()
        for finding in self._loop_findings(module, steps, by_loop, every_run):
            reported.add(finding.line)
            yield finding
        yield from self._helper_findings(module, steps, by_loop, reported)

    def _loop_findings(self, module: ModuleAnalysis, steps: StepAnalysis, by_loop,
                       every_run: List[_Run]) -> Iterable[Finding]:
        for runs in by_loop.values():
            runs.sort(key=lambda r: position(r.node))
            loop = steps.step_loop(runs[0].node)
            for index, later in enumerate(runs[1:], start=1):
                earlier = [
                    run for run in runs[:index]
                    if _mergeable(module, run, later) and not _reread_across_an_update(every_run, run, later)
                    and not ((_changes_state(run) or _changes_state(later)) and _run_between(every_run, run, later))
                ]
                if not earlier or _feeds_on(steps, loop, earlier, later.node):
                    continue
                first = earlier[0]
                cost = (
                    "each extra call is another round trip through the runtime"
                    if _only_reads_variables(later) or _copy_sources(later) is not None
                    else "each extra call re-executes the graph parts they share (input pipeline, forward pass)"
                )
                what = f"`{describe(later.node)}` is another graph run"
                if later.through_helper:
                    site = later.sites[0]
                    what = f"`{describe(later.node)}` runs the graph (`{describe(site.site)}`, line {site.site.lineno})"
                yield self.finding(
                    module, later.node,
                    f"{what} on every step of {steps.loop_text(loop)} after `{describe(first.node)}` at line "
                    f"{first.node.lineno}; fetch everything in one `sess.run([...])`: {cost}",
                    later.sites[0].chain,
                )

    def _helper_findings(self, module: ModuleAnalysis, steps: StepAnalysis, by_loop, reported) -> Iterable[Finding]:
        """A call in a step loop whose helper runs the graph several times on every call, in runs that could be
        one: ``agent.train()`` running ``self.actor.update_target()`` then ``self.critic.update_target()``."""
        for runs in by_loop.values():
            for run in runs:
                if not run.through_helper or run.node.lineno in reported:
                    continue
                pair = _mergeable_pair_in_helper(run)
                if pair is None:
                    continue
                first, later = pair
                loop = steps.step_loop(run.node)
                shared = _shared_feed(first)
                fed = ("neither fed nor reading" if shared is None
                       else f"both fed the same `{shared.name}`, neither reading")
                cost = ("each extra call is another round trip through the runtime" if shared is None
                        else "each extra call re-executes the graph parts they share (the forward pass)")
                yield self.finding(
                    module, run.node,
                    f"`{describe(run.node)}` runs the graph more than once on every call, on every step of "
                    f"{steps.loop_text(loop)}: {_site_text(module, later)} after {_site_text(module, first)}, "
                    f"{fed} the other's result; fetch both in one `sess.run([...])` (return the "
                    f"ops from the helpers): {cost}",
                    later.chain,
                )


def _mergeable_pair_in_helper(run: _Run):
    """Two graph runs a helper makes on every call that could be one: fetches held by attributes or
    module-level names (built before, not computed from the other's result), no feed or the same local
    feed dict in both (``feed_dict = {...}`` then ``sess.run(self.minimize, feed_dict=feed_dict)`` and
    ``loss = sess.run(self.loss, feed_dict=feed_dict)``), neither an assignment, an initializer nor (both)
    optimizer updates, and no variable read after an update. Returns (first, later) or None."""
    sites = [site for site in run.sites if is_session_run(site.owner, site.site)]
    candidates = [site for site in sites if _fixed_fetches(site)]
    for index, later in enumerate(candidates[1:], start=1):
        for first in candidates[:index]:
            if first.site is later.site or _shared_feed(first) is not _shared_feed(later):
                continue
            one, two = _Run(run.node, (first,)), _Run(run.node, (later,))
            if _changes_state(one) or _changes_state(two) or (_runs_an_update(one) and _runs_an_update(two)):
                continue
            if _runs_an_update(one) and _reads_a_variable(two):
                continue  # the value after the update (in one run, before or after it: undefined)
            if _shared_feed(first) is not None and not _same_frame_in_order(first, later):
                continue
            return first, later
    return None


def _shared_feed(site: StepEffect) -> Optional[nodes.NodeNG]:
    """The binding of a run's feed when it is a local name bound once in the run's function (the dict
    both runs of ``update()`` pass); None for a run with no feed."""
    given = feed(site.owner, site.site)
    if given is None:
        return None
    if not isinstance(given, nodes.Name):
        return given  # a dict literal per run: never the same node as another run's
    bindings = site.owner.dataflow.definitions(given, given.name)
    if len(bindings) != 1 or bindings[0].scope() is not site.site.scope():
        return given
    return bindings[0]


def _same_frame_in_order(first: StepEffect, later: StepEffect) -> bool:
    """Both runs in one function body, outside loops and branches of it, the first one first."""
    frame = first.site.scope()
    if later.site.scope() is not frame or position(first.site) >= position(later.site):
        return False
    for site in (first.site, later.site):
        statement = site.statement()
        if statement.parent is not frame:
            return False
    return True


def _fixed_fetches(site: StepEffect) -> bool:
    """A run whose fetches are ``self.x`` attributes or module-level names (lists of them too), with no
    feed or a local feed dict, and no other keyword than ``feed_dict``."""
    if any(keyword.arg != "feed_dict" for keyword in site.site.keywords or ()):
        return False
    if feed(site.owner, site.site) is not None and not isinstance(_shared_feed(site), nodes.AssignName):
        return False
    exprs = fetched(site.owner, site.site)
    if not exprs:
        return False
    for expr in exprs:
        if isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Name) and expr.expr.name == "self":
            continue
        if isinstance(expr, nodes.Name):
            bindings = site.owner.dataflow.definitions(expr, expr.name)
            if bindings and all(isinstance(b.scope(), nodes.Module) for b in bindings):
                continue
        return False
    return True


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


def _runs(module: ModuleAnalysis) -> Iterable[_Run]:
    """Yield the calls inside loops that run the graph: directly, or every time through a helper."""
    effects = step_effects(module)
    for call in module.nodes_of(nodes.Call):
        if next(module.enclosing_loops(call), None) is None:
            continue
        if direct_kind(module, call) == GRAPH_RUN:
            yield _Run(call, (StepEffect(GRAPH_RUN, call, module),))
            continue
        reached = effects.through_helpers(call, GRAPH_RUN)
        if reached:
            yield _Run(call, tuple(reached))


def _mergeable(module: ModuleAnalysis, earlier: _Run, later: _Run) -> bool:
    if _exclusive(earlier.node, later.node):
        return False
    if _runs_an_update(later) and _runs_an_update(earlier):
        return False
    if (_changes_state(earlier) or _changes_state(later)) and not _disjoint_copies(module, earlier, later):
        return False
    if _uses_queue_state(earlier) or _uses_queue_state(later):
        return False
    if _reads_a_variable(earlier) and _runs_an_update(later):
        return False  # ``gs = global_step.eval()`` before ``sess.run(train_op)``: the value before the increment
    if _runs_an_update(earlier) and _reads_a_variable(later) and not _reads_a_variable(earlier):
        return False  # the value after the increment (in one run, before or after it: undefined)
    if _on_other_sessions(module, earlier, later):
        return False
    return not _feeds_conflict(module, earlier, later)


def _run_between(runs: List[_Run], earlier: _Run, later: _Run) -> bool:
    """Whether another graph run comes between two runs (merging would move ``later`` before it)."""
    start, end = position(earlier.node), position(later.node)
    return any(start < position(run.node) < end for run in runs)


def _disjoint_copies(module: ModuleAnalysis, earlier: _Run, later: _Run) -> bool:
    """Two runs that only copy variables (target-network updates) on sets that share nothing: one run.

    ``sess.run(update_actor_target)`` then ``sess.run(update_critic_target)``, each a list of
    ``t.assign(...)`` built by a comprehension over its own variable lists (no name in common), or
    ``actor.update_target()`` then ``critic.update_target()`` running such lists kept on instances of two
    different classes. Neither reads what the other writes, so the order is no part of the result.
    Anything else that changes state keeps its own run.
    """
    first, second = _copy_sources(earlier), _copy_sources(later)
    if first is None or second is None:
        return False
    (first_class, first_names), (second_class, second_names) = first, second
    if first_class is not None and second_class is not None:
        return first_class is not second_class or _other_instances(module, earlier.node, later.node)
    return first_class is second_class and not first_names & second_names


def _other_instances(module: ModuleAnalysis, first: nodes.Call, second: nodes.Call) -> bool:
    """``actor.update_target()`` and ``critic.update_target()``: one method on two objects, each a name
    bound once to its own constructor call (their ``self`` lists are their own)."""
    receivers = []
    for call in (first, second):
        func = call.func
        if not (isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name)):
            return False
        bindings = module.dataflow.definitions(func.expr, func.expr.name)
        if len(bindings) != 1 or not isinstance(bindings[0].parent, nodes.Assign) or \
                not isinstance(bindings[0].parent.value, nodes.Call):
            return False
        receivers.append(bindings[0])
    return receivers[0] is not receivers[1]


def _copy_sources(run: _Run):
    """(owning class or None, names the copies read and write) when every fetch of the run is a copy list."""
    owner = None
    names: Set[str] = set()
    if len(run.sites) != 1:
        return None
    site = run.sites[0]
    exprs = fetched(site.owner, site.site)
    if not exprs:
        return None
    for expr in exprs:
        definition = _assigned_value(site.owner, expr) if isinstance(expr, nodes.Name) else _attribute_value(expr)
        if not isinstance(definition, nodes.ListComp) or not _is_assign_call(definition.elt):
            return None
        targets = {n.name for g in definition.generators for n in g.target.nodes_of_class(nodes.AssignName)}
        # the variable lists: what the generators iterate, and lists indexed in the copy (``params[i]``)
        roots = [g.iter for g in definition.generators]
        roots += [sub.value for sub in definition.elt.nodes_of_class(nodes.Subscript)]
        for node in (n for root in roots for n in root.nodes_of_class((nodes.Name, nodes.Attribute))):
            if isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name) and node.expr.name == "self":
                names.add(node.as_string())  # ``self.target_params``
            elif isinstance(node, nodes.Name) and node.name not in targets and node.name not in _NOT_VARIABLES:
                names.add(node.name)
        if isinstance(expr, nodes.Attribute):
            frame = expr.frame()
            cls = frame.parent if isinstance(frame.parent, nodes.ClassDef) else None
            if cls is None or (owner is not None and owner is not cls):
                return None
            owner = cls
    return owner, names


#: Names in a copy comprehension that name no variable list: builtins and the TensorFlow module.
_NOT_VARIABLES = frozenset({"zip", "range", "len", "enumerate", "tf", "tensorflow", "self"})


def _attribute_value(expr: nodes.NodeNG) -> Optional[nodes.NodeNG]:
    """What ``self.x`` was bound to, when the class binds it once (``self.update = [...]`` in ``__init__``)."""
    if not (isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Name) and expr.expr.name == "self"):
        return None
    frame = expr.frame()
    cls = frame.parent if isinstance(frame.parent, nodes.ClassDef) else None
    if cls is None:
        return None
    bound = [target for method in cls.mymethods() for target in method.nodes_of_class(nodes.AssignAttr)
             if target.attrname == expr.attrname and isinstance(target.expr, nodes.Name) and target.expr.name == "self"]
    if len(bound) != 1 or not isinstance(bound[0].parent, nodes.Assign):
        return None
    return bound[0].parent.value


def _is_assign_call(expr: nodes.NodeNG) -> bool:
    """``t.assign(...)`` or ``tf.assign(t, ...)`` (``assign_add``/``assign_sub`` too)."""
    if not isinstance(expr, nodes.Call) or not isinstance(expr.func, nodes.Attribute):
        return False
    return expr.func.attrname in ("assign", "assign_add", "assign_sub")


def _reread_across_an_update(runs: List[_Run], earlier: _Run, later: _Run) -> bool:
    """Two reads of variables with an optimizer update between them read two different values."""
    if not (_reads_a_variable(earlier) and _reads_a_variable(later)):
        return False
    start, end = position(earlier.node), position(later.node)
    return any(start < position(run.node) < end and _runs_an_update(run) for run in runs)


def _fetched_items(site: StepEffect) -> List[nodes.NodeNG]:
    return [item for expr in fetched(site.owner, site.site) for item in _elements(site.owner, expr)]


def _uses_queue_state(run: _Run) -> bool:
    """Return whether a run fetches a queue, reader or iterator op (``q.dequeue()``, ``q.size()``, ``reader.read``)."""
    for site in run.sites:
        for api in _site_fetches(site):
            if api is not None and (api in STATEFUL_APIS or api.rsplit(".", 1)[-1] in STATEFUL_METHODS):
                return True
        for item in _fetched_items(site):
            item = _assigned_value(site.owner, item)
            func = item.func if isinstance(item, nodes.Call) else None
            if isinstance(func, nodes.Attribute) and func.attrname in STATEFUL_METHODS:
                return True
    return False


def _assigned_value(module: ModuleAnalysis, expr: nodes.NodeNG) -> nodes.NodeNG:
    """What a name bound once holds (``queued = q.size()`` for ``queued``); the expression itself otherwise.

    ``self.x`` bound once in its class (``self.global_step = global_step``) holds what was bound to it.
    """
    if isinstance(expr, nodes.Attribute):
        bound = _attribute_value(expr)
        if bound is None:
            return expr
        expr = bound
    if isinstance(expr, nodes.Name):
        definitions = module.dataflow.definitions(expr, expr.name)
        if len(definitions) == 1 and isinstance(definitions[0].parent, nodes.Assign):
            return definitions[0].parent.value
    return expr


def _reads_a_variable(run: _Run) -> bool:
    """Return whether a run fetches a variable's value (``global_step.eval()``, ``tf.train.global_step(sess, gs)``)."""
    key = _memo_key(run)
    if key not in _READS:
        _READS[key] = _computes_a_read(run)
    return _READS[key]


def _computes_a_read(run: _Run) -> bool:
    for site in run.sites:
        if site.owner.call_named(site.site, tfapi.GRAPH_RUN_FUNCTIONS):
            return True
        for item in _fetched_items(site):
            if _is_variable(site.owner, item):
                return True
    return False


def _is_variable(module: ModuleAnalysis, expr: nodes.NodeNG) -> bool:
    """``global_step`` bound once to ``tf.train.get_or_create_global_step()`` (not ``w * x``, computed from one).

    ``model.global_step``, an attribute of an instance of a project class whose ``__init__`` binds it to a
    ``tf.Variable``, is one too (the dataflow knows what the attribute holds).
    """
    value = module.value(expr) if isinstance(expr, nodes.Attribute) else None
    if value is not None and value.api in VARIABLE_APIS:
        return True
    expr = _assigned_value(module, expr)
    return isinstance(expr, nodes.Call) and module.call_named(expr, VARIABLE_APIS) is not None


def _on_other_sessions(module: ModuleAnalysis, earlier: _Run, later: _Run) -> bool:
    """Return whether two direct runs name different sessions (an ensemble: one session per model's graph)."""
    if earlier.through_helper or later.through_helper:
        return False
    first, second = _session_text(module, earlier.node), _session_text(module, later.node)
    return bool(first) and bool(second) and first != second  # the default session ("") may be either


def _session_text(module: ModuleAnalysis, call: nodes.Call) -> Optional[str]:
    """The session a direct run uses, as written (``sess_a``, ``self.sess``); ``""`` for the default session."""
    if not is_session_run(module, call):
        return None
    for keyword in call.keywords or ():
        if keyword.arg == "session":
            return keyword.value.as_string()
    receiver = module.value(call.func.expr)
    if call.func.attrname == "run" and (receiver is None or receiver.kind == SESSION):
        return call.func.expr.as_string()
    return ""


def _site_fetches(site: StepEffect) -> List[Optional[str]]:
    """The producing APIs of a run site's fetches (None where unknown)."""
    exprs = [item for expr in fetched(site.owner, site.site) for item in _elements(site.owner, expr)]
    values = [site.owner.value(expr) for expr in exprs]
    return [value.api if value is not None else None for value in values]


def _elements(module: ModuleAnalysis, expr: nodes.NodeNG) -> List[nodes.NodeNG]:
    """A fetch, or the items of a list of fetches built by a comprehension or a literal.

    ``clip = [p.assign(tf.clip_by_value(p, -c, c)) for p in params]`` fetched as ``sess.run(clip)`` is a
    list of assignments (WGAN's weight clipping).
    """
    value = expr
    if isinstance(expr, nodes.Name):
        definitions = module.dataflow.definitions(expr, expr.name)
        if len(definitions) == 1 and isinstance(definitions[0].parent, nodes.Assign):
            value = definitions[0].parent.value
    elif isinstance(expr, nodes.Attribute):
        value = _attribute_value(expr) or expr  # ``self.update = [t.assign(e) ...]`` bound once in the class
    if isinstance(value, nodes.BinOp) and value.op == "+" and value is expr:
        # ``[self.d_trainer] + log_vars``: the items of both lists
        return [item for side in (value.left, value.right)
                for item in (side.elts if isinstance(side, (nodes.List, nodes.Tuple)) else _elements(module, side))]
    if isinstance(value, nodes.ListComp):
        return [value.elt]
    if isinstance(value, (nodes.List, nodes.Tuple)) and value is not expr:
        return list(value.elts)
    return [expr]


_UPDATES: Dict[int, bool] = {}
_READS: Dict[int, bool] = {}


def _memo_key(run: _Run) -> tuple:
    """The per-run memos' key: the call and the sites it reaches (a helper's runs share the call)."""
    return (id(run.node),) + tuple(id(site.site) for site in run.sites)


def _runs_an_update(run: _Run) -> bool:
    key = _memo_key(run)
    if key not in _UPDATES:
        _UPDATES[key] = _computes_an_update(run)
    return _UPDATES[key]


def _computes_an_update(run: _Run) -> bool:
    """Return whether a run fetches an optimizer update (``opt.minimize()`` / ``apply_gradients()``).

    Two updates in a row (a GAN's discriminator, then its generator) must run one after
    the other: merged into one ``sess.run`` they would both see the old weights.
    """
    if any(
        api is not None and api.endswith((".minimize", ".apply_gradients"))
        for site in run.sites for api in _site_fetches(site)
    ):
        return True
    return any(
        _library_update(site.owner, item)
        for site in run.sites for expr in fetched(site.owner, site.site) for item in _elements(site.owner, expr)
    )


def _library_update(module: ModuleAnalysis, expr: nodes.NodeNG) -> bool:
    """A library wrapper's update: a call outside TensorFlow and the project handed a TF optimizer
    (``pt.apply_optimizer(opt, losses=[d_loss])``, issue 32 item 11) returns the op the optimizer makes.

    Known by what it is given, not by its name; a project function is read instead (its ``return``).
    """
    value = _bound_value(module, expr)
    if not isinstance(value, nodes.Call) or module.called_function(value) is not None:
        return False
    callee = module.value(value.func)
    if callee is not None and callee.kind == TF:
        return False
    if callee is not None and callee.api and tfapi.is_tf_name(callee.api):
        return False
    arguments = [*value.args, *(k.value for k in value.keywords or ())]
    return any(_is_optimizer(module, argument) for argument in arguments)


def _bound_value(module: ModuleAnalysis, expr: nodes.NodeNG) -> nodes.NodeNG:
    """What a name bound once, or ``self.attr`` assigned once in its class (besides ``None``), holds; the
    expression otherwise."""
    if isinstance(expr, nodes.Name):
        return _assigned_value(module, expr)
    if isinstance(expr, nodes.Attribute):
        owner = module.value(expr.expr)
        if owner is not None and owner.kind == INSTANCE and isinstance(owner.node, nodes.ClassDef):
            targets = module.dataflow.instance_attributes(owner.node).get(expr.attrname, [])
            values = [t.parent.value for t in targets if isinstance(t.parent, nodes.Assign)]
            if len(values) != len(targets):
                return expr
            # ``self.trainer = None`` in ``__init__``, set for real later: the one real value
            real = [v for v in values if not (isinstance(v, nodes.Const) and v.value is None)]
            if len(real) == 1:
                return real[0]
    return expr


def _is_optimizer(module: ModuleAnalysis, expr: nodes.NodeNG) -> bool:
    known = module.value(expr)
    return known is not None and known.kind == TF and bool(known.api) and known.api.rsplit(".", 1)[-1].endswith(
        "Optimizer")


def _changes_state(run: _Run) -> bool:
    """Return whether a run fetches an assignment or an initializer (``sess.run(assign_lr)``).

    The other run may read that state, so the order matters: in one ``sess.run`` the write and the
    read would race (``sess.run([train_op, assign_lr])`` may train with either rate).
    """
    for site in run.sites:
        for api in _site_fetches(site):
            if api is None:
                continue
            if api in STATE_CHANGING_APIS or api.rsplit(".", 1)[-1] in STATE_CHANGING_METHODS:
                return True
        for expr in fetched(site.owner, site.site):
            for item in _elements(site.owner, expr):  # ``p.assign(...)`` on a receiver of unknown kind
                func = item.func if isinstance(item, nodes.Call) else None
                if isinstance(func, nodes.Attribute) and func.attrname in STATE_CHANGING_METHODS:
                    return True
    return False


def _only_reads_variables(run: _Run) -> bool:
    """Return whether every site of the run reads variables only (``tf.train.global_step(sess, gs)``)."""
    for site in run.sites:
        if site.owner.call_named(site.site, tfapi.GRAPH_RUN_FUNCTIONS):
            continue
        apis = _site_fetches(site)
        if not apis or not all(api in VARIABLE_APIS for api in apis):
            return False
    return True


def _feeds_conflict(module: ModuleAnalysis, earlier: _Run, later: _Run) -> bool:
    """Return whether the two runs may feed different values into the same placeholders.

    ``sess.run(train, {x: train_batch})`` then ``sess.run(loss, {x: test_batch})`` cannot be one run.
    Literal feed dicts conflict when a key is fed two different expressions; other feeds when their
    text differs, and feeds inside helpers always (they cannot be compared).
    """
    first = _the_feed(earlier)
    second = _the_feed(later)
    if first is None or second is None:
        return False
    if first is _OPAQUE or second is _OPAQUE:
        return True
    if isinstance(first, nodes.Dict) and isinstance(second, nodes.Dict):
        fed = {key.as_string(): value.as_string() for key, value in first.items}
        return any(fed.get(key.as_string(), value.as_string()) != value.as_string() for key, value in second.items)
    return first.as_string() != second.as_string()


_OPAQUE = object()


def _the_feed(run: _Run):
    """The feed expression of a direct run, None without one, or ``_OPAQUE`` for a run in a helper with a feed."""
    feeds = [
        feed(site.owner, site.site) for site in run.sites if is_session_run(site.owner, site.site)
    ]
    feeds = [f for f in feeds if f is not None]
    if not feeds:
        return None
    return _OPAQUE if run.through_helper else feeds[0]


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


def _feeds_on(steps: StepAnalysis, loop, earlier: List[_Run], later: nodes.Call) -> bool:
    """Return whether ``later``'s fetches or feeds use a value an earlier run returned (directly or derived).

    ``v = sess.run(w)`` then ``sess.run(loss, {x: v})`` or ``sess.run(tf_ops[v])`` needs the first result.
    """
    arguments = [*later.args, *(k.value for k in later.keywords or ())]
    if not arguments:
        return False
    tainted: Set[str] = set()
    for run in earlier:
        statement = run.node.statement()
        if isinstance(statement, (nodes.Assign, nodes.AugAssign)):
            targets = statement.targets if isinstance(statement, nodes.Assign) else [statement.target]
            for target in targets:
                tainted.update(n.name for n in target.nodes_of_class(nodes.AssignName))
    start, end = min(position(r.node) for r in earlier), position(later)
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
    return any(_mentions(argument, tainted) for argument in arguments)


def _mentions(expr: nodes.NodeNG, names: Set[str]) -> bool:
    return any(n.name in names for n in (expr, *expr.nodes_of_class(nodes.Name)) if isinstance(n, nodes.Name))
