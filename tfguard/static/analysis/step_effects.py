"""What a training step does through the helpers it calls: summary writes, checkpoint saves and graph runs.

The throughput rules (TFG201–TFG203) ask what runs on every step.  A step loop that calls ``one_step(i)``
does what ``one_step`` does on *every call*: its unconditional ``writer.add_summary``, ``saver.save`` and
``sess.run`` calls, and those of the helpers it calls in turn (nested functions, methods and functions of
other project modules, up to :data:`~tfguard.static.analysis.function_summaries.MAX_CALL_DEPTH` calls deep).

Inside a helper a call is *not* made on every call when it sits under an ``if`` whose condition depends on
anything but module-level names and constants (a parameter such as the step counter, a local, ``self``, a
call), in an ``except`` handler, or after a ``return``/``raise`` taken on some condition.  A helper that runs
a step loop of its own does nothing on every step of its caller (the caller loops over epochs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.eager_steps import eager_kind
from tfguard.static.analysis.frequency import is_warm_up_threshold
from tfguard.static.analysis.function_summaries import MAX_CALL_DEPTH
from tfguard.static.analysis.inference import argument_for
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.scopes import function_label, is_ancestor, own_nodes, position
from tfguard.static.analysis.steps import is_checkpoint_save, is_session_run, is_summary_write
from tfguard.static.finding import ChainLink

#: What a call does, as :attr:`StepEffect.kind`.
SUMMARY_WRITE, CHECKPOINT_SAVE, GRAPH_RUN = "summary write", "checkpoint save", "graph run"


@dataclass(frozen=True)
class StepEffect:
    """A summary write, checkpoint save or graph run that a call leads to, and the helpers in between.

    ``site`` is the ``add_summary``/``save``/``run`` call itself, in the module ``owner`` analyses;
    ``chain`` holds one link per helper entered (empty when the call is the site).
    """

    kind: str
    site: nodes.Call
    owner: ModuleAnalysis = field(compare=False, repr=False)
    chain: Tuple[ChainLink, ...] = ()


def step_effects(module: ModuleAnalysis) -> "StepEffects":
    """Return the module's memoised :class:`StepEffects`."""
    return module.facts("step_effects", StepEffects)


class StepEffects:
    """Answers "what does this call write, save or run each time it runs?" for one module's calls."""

    def __init__(self, module: ModuleAnalysis) -> None:
        self.module = module
        self._functions: Dict[int, Optional[List[StepEffect]]] = {}
        self._calls: Dict[int, List[StepEffect]] = {}
        self._branches: Dict[tuple, list] = {}

    def at(self, call: nodes.NodeNG) -> List[StepEffect]:
        """Return what evaluating ``call`` once writes, saves or runs: itself, or a helper's every-call effects."""
        if not isinstance(call, nodes.Call):
            return []
        key = id(call)
        if key not in self._calls:
            self._calls[key] = self._compute_at(call)
        return self._calls[key]

    def through_helpers(self, call: nodes.NodeNG, kind: str) -> List[StepEffect]:
        """Return the effects of ``kind`` that ``call`` reaches through a helper (never the call itself)."""
        return [effect for effect in self.at(call) if effect.kind == kind and effect.chain]

    def _compute_at(self, call: nodes.Call) -> List[StepEffect]:
        module = self.module
        function = module.called_function(call)
        if function is None:
            kind = direct_kind(module, call)
            return [StepEffect(kind, call, module)] if kind is not None else []
        found = [effect for effect in self.of_function(function) if len(effect.chain) <= MAX_CALL_DEPTH]
        return found + self._branch_effects(call, function)

    def _branch_effects(self, call: nodes.Call, function: nodes.NodeNG) -> List[StepEffect]:
        """The effects in branches on a parameter that this call takes, by the constants it passes.

        ``log(sess, step)`` with ``def log(sess, step, mode="train"): if mode == "eval": ... else:
        writer.add_summary(...)`` writes in the ``else`` on every call: the chain names that write, not
        the other branch's.
        """
        module = self.module
        if module.project is not None and function.root() is not module.module:
            return []  # only helpers of this module: their call sites' constants are read here
        candidates = self._parameter_branch_calls(function)
        if not candidates:
            return []
        summary = module.summary(function)
        if summary is None or summary.loops_over_steps:
            return []
        label = function_label(function)
        found: List[StepEffect] = []
        for node in candidates:
            if not self._taken_by(call, node, function):
                continue
            for effect in self.at(node):
                if len(effect.chain) < MAX_CALL_DEPTH:
                    chain = (ChainLink(module.path, node.lineno, label), *effect.chain)
                    found.append(StepEffect(effect.kind, effect.site, effect.owner, chain))
        return found

    def _parameter_branch_calls(self, function: nodes.NodeNG) -> List[nodes.Call]:
        """The calls of ``function`` that are not made on every call but sit in a branch on a plain parameter."""
        key = ("branches", id(function))
        if key not in self._branches:
            tests = [node for node in own_nodes(function) if isinstance(node, nodes.If) and _names_a_parameter(
                function, node.test)]
            self._branches[key] = [] if not tests else [
                node for node in own_nodes(function)
                if isinstance(node, nodes.Call) and any(is_ancestor(test, node) for test in tests)
                and not self._every_call(node, function)
            ]
        return self._branches[key]

    def _taken_by(self, call: nodes.Call, node: nodes.NodeNG, function: nodes.NodeNG) -> bool:
        """Whether every ``if`` around ``node`` in ``function`` tests a parameter that ``call`` makes take
        ``node``'s branch (and nothing else keeps ``node`` from running on every such call)."""
        child, parent = node, node.parent
        tested = False
        while parent is not None and parent is not function:
            if isinstance(parent, nodes.If) and child is not parent.test:
                truth = _parameter_test(call, function, parent.test)
                if truth is None or truth != (child is not parent.orelse and child in parent.body):
                    return False
                tested = True
            elif isinstance(parent, (nodes.IfExp, nodes.ExceptHandler, nodes.For, nodes.While)):
                return False
            child, parent = parent, parent.parent
        if not tested:
            return False
        here = position(node)
        return not any(spot < here for spot in self._conditional_returns(function))

    def _conditional_returns(self, function: nodes.NodeNG) -> List[tuple]:
        """Positions of the ``return`` statements of ``function`` taken on some condition only."""
        key = ("returns", id(function))
        if key not in self._branches:
            self._branches[key] = [position(node) for node in own_nodes(function)
                                   if isinstance(node, nodes.Return) and _under_condition(node, function)]
        return self._branches[key]

    def of_function(self, function: nodes.NodeNG) -> List[StepEffect]:
        """Return what one call of ``function`` writes, saves or runs every time (chains start inside it).

        Each effect's chain starts with a link at the line in ``function`` that does it or calls the
        helper that does; the caller puts its own hop in front.
        """
        module = self.module
        if module.project is not None and function.root() is not module.module:
            owner = module.project.owner(function)
            return step_effects(owner).of_function(function) if owner is not None else []
        key = id(function)
        if key in self._functions:
            return self._functions[key] or []
        self._functions[key] = None  # recursion: nothing while being computed
        summary = module.summary(function)
        found: List[StepEffect] = []
        if summary is not None and not summary.loops_over_steps:
            label = function_label(function)
            for node in own_nodes(function):
                if not isinstance(node, nodes.Call) or not self._every_call(node, function):
                    continue
                for effect in self.at(node):
                    chain = (ChainLink(module.path, node.lineno, label), *effect.chain)
                    found.append(StepEffect(effect.kind, effect.site, effect.owner, chain))
        self._functions[key] = found
        return found

    # -- "every call" inside a helper -----------------------------------------------------

    def _every_call(self, node: nodes.NodeNG, function: nodes.NodeNG) -> bool:
        child, parent = node, node.parent
        while parent is not None and parent is not function:
            if isinstance(parent, (nodes.If, nodes.IfExp)) and child is not parent.test:
                warm_up = is_warm_up_threshold(parent.test) and child is not parent.orelse
                if not warm_up and self._may_change_between_calls(parent.test, function):
                    return False
            if isinstance(parent, nodes.ExceptHandler):
                return False
            child, parent = parent, parent.parent
        here = position(node)
        return not any(
            isinstance(other, nodes.Return) and position(other) < here and _under_condition(other, function)
            for other in own_nodes(function)
        )

    def _may_change_between_calls(self, test: nodes.NodeNG, function: nodes.NodeNG) -> bool:
        """True unless ``test`` reads only constants, module-level names set once (``FLAGS.verbose``) and
        attributes of ``self`` its class sets only in ``__init__`` (``if self.summary_writer:``).

        A module-level name rebound in a loop, by ``+=`` or through a ``global`` statement may change.
        """
        fixed = {id(attribute.expr) for attribute in (test, *test.nodes_of_class(nodes.Attribute))
                 if _set_only_in_init(attribute, function)}
        for sub in (test, *test.nodes_of_class((nodes.Call, nodes.Name))):
            if isinstance(sub, nodes.Call):
                return True
            if isinstance(sub, nodes.Name) and id(sub) not in fixed:
                bindings = self.module.dataflow.definitions(sub, sub.name)
                if any(not _set_once_at_module_level(b) for b in bindings) or sub.name in self._globals_declared():
                    return True
        return False

    def _globals_declared(self) -> frozenset:
        """Names some function of the module declares ``global`` (and so may rebind)."""
        return self.module.facts("global_statements", lambda module: frozenset(
            name for node in module.nodes_of(nodes.Global) for name in node.names
        ))


def _set_only_in_init(attribute: nodes.NodeNG, function: nodes.NodeNG) -> bool:
    """``self.x`` read in a method of a class that assigns ``self.x`` in ``__init__`` and nowhere else: the
    same on every call of the method for one object."""
    if not (isinstance(attribute, nodes.Attribute) and isinstance(attribute.expr, nodes.Name)
            and attribute.expr.name == "self"):
        return False
    cls = function.parent
    if not isinstance(cls, nodes.ClassDef) or function.name == "__init__":
        return False
    targets = [target for method in cls.mymethods() for target in method.nodes_of_class(nodes.AssignAttr)
               if target.attrname == attribute.attrname]
    return bool(targets) and all(target.scope().name == "__init__" for target in targets)


def merged_chain(effects: List[StepEffect]) -> Tuple[ChainLink, ...]:
    """Every link of every effect's chain, once each and in order: a finding whose message names several write
    lines carries them all, so a tool can place each one (issue 44)."""
    return tuple(dict.fromkeys(link for effect in effects for link in effect.chain))


def direct_kind(module: ModuleAnalysis, call: nodes.Call) -> Optional[str]:
    """Return what ``call`` itself does: a summary write, a checkpoint save, a graph run, or None."""
    if is_summary_write(module, call):
        return SUMMARY_WRITE
    if is_checkpoint_save(module, call):
        return CHECKPOINT_SAVE
    if is_session_run(module, call) or module.call_named(call, tfapi.GRAPH_RUN_FUNCTIONS):
        return GRAPH_RUN
    return eager_kind(module, call)  # TF 2: ``tf.summary.histogram``, ``manager.save()``, ``model.save_weights``


def _parameter_test(call: nodes.Call, function: nodes.NodeNG, test: nodes.NodeNG) -> Optional[bool]:
    """The truth of ``P``, ``not P``, ``P == c`` or ``P != c`` for the constant ``call`` passes for parameter ``P``
    (its constant default when it passes nothing); None when unknown or ``P`` is rebound in ``function``."""
    negate = False
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        test, negate = test.operand, True
    compared: Optional[Tuple[str, object]] = None
    if isinstance(test, nodes.Compare) and len(test.ops) == 1 and test.ops[0][0] in ("==", "!=") \
            and isinstance(test.ops[0][1], nodes.Const):
        compared = (test.ops[0][0], test.ops[0][1].value)
        test = test.left
    if not isinstance(test, nodes.Name) or not _is_plain_parameter(function, test.name):
        return None
    bound = isinstance(call.func, nodes.Attribute)
    argument = argument_for(call, function, test.name, bound)
    if not isinstance(argument, nodes.Const):
        return None
    value = argument.value
    if compared is None:
        truth = bool(value)
    else:
        truth = (value == compared[1]) if compared[0] == "==" else (value != compared[1])
    return truth != negate


def _names_a_parameter(function: nodes.NodeNG, test: nodes.NodeNG) -> bool:
    """``if P:``, ``if not P:``, ``if P == "eval":`` on a plain parameter ``P`` of ``function``."""
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        test = test.operand
    if isinstance(test, nodes.Compare) and len(test.ops) == 1:
        test = test.left
    return isinstance(test, nodes.Name) and _is_plain_parameter(function, test.name)


def _is_plain_parameter(function: nodes.NodeNG, name: str) -> bool:
    """A parameter of ``function`` that its body never rebinds."""
    arguments = function.args
    names = {a.name for a in (*(arguments.posonlyargs or ()), *(arguments.args or ()), *(arguments.kwonlyargs or ()))}
    if name not in names:
        return False
    return not any(target.name == name for target in function.nodes_of_class(nodes.AssignName)
                   if not isinstance(target.parent, nodes.Arguments))


def _under_condition(node: nodes.NodeNG, function: nodes.NodeNG) -> bool:
    parent = node.parent
    while parent is not None and parent is not function:
        if isinstance(parent, (nodes.If, nodes.ExceptHandler, nodes.For, nodes.While)):
            return True
        parent = parent.parent
    return False


def _set_once_at_module_level(binding: nodes.NodeNG) -> bool:
    """A module-level binding outside any loop, not ``+=`` (an import, a def, ``FLAGS = ...``)."""
    if not isinstance(binding.scope(), nodes.Module):
        return False
    if isinstance(binding.parent, nodes.AugAssign):
        return False
    parent = binding.parent
    while parent is not None and not isinstance(parent, nodes.Module):
        if isinstance(parent, (nodes.For, nodes.AsyncFor, nodes.While, nodes.Comprehension)):
            return False
        parent = parent.parent
    return True
