"""What one graph run in a step loop fetches, and what that does to the graph's state.

A run is a ``sess.run`` (or ``.eval()``, ``tf.train.global_step``) in a step loop, or a call whose helper
makes one (:class:`GraphRun`). These facts say whether it reads a variable, runs an optimizer update,
changes state (assignments, initializers), uses a queue or iterator, or only copies variables
(target-network updates): what decides whether two runs may become one (:mod:`.split_runs`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Set

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.dataflow import INSTANCE, TF
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.step_effects import StepEffect
from tfguard.static.analysis.steps import fetched


@dataclass(frozen=True)
class GraphRun:
    """A call in a step loop that runs the graph: itself (``sess.run``) or through a helper (``sites`` chains)."""

    node: nodes.Call
    sites: tuple  # of StepEffect

    @property
    def through_helper(self) -> bool:
        return any(site.chain for site in self.sites)


def copy_sources(run: GraphRun):
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
        definition = assigned_value(site.owner, expr) if isinstance(expr, nodes.Name) else attribute_value(expr)
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


def attribute_value(expr: nodes.NodeNG) -> Optional[nodes.NodeNG]:
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


def fetched_items(site: StepEffect) -> List[nodes.NodeNG]:
    return [item for expr in fetched(site.owner, site.site) for item in elements(site.owner, expr)]


def uses_queue_state(run: GraphRun) -> bool:
    """Return whether a run fetches a queue, reader or iterator op (``q.dequeue()``, ``q.size()``, ``reader.read``)."""
    for site in run.sites:
        for api in site_fetches(site):
            if api is not None and (api in tfapi.STATEFUL_APIS or api.rsplit(".", 1)[-1] in tfapi.STATEFUL_METHODS):
                return True
        for item in fetched_items(site):
            item = assigned_value(site.owner, item)
            func = item.func if isinstance(item, nodes.Call) else None
            if isinstance(func, nodes.Attribute) and func.attrname in tfapi.STATEFUL_METHODS:
                return True
    return False


def assigned_value(module: ModuleAnalysis, expr: nodes.NodeNG) -> nodes.NodeNG:
    """What a name bound once holds (``queued = q.size()`` for ``queued``); the expression itself otherwise.

    ``self.x`` bound once in its class (``self.global_step = global_step``) holds what was bound to it.
    """
    if isinstance(expr, nodes.Attribute):
        bound = attribute_value(expr)
        if bound is None:
            return expr
        expr = bound
    if isinstance(expr, nodes.Name):
        binding = name_binding(module, expr)
        if binding is not None:
            return binding
    return expr


def name_binding(module: ModuleAnalysis, name: nodes.Name) -> Optional[nodes.NodeNG]:
    """The value a plain assignment bound to ``name`` for this use, or None when that is not known.

    A name bound once holds its one value. A name bound more than once (``fetches = [model.D_train_op, ...]``
    before one run, ``fetches = [model.G_train_op, ...]`` before the next) holds, at a use, the last binding
    above it when that binding's statement sits in a block the use's statement is in (so it ran right before:
    no branch or other loop in between); otherwise nothing is known.
    """
    definitions = module.dataflow.definitions(name, name.name)
    if len(definitions) == 1:
        binding = definitions[0]
    else:
        binding = module.dataflow.reaching_definition(name)
        if binding is None or binding.scope() is not name.scope() or not _dominates(binding.statement(), name):
            return None
    if isinstance(binding.parent, nodes.Assign):
        return binding.parent.value
    return _unpacked_item(binding)


def _unpacked_item(binding: nodes.NodeNG) -> Optional[nodes.NodeNG]:
    """``a, b = [tf.Variable(p) for p in INIT]``: each name holds the comprehension's item (the same call for
    every position); ``a, b = [tf.Variable(1.0), tf.Variable(2.0)]``: the item at the name's position."""
    unpacking = binding.parent
    assign = unpacking.parent if isinstance(unpacking, (nodes.Tuple, nodes.List)) else None
    if not isinstance(assign, nodes.Assign) or assign.targets != [unpacking]:
        return None
    value = assign.value
    if isinstance(value, nodes.ListComp) and isinstance(value.elt, nodes.Call):
        return value.elt
    if isinstance(value, (nodes.List, nodes.Tuple)) and len(value.elts) == len(unpacking.elts):
        return value.elts[unpacking.elts.index(binding)]
    return None


def _dominates(statement: nodes.NodeNG, use: nodes.NodeNG) -> bool:
    """Whether ``statement`` is in a statement list that holds ``use`` (its own statement or one around it)."""
    block = statement.parent
    node = use
    while node is not None and node is not block:
        if node.parent is block:
            return True
        node = node.parent
    return False


def reads_a_variable(run: GraphRun) -> bool:
    """Return whether a run fetches a variable's value (``global_step.eval()``, ``tf.train.global_step(sess, gs)``)."""
    key = _memo_key(run)
    if key not in _READS:
        _READS[key] = _computes_a_read(run)
    return _READS[key]


def _computes_a_read(run: GraphRun) -> bool:
    for site in run.sites:
        if site.owner.call_named(site.site, tfapi.GRAPH_RUN_FUNCTIONS):
            return True
        for item in fetched_items(site):
            if is_variable(site.owner, item):
                return True
    return False


def is_variable(module: ModuleAnalysis, expr: nodes.NodeNG) -> bool:
    """``global_step`` bound once to ``tf.train.get_or_create_global_step()`` (not ``w * x``, computed from one).

    ``model.global_step``, an attribute of an instance of a project class whose ``__init__`` binds it to a
    ``tf.Variable``, is one too (the dataflow knows what the attribute holds).
    """
    value = module.value(expr) if isinstance(expr, nodes.Attribute) else None
    if value is not None and value.api in tfapi.VARIABLE_APIS:
        return True
    expr = assigned_value(module, expr)
    return isinstance(expr, nodes.Call) and module.call_named(expr, tfapi.VARIABLE_APIS) is not None


def site_fetches(site: StepEffect) -> List[Optional[str]]:
    """The producing APIs of a run site's fetches (None where unknown)."""
    exprs = [item for expr in fetched(site.owner, site.site) for item in elements(site.owner, expr)]
    values = [site.owner.value(expr) for expr in exprs]
    return [value.api if value is not None else None for value in values]


def elements(module: ModuleAnalysis, expr: nodes.NodeNG) -> List[nodes.NodeNG]:
    """A fetch, or the items of a list of fetches built by a comprehension or a literal.

    ``clip = [p.assign(tf.clip_by_value(p, -c, c)) for p in params]`` fetched as ``sess.run(clip)`` is a
    list of assignments (WGAN's weight clipping).
    """
    value = expr
    if isinstance(expr, nodes.Name):
        value = name_binding(module, expr) or expr
    elif isinstance(expr, nodes.Attribute):
        value = attribute_value(expr) or expr  # ``self.update = [t.assign(e) ...]`` bound once in the class
    if isinstance(value, nodes.BinOp) and value.op == "+" and value is expr:
        # ``[self.d_trainer] + log_vars``: the items of both lists
        return [item for side in (value.left, value.right)
                for item in (side.elts if isinstance(side, (nodes.List, nodes.Tuple)) else elements(module, side))]
    if isinstance(value, nodes.ListComp):
        return [value.elt]
    if isinstance(value, (nodes.List, nodes.Tuple)) and value is not expr:
        return list(value.elts)
    return [expr]


_UPDATES: Dict[int, bool] = {}


_READS: Dict[int, bool] = {}


def _memo_key(run: GraphRun) -> tuple:
    """The per-run memos' key: the call and the sites it reaches (a helper's runs share the call)."""
    return (id(run.node),) + tuple(id(site.site) for site in run.sites)


def runs_an_update(run: GraphRun) -> bool:
    key = _memo_key(run)
    if key not in _UPDATES:
        _UPDATES[key] = _computes_an_update(run)
    return _UPDATES[key]


def _computes_an_update(run: GraphRun) -> bool:
    """Return whether a run fetches an optimizer update (``opt.minimize()`` / ``apply_gradients()``).

    Two updates in a row (a GAN's discriminator, then its generator) must run one after
    the other: merged into one ``sess.run`` they would both see the old weights.
    """
    if any(
        api is not None and api.endswith((".minimize", ".apply_gradients"))
        for site in run.sites for api in site_fetches(site)
    ):
        return True
    return any(
        _library_update(site.owner, item)
        for site in run.sites for expr in fetched(site.owner, site.site) for item in elements(site.owner, expr)
    )


def _library_update(module: ModuleAnalysis, expr: nodes.NodeNG) -> bool:
    """An update known by what it is, whatever builds it: an op that applies gradients to a variable set.

    ``opt.minimize(loss, var_list=...)`` / ``apply_gradients`` on any receiver (an optimizer picked from a
    dict, or made by a project or library factory), a TF train-op builder (``optimize_loss``, slim's
    ``create_train_op``), or a call outside TensorFlow and the project handed a TF optimizer or the
    variables to train (``pt.apply_optimizer(opt, losses=[d_loss], var_list=d_vars)``, issue 32 item 11).
    ``model.d_optim`` on an instance of a class picked at run time (``MODELS[args.model](...)``) is an
    update when every class of the module that binds ``self.d_optim`` binds it to one (with no such class
    here, every class of the project modules it imports: ``self.D_train_op = ...`` in ``models/*.py``).
    """
    value = _bound_value(module, expr)
    if isinstance(value, nodes.Attribute) and value is expr and module.value(expr.expr) is None:
        bound = [(module, value) for value in _self_bindings(module, expr.attrname)]
        if not bound:  # the classes live in other modules (``models/dcgan.py``, ``models/wgan.py``)
            bound = [(other, value) for other in module.imported_analyses()
                     for value in _self_bindings(other, expr.attrname)]
        return bool(bound) and all(_is_update_call(owner, other) for owner, other in bound)
    return _is_update_call(module, value)


def _is_update_call(module: ModuleAnalysis, value: nodes.NodeNG) -> bool:
    if not isinstance(value, nodes.Call):
        return False
    if isinstance(value.func, nodes.Attribute) and value.func.attrname in tfapi.UPDATE_METHODS:
        return True
    if module.call_named(value, tfapi.TRAIN_OP_BUILDERS) is not None:
        return True
    if module.called_function(value) is not None:
        return False
    callee = module.value(value.func)
    if callee is not None and (callee.kind == TF or (callee.api and tfapi.is_tf_name(callee.api))):
        return False
    if any(keyword.arg in tfapi.UPDATE_VARIABLE_KEYWORDS for keyword in value.keywords or ()):
        return True
    arguments = [*value.args, *(k.value for k in value.keywords or ())]
    return any(_is_optimizer(module, argument) for argument in arguments)


def _self_bindings(module: ModuleAnalysis, attrname: str) -> List[nodes.NodeNG]:
    """The values the module's classes bind to ``self.<attrname>`` (``None`` placeholders left out)."""
    values = []
    for target in module.nodes_of(nodes.AssignAttr):
        if target.attrname != attrname or not (isinstance(target.expr, nodes.Name) and target.expr.name == "self"):
            continue
        if not isinstance(target.parent, nodes.Assign):
            return []
        if not (isinstance(target.parent.value, nodes.Const) and target.parent.value.value is None):
            values.append(target.parent.value)
    return values


def _bound_value(module: ModuleAnalysis, expr: nodes.NodeNG) -> nodes.NodeNG:
    """What a name bound once, or ``self.attr`` assigned once in its class (besides ``None``), holds; the
    expression otherwise."""
    if isinstance(expr, nodes.Name):
        return assigned_value(module, expr)
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


def changes_state(run: GraphRun) -> bool:
    """Return whether a run fetches an assignment or an initializer (``sess.run(assign_lr)``).

    The other run may read that state, so the order matters: in one ``sess.run`` the write and the
    read would race (``sess.run([train_op, assign_lr])`` may train with either rate).
    """
    for site in run.sites:
        for api in site_fetches(site):
            if api is None:
                continue
            if api in tfapi.STATE_CHANGING_APIS or api.rsplit(".", 1)[-1] in tfapi.STATE_CHANGING_METHODS:
                return True
        for expr in fetched(site.owner, site.site):
            for item in elements(site.owner, expr):  # ``p.assign(...)`` on a receiver of unknown kind
                func = item.func if isinstance(item, nodes.Call) else None
                if isinstance(func, nodes.Attribute) and func.attrname in tfapi.STATE_CHANGING_METHODS:
                    return True
    return False


def only_reads_variables(run: GraphRun) -> bool:
    """Return whether every site of the run reads variables only (``tf.train.global_step(sess, gs)``)."""
    for site in run.sites:
        if site.owner.call_named(site.site, tfapi.GRAPH_RUN_FUNCTIONS):
            continue
        apis = site_fetches(site)
        if not apis or not all(api in tfapi.VARIABLE_APIS for api in apis):
            return False
    return True


def forget_runs() -> None:
    """Clear the per-run memos, keyed by node identity: call before the runs of another module."""
    _UPDATES.clear()
    _READS.clear()
