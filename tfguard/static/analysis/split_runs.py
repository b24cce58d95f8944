"""Whether two graph runs of one step could be one ``sess.run``: what TFG203 reports.

Two runs cannot be merged when they sit in different branches, feed different values into one
placeholder, use different sessions, the later one feeds on the earlier one's result, both run
optimizer updates, one changes state the other may read, or a variable is read on both sides of an
update. A helper's own runs (``agent.train()`` running two updates of target networks) are paired here too.
"""

from __future__ import annotations

from typing import List, Optional, Set

from astroid import nodes

from tfguard.static.analysis.dataflow import SESSION
from tfguard.static.analysis.frequency import StepAnalysis
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.run_fetches import (
    GraphRun,
    changes_state,
    copy_sources,
    reads_a_variable,
    runs_an_update,
    uses_queue_state,
)
from tfguard.static.analysis.scopes import is_ancestor, position
from tfguard.static.analysis.step_effects import StepEffect
from tfguard.static.analysis.steps import feed, fetched, is_session_run


def mergeable(module: ModuleAnalysis, earlier: GraphRun, later: GraphRun) -> bool:
    if _exclusive(earlier.node, later.node):
        return False
    if runs_an_update(later) and runs_an_update(earlier):
        return False
    if (changes_state(earlier) or changes_state(later)) and not _disjoint_copies(module, earlier, later):
        return False
    if uses_queue_state(earlier) or uses_queue_state(later):
        return False
    if reads_a_variable(earlier) and runs_an_update(later):
        return False  # ``gs = global_step.eval()`` before ``sess.run(train_op)``: the value before the increment
    if runs_an_update(earlier) and reads_a_variable(later) and not reads_a_variable(earlier):
        return False  # the value after the increment (in one run, before or after it: undefined)
    if _on_other_sessions(module, earlier, later):
        return False
    return not _feeds_conflict(module, earlier, later)


def run_between(runs: List[GraphRun], earlier: GraphRun, later: GraphRun) -> bool:
    """Whether another graph run comes between two runs (merging would move ``later`` before it)."""
    start, end = position(earlier.node), position(later.node)
    return any(start < position(run.node) < end for run in runs)


def _disjoint_copies(module: ModuleAnalysis, earlier: GraphRun, later: GraphRun) -> bool:
    """Two runs that only copy variables (target-network updates) on sets that share nothing: one run.

    ``sess.run(update_actor_target)`` then ``sess.run(update_critic_target)``, each a list of
    ``t.assign(...)`` built by a comprehension over its own variable lists (no name in common), or
    ``actor.update_target()`` then ``critic.update_target()`` running such lists kept on instances of two
    different classes. Neither reads what the other writes, so the order is no part of the result.
    Anything else that changes state keeps its own run.
    """
    first, second = copy_sources(earlier), copy_sources(later)
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


def reread_across_an_update(runs: List[GraphRun], earlier: GraphRun, later: GraphRun) -> bool:
    """Two reads of variables with an optimizer update, an assignment or an initializer between them read two
    different values (``sess.run(increment)`` between two reads of ``global_step``).

    A run happens when its call ends: ``train_step(sess, sess.run(global_step))`` reads before it trains.
    """
    if not (reads_a_variable(earlier) and reads_a_variable(later)):
        return False
    start, end = happens_at(earlier.node), happens_at(later.node)
    return any(start < happens_at(run.node) < end and (runs_an_update(run) or changes_state(run)) for run in runs)


def happens_at(call: nodes.Call) -> tuple:
    """When a call's effect happens, for ordering: at its end, after its arguments were evaluated."""
    return (call.end_lineno or call.lineno or 0, call.end_col_offset or 0)


def runs_inside(call: nodes.Call, runs: List[GraphRun]) -> bool:
    """Whether another graph run sits in ``call``'s arguments (``sess.run(loss, {lr: sess.run(step)})``)."""
    return any(run.node is not call and is_ancestor(call, run.node) for run in runs)


def _on_other_sessions(module: ModuleAnalysis, earlier: GraphRun, later: GraphRun) -> bool:
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


def _feeds_conflict(module: ModuleAnalysis, earlier: GraphRun, later: GraphRun) -> bool:
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
        fed = {key.as_string(): value for key, value in first.items}
        for key, value in second.items:
            other = fed.get(key.as_string())
            if other is None:
                continue
            if other.as_string() != value.as_string() or _fresh_per_run(module, value):
                return True
            if _rebound_between(value, earlier.node, later.node):
                return True
        return False
    return first.as_string() != second.as_string() or _rebound_between(second, earlier.node, later.node)


def _rebound_between(value: nodes.NodeNG, earlier: nodes.Call, later: nodes.Call) -> bool:
    """Whether a name the fed value reads is bound again between the two runs: ``batch_xs`` fed to the
    training run, then reassigned to a test batch and fed to the evaluation run, is two values."""
    names = {n.name for n in (value, *value.nodes_of_class(nodes.Name)) if isinstance(n, nodes.Name)}
    if not names:
        return False
    start, end = happens_at(earlier), position(later)
    return any(
        binding.name in names and start < position(binding) < end
        for binding in later.scope().nodes_of_class(nodes.AssignName)
    )


def fed_alike(module: ModuleAnalysis, earlier: GraphRun, later: GraphRun) -> bool:
    """Whether two direct runs are both fed, with the same values into the placeholders they share (at least one):
    ``sess.run(loss, valid_feed)`` then ``sess.run(accuracy, valid_feed)``, or ``{x: bx, z: bz}`` then
    ``{z: bz}``. Their forward passes overlap, so the second repeats work the first did."""
    first, second = _the_feed(earlier), _the_feed(later)
    if first is None or second is None or first is _OPAQUE or second is _OPAQUE:
        return False
    if isinstance(first, nodes.Dict) and isinstance(second, nodes.Dict):
        keys = {key.as_string() for key, _ in first.items} & {key.as_string() for key, _ in second.items}
        if not keys:
            return False
    return not _feeds_conflict(module, earlier, later)


def _fresh_per_run(module: ModuleAnalysis, value: nodes.NodeNG) -> bool:
    """A fed value computed anew by each run's call: ``{z: generate_z(batch_size)}`` or
    ``{z: np.random.uniform(...)}`` in two runs feeds two different values, whatever the text."""
    for call in (value, *value.nodes_of_class(nodes.Call)):
        if not isinstance(call, nodes.Call):
            continue
        if module.called_function(call) is not None:
            return True
        name = module.call_qualname(call) or call.func.as_string()
        if "random" in name:
            return True
    return False


_OPAQUE = object()


def _the_feed(run: GraphRun):
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


def feeds_on(steps: StepAnalysis, loop, earlier: List[GraphRun], later: nodes.Call) -> bool:
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


def mergeable_pair_in_helper(run: GraphRun):
    """Two graph runs a helper makes on every call that could be one: fetches held by attributes or
    module-level names (built before, not computed from the other's result), no feed or the same local
    feed dict in both (``feed_dict = {...}`` then ``sess.run(self.minimize, feed_dict=feed_dict)`` and
    ``loss = sess.run(self.loss, feed_dict=feed_dict)``), neither an assignment, an initializer nor (both)
    optimizer updates, and no variable read after an update. Returns (first, later) or None."""
    sites = [site for site in run.sites if is_session_run(site.owner, site.site)]
    candidates = [site for site in sites if _fixed_fetches(site)]
    for index, later in enumerate(candidates[1:], start=1):
        for first in candidates[:index]:
            if first.site is later.site or shared_feed(first) is not shared_feed(later):
                continue
            one, two = GraphRun(run.node, (first,)), GraphRun(run.node, (later,))
            if changes_state(one) or changes_state(two) or (runs_an_update(one) and runs_an_update(two)):
                continue
            if runs_an_update(one) and reads_a_variable(two):
                continue  # the value after the update (in one run, before or after it: undefined)
            if shared_feed(first) is not None and not _same_frame_in_order(first, later):
                continue
            return first, later
    return None


def shared_feed(site: StepEffect) -> Optional[nodes.NodeNG]:
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
    if feed(site.owner, site.site) is not None and not isinstance(shared_feed(site), nodes.AssignName):
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
