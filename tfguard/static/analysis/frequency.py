"""Which calls run on every training step, and which conditions are frequency guards.

A *step loop* is the innermost session loop that runs ``sess.run`` in its own
iteration (not only inside a nested loop).  A node in it runs *every step* when
no enclosing ``if``/``elif``/``else`` (or conditional expression) inside the
loop has a condition that can change between iterations, and no ``continue``
above it is taken on such a condition.  A loop that runs a nested step loop on
every iteration is an epoch loop, unless it runs the training op itself.  Loop-invariant conditions
(``if FLAGS.verbose:``, ``if config.dataset == 'mnist':``) and ``try``/``with``
blocks are not guards.
"""

from __future__ import annotations

import re
from typing import Dict, FrozenSet, Iterator, List, Optional

from astroid import nodes

from tfguard.static.analysis.defaults import default_constant, default_number, default_origin
from tfguard.static.analysis.fact_types import loop_text
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.scopes import LOOPS, is_ancestor, position
from tfguard.static.analysis.steps import fetched
from tfguard.static.analysis.trip_counts import ROLLOUT_TRIP_COUNT, constant_trip_count


def frequency(module: ModuleAnalysis) -> "StepAnalysis":
    """Return the module's memoised :class:`StepAnalysis`."""
    return module.facts("frequency", StepAnalysis)


class StepAnalysis:
    """Answers "does this node run on every step, and of which loop?" for one module."""

    def __init__(self, module: ModuleAnalysis) -> None:
        self.module = module
        self._variant_names: Dict[int, FrozenSet[str]] = {}
        self._direct_runs: Dict[int, List[nodes.NodeNG]] = {}
        self._nested_session_loop: Dict[int, bool] = {}

    # -- loops ----------------------------------------------------------------------

    def iteration_nodes(self, loop: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
        """Yield every node one iteration of ``loop`` evaluates (nested definitions excluded)."""
        return self.module.iteration_nodes(loop)

    def direct_runs(self, loop: nodes.NodeNG) -> List[nodes.NodeNG]:
        """Return the calls that run the graph in ``loop``'s own iterations (not in a nested loop).

        ``saver.save(sess, path)`` runs the graph but is no step: a loop that only saves is no step loop.
        """
        key = id(loop)
        if key not in self._direct_runs:
            self._direct_runs[key] = [
                node
                for node in self.iteration_nodes(loop)
                if self.module.run_event(node) is not None and next(self.module.enclosing_loops(node), None) is loop
                and not self.module.is_saver_run(node)
            ]
        return self._direct_runs[key]

    def _has_nested_session_loop(self, loop: nodes.NodeNG) -> bool:
        """Whether ``loop`` runs a nested step loop (or calls a function that runs one) on every iteration.

        Only an unguarded one makes ``loop`` an epoch loop: a validation helper called under
        ``if step % steps_per_epoch == 0:`` runs its own loop now and then, and ``loop`` still steps.
        """
        key = id(loop)
        if key not in self._nested_session_loop:
            self._nested_session_loop[key] = any(
                (
                    (isinstance(node, LOOPS) and node is not loop and self.module.is_session_loop(node)
                     and not self.module.only_saves(node) and not self._is_rollout(node))
                    or (isinstance(node, COMPREHENSIONS) and self._runs_the_graph(node))
                    or (self.module.calls_step_loop(node) and not self._calls_rollout(node))
                )
                and self.guard(node, loop) is None
                for node in self.iteration_nodes(loop)
            )
        return self._nested_session_loop[key]

    def _is_rollout(self, loop: nodes.NodeNG) -> bool:
        """A loop of at most ROLLOUT_TRIP_COUNT iterations, by a literal or a module constant, that trains
        nothing itself and runs the graph only directly, in no helper (``for _ in range(T_MAX):
        sess.run(policy, ...)``): one step of the loop around it collects a rollout, not an epoch of steps."""
        count = constant_trip_count(loop)
        if count is None or count > ROLLOUT_TRIP_COUNT or self._trains_itself(loop):
            return False
        # every run written in the loop itself: a helper called there (``agent.learn()``) may train
        events = [self.module.run_event(node) for node in self.iteration_nodes(loop)]
        return all(event is None or not event.chain for event in events)

    def _calls_rollout(self, call: nodes.NodeNG) -> bool:
        """A call of a helper (in this module) whose every session loop is a rollout (see :meth:`_is_rollout`)."""
        function = self.module.called_function(call)
        if function is None or function.root() is not self.module.module:
            return False
        loops = [node for node in self.module.own_nodes(function)
                 if isinstance(node, LOOPS) and self.module.is_session_loop(node)]
        return bool(loops) and all(self._is_rollout(inner) for inner in loops)

    def _trains_itself(self, loop: nodes.NodeNG) -> bool:
        """Whether ``loop`` runs a training op in its own iterations (``sess.run([merged, train_step])``).

        Such a loop is a step loop whatever its helpers do: one that caches bottlenecks by running the
        graph per image in a loop of its own, called at the top of each step, makes it no epoch loop.
        """
        for node in self.direct_runs(loop):
            if _innermost(node, loop, COMPREHENSIONS) is not None:
                continue  # ``[sess.run(train) for _ in range(k)]`` is a step loop of its own
            for expr in fetched(self.module, node):
                value = self.module.value(expr)
                if value is not None and value.api and value.api.endswith((".minimize", ".apply_gradients")):
                    return True
                name = expr.attrname if isinstance(expr, nodes.Attribute) else getattr(expr, "name", "")
                if _TRAINING_OP.match(name or ""):
                    return True
        return False

    def _runs_the_graph(self, comprehension: nodes.NodeNG) -> bool:
        """``[sess.run(train_op, feed) for _ in range(k)]`` is a loop of k steps of its own."""
        return any(self.module.run_event(call) is not None for call in comprehension.nodes_of_class(nodes.Call))

    def step_loop(self, node: nodes.NodeNG) -> Optional[nodes.NodeNG]:
        """Return the step loop whose iterations run ``node`` (guarded or not), if any.

        A node in an epoch loop, next to a nested step loop (or a call of a function that
        runs one), runs once per epoch: None.
        """
        for loop in self.module.enclosing_loops(node):
            if not self.module.is_session_loop(loop):
                continue
            if self._has_nested_session_loop(loop) and not self._trains_itself(loop):
                return None
            if self.direct_runs(loop):
                return loop
        return None

    def every_step_loop(self, node: nodes.NodeNG) -> Optional[nodes.NodeNG]:
        """Return the step loop that runs ``node`` on every iteration, unguarded; else None."""
        loop = self.step_loop(node)
        if loop is None or self.guard(node, loop) is not None or self._skipped_by_continue(node, loop):
            return None
        return loop

    def loop_text(self, loop: nodes.NodeNG) -> str:
        """Describe a loop for messages by its header: "the `for step in range(100)` loop at line 12"."""
        return loop_text(loop)

    # -- guards ---------------------------------------------------------------------

    def guard(self, node: nodes.NodeNG, loop: nodes.NodeNG) -> Optional[nodes.NodeNG]:
        """Return the innermost frequency-guard condition between ``node`` and ``loop``, if any.

        A branch guards when it is taken on only some iterations: the body of a condition that can
        change between iterations, unless the condition is true on most of them (``if it % 40:``,
        ``if step % 50 != 0:``), and the ``else`` of one, unless the condition is true on few of them
        (the ``else`` of ``if args.trace and step % 50 == 0:`` runs on most steps).
        """
        for test, in_else in self._branches(node, loop):
            if not self.is_frequency_guard(test, loop):
                continue
            if not in_else and self.every_step_by_default(test) is not None:
                continue  # ``if step % self.n_critic == 0:`` with ``n_critic`` defaulting to 1
            odds = self.odds(test, loop)
            if (odds != MOSTLY_TRUE) if not in_else else (odds != RARELY_TRUE):
                return test
        return None

    def how_often(self, node: nodes.NodeNG, loop: nodes.NodeNG) -> str:
        """Describe, for messages, how often ``node`` (which :meth:`every_step_loop` returned ``loop`` for) runs."""
        for test, in_else in self._branches(node, loop):
            divisor = self.every_step_by_default(test) if not in_else else None
            if divisor is not None and self.is_frequency_guard(test, loop):
                origin = default_origin(self.module, divisor)
                return (f"on every step as the program ships (it is under `if {test.as_string()}:`, and "
                        f"`{divisor.as_string()}` defaults to 1{': ' + origin if origin else ''})")
            if self.is_frequency_guard(test, loop):
                branch = "the `else` of" if in_else else "under"
                return f"on almost every step (it is {branch} `if {test.as_string()}:`, which "\
                    f"{'fails' if in_else else 'holds'} on most steps)"
        return "on every step"

    def shipped_defaults(self, node: nodes.NodeNG, loop: nodes.NodeNG) -> List[nodes.NodeNG]:
        """Return the default :meth:`how_often` names for ``node`` ("defaults to 1: ... (line 14)"), [] when none:
        its line goes into the finding's chain (issue 44)."""
        for test, in_else in self._branches(node, loop):
            divisor = self.every_step_by_default(test) if not in_else else None
            if divisor is not None and self.is_frequency_guard(test, loop):
                const = default_constant(self.module, divisor)
                return [const] if const is not None else []
            if self.is_frequency_guard(test, loop):
                return []
        return []

    def iteration_words(self, node: nodes.NodeNG, loop: nodes.NodeNG) -> str:
        """Say, for messages, how often ``node`` runs in session loop ``loop``: "on every iteration of the
        `for step in range(100)` loop at line 12", "every 100 iterations of ...", or "on each iteration of ...
        where `cond` holds" under another guard (issue 32, item 15)."""
        where = loop_text(loop)
        for test, in_else in self._branches(node, loop):
            if not self.is_frequency_guard(test, loop):
                continue
            interval = None if in_else else _modulo_interval(test)
            if interval is not None:
                return f"every {interval} iterations of {where}"
            condition = f"not ({test.as_string()})" if in_else else test.as_string()
            return f"on each iteration of {where} where `{condition}` holds"
        return f"on every iteration of {where}"

    def runs_at_most_once(self, node: nodes.NodeNG, loop: nodes.NodeNG) -> bool:
        """Whether ``node`` is under ``if step == K:`` (``step`` the counter of ``loop``, a ``for`` over ``range``
        or ``enumerate`` that nothing rebinds, ``K`` unchanged by the loop) in a loop no other loop of its function
        repeats: it runs once in the program's run at most, so it builds what it builds once."""
        counter = _counter_of(loop)
        if counter is None:
            return False
        tests = [test for test, in_else in self._branches(node, loop) if not in_else]
        if not tests or next(self.module.enclosing_loops(loop), None) is not None:
            return False  # no branch; or ``if step == 500:`` in a step loop run once per epoch: once per epoch
        variant = self.variant_names(loop) - {counter}
        if not any(_tests_equality(part, counter, variant) for test in tests for part in _conjuncts(test)):
            return False
        return not any(isinstance(n, nodes.AssignName) and n.name == counter for n in self.iteration_nodes(loop))

    def every_step_by_default(self, test: nodes.NodeNG) -> Optional[nodes.NodeNG]:
        """Return the divisor of ``x % n == 0`` when ``n`` defaults to 1 (the test then always holds), else None.

        The default is an argparse/flags default, a keyword default or a class attribute, read by
        :func:`~tfguard.static.analysis.defaults.default_number`; any other possible value keeps the guard.
        """
        if not (isinstance(test, nodes.Compare) and len(test.ops) == 1 and test.ops[0][0] == "=="):
            return None
        left, right = test.left, test.ops[0][1]
        modulo, zero = (left, right) if isinstance(left, nodes.BinOp) else (right, left)
        if not (isinstance(modulo, nodes.BinOp) and modulo.op == "%" and isinstance(zero, nodes.Const)
                and zero.value == 0 and not isinstance(modulo.right, nodes.Const)):
            return None
        return modulo.right if default_number(self.module, modulo.right) == 1 else None

    def odds(self, test: nodes.NodeNG, loop: nodes.NodeNG) -> str:
        """Return how often a condition that changes between iterations holds: rarely, mostly, or unknown.

        ``step % n == k`` holds rarely and ``step % n`` or ``step % n != k`` mostly; ``not`` swaps
        them; ``and`` holds rarely when one of its parts does, ``or`` mostly when one of its parts does.
        """
        if isinstance(test, nodes.UnaryOp) and test.op == "not":
            return {RARELY_TRUE: MOSTLY_TRUE, MOSTLY_TRUE: RARELY_TRUE}.get(self.odds(test.operand, loop), UNKNOWN_ODDS)
        if isinstance(test, nodes.BoolOp):
            parts = [self.odds(v, loop) for v in test.values if self.is_frequency_guard(v, loop)]
            strong, weak = (RARELY_TRUE, MOSTLY_TRUE) if test.op == "and" else (MOSTLY_TRUE, RARELY_TRUE)
            if strong in parts:
                return strong
            return weak if parts and all(p == weak for p in parts) else UNKNOWN_ODDS
        if _is_modulo(test):
            return MOSTLY_TRUE
        if is_warm_up_threshold(test):
            return MOSTLY_TRUE
        if isinstance(test, nodes.Compare) and len(test.ops) == 1 and test.ops[0][0] in ("==", "!="):
            if _is_modulo(test.left) or _is_modulo(test.ops[0][1]):
                return RARELY_TRUE if test.ops[0][0] == "==" else MOSTLY_TRUE
        return UNKNOWN_ODDS

    @staticmethod
    def _branch_conditions(node: nodes.NodeNG, loop: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
        for test, _ in StepAnalysis._branches(node, loop):
            yield test

    @staticmethod
    def _branches(node: nodes.NodeNG, loop: nodes.NodeNG) -> Iterator[tuple]:
        """Yield (condition, whether ``node`` is in its else branch) for each ``if`` between ``node`` and ``loop``."""
        child, parent = node, node.parent
        while parent is not None and parent is not loop:
            if isinstance(parent, nodes.If) and child is not parent.test:
                yield parent.test, child in parent.orelse
            elif isinstance(parent, nodes.IfExp) and child is not parent.test:
                yield parent.test, child is parent.orelse
            child, parent = parent, parent.parent

    def is_frequency_guard(self, test: nodes.NodeNG, loop: nodes.NodeNG) -> bool:
        """Return whether condition ``test`` can change between iterations of ``loop``.

        True when it calls something, or mentions the loop variable or any name
        (or ``obj.attr``) assigned inside the loop, such as a value ``sess.run`` returned.
        """
        variant = self.variant_names(loop)
        for sub in (test, *test.nodes_of_class((nodes.Call, nodes.Name, nodes.Attribute))):
            if isinstance(sub, nodes.Call):
                return True
            if isinstance(sub, nodes.Name) and sub.name in variant:
                return True
            if isinstance(sub, nodes.Attribute) and sub.as_string() in variant:
                return True
        return False

    def variant_names(self, loop: nodes.NodeNG) -> FrozenSet[str]:
        """Return the names and ``obj.attr`` texts that ``loop`` (re)binds on each iteration."""
        key = id(loop)
        if key not in self._variant_names:
            names = set()
            targets = [loop.target] if isinstance(loop, (nodes.For, nodes.AsyncFor)) else []
            for root in targets:
                names.update(n.name for n in root.nodes_of_class(nodes.AssignName))
            for node in self.iteration_nodes(loop):
                if isinstance(node, nodes.AssignName):
                    names.add(node.name)
                elif isinstance(node, nodes.AssignAttr):
                    names.add(node.as_string())
                elif isinstance(node, nodes.AugAssign):
                    names.add(node.target.as_string())
            self._variant_names[key] = frozenset(names)
        return self._variant_names[key]

    def _skipped_by_continue(self, node: nodes.NodeNG, loop: nodes.NodeNG) -> bool:
        """Return whether a ``continue`` above ``node`` skips it on some iterations (or always), besides one
        taken only when the data is empty (``if len(batch) < 1: continue``): that skips almost no step."""
        return bool(self.skipping_continues(node, loop, rare_too=False))

    def skipping_continues(self, node: nodes.NodeNG, loop: nodes.NodeNG, rare_too: bool = True) -> FrozenSet[tuple]:
        """The positions of the ``continue`` statements above ``node`` that skip it on some iterations.

        Two nodes skipped by the same ones run on the same iterations (``if batch is None: continue``
        before both): TFG203 compares such runs as if the loop had no ``continue``. Without ``rare_too``, a
        ``continue`` whose every condition checks for empty data (:func:`is_empty_data_check`) is left out.
        """
        here = position(node)
        found = set()
        for other in self.iteration_nodes(loop):
            if not isinstance(other, nodes.Continue) or position(other) >= here:
                continue
            if next(self.module.enclosing_loops(other), None) is not loop or _in_except_handler(other, loop):
                continue
            conditions = list(self._branch_conditions(other, loop))
            if is_ancestor(_branch_of(other, loop), node):
                continue  # the continue shares node's branch: node is after it, unreachable there
            if not rare_too and conditions and all(is_empty_data_check(test) for test in conditions):
                continue
            if not conditions or any(self.is_frequency_guard(test, loop) for test in conditions):
                found.add(position(other))
        return frozenset(found)


#: Names of the op that trains one step (its value may be built where tfguard cannot follow it).
_TRAINING_OP = re.compile(r"^(train_op|train_step|training_op|train_ops|opt_op|optim|optimize|train_opt)$")

#: How often a condition holds, for :meth:`StepAnalysis.odds`.
RARELY_TRUE, MOSTLY_TRUE, UNKNOWN_ODDS = "rarely", "mostly", "unknown"


def is_empty_data_check(test: nodes.NodeNG) -> bool:
    """``len(batch) < 1``, ``len(batch) == 0``, ``len(batch) <= 0``: a check for empty data, which a training
    loop over real data almost never sees true. (``batch is None`` is left out: None often marks a first
    iteration or a state not ready yet, taken on many steps.)"""
    if not (isinstance(test, nodes.Compare) and len(test.ops) == 1):
        return False
    (op, right), left = test.ops[0], test.left
    is_len = (isinstance(left, nodes.Call) and isinstance(left.func, nodes.Name) and left.func.name == "len"
              and len(left.args) == 1)
    if not is_len or not (isinstance(right, nodes.Const) and type(right.value) is int):
        return False
    return (op, right.value) in (("<", 1), ("==", 0), ("<=", 0))


def is_warm_up_threshold(test: nodes.NodeNG) -> bool:
    """``self.replay_buffer.count() > REPLAY_START_SIZE``, ``step >= LEARN_START``: a warm-up test.

    A counter (``len(...)``, a ``count()``/``size()`` call, a name like ``step``/``t``/``episode``/``count``, or
    a global step's ``eval()``) compared with ``>``/``>=`` against an UPPER_CASE constant (or an expression of
    such constants and numbers, ``MEMORY_CAPACITY / 20``) holds on every step after the first few: training
    code waits for a replay buffer or a learning start, then runs on. A bare number (``if it > 100:``) or a
    value such as a loss (``if loss_value > 10.0:``) is not a warm-up test: its odds are unknown.  A run
    setting read from arguments or ``self`` (``replay_buffer.size() > int(args['minibatch_size'])``) is a
    threshold too, unless its name says it ends the run (``self.max_steps``, ``args.total_steps``).
    """
    if not (isinstance(test, nodes.Compare) and len(test.ops) == 1 and test.ops[0][0] in (">", ">=")):
        return False
    return _counter_like(test.left) and (_upper_constant(test.ops[0][1]) or _setting(test.ops[0][1]))


#: Objects whose attributes and items are the run's settings: ``args.batch_size``, ``FLAGS.start``,
#: ``self.batch_size``, ``config['minibatch_size']``.
_SETTINGS = re.compile(r"^(args|FLAGS|flags|opt|opts|options|config|cfg|hparams|hp|params|self)$")


#: Setting names that bound a run rather than start it: past them the loop stops, not starts.
_BOUND = re.compile(r"max|total|end|stop|last|limit|steps|epochs|iters|iterations|episodes", re.IGNORECASE)


def _setting(expr: nodes.NodeNG) -> bool:
    """A run setting, as a warm-up threshold: ``int(args['minibatch_size'])``, ``self.batch_size``,
    ``FLAGS.learn_start * 2`` (a batch size or start step the program reads once, not a number)."""
    if isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Name) and expr.func.name in ("int", "float") \
            and len(expr.args) == 1:
        return _setting(expr.args[0])
    if isinstance(expr, nodes.BinOp) and expr.op in ("/", "//", "*", "+", "-"):
        parts = (expr.left, expr.right)
        return all(_setting(p) or _is_number(p) or _upper_constant(p) for p in parts) and \
            any(_setting(p) for p in parts)
    if isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Name):
        return _SETTINGS.match(expr.expr.name) is not None and not _BOUND.search(expr.attrname)
    if isinstance(expr, nodes.Subscript) and isinstance(expr.value, nodes.Name) and isinstance(expr.slice, nodes.Const):
        return _SETTINGS.match(expr.value.name) is not None and isinstance(expr.slice.value, str) \
            and not _BOUND.search(expr.slice.value)
    return False


_COUNTER = re.compile(r"(^|_)(t|i|step|steps|count|counter|size|len|episode|episodes|iter|iteration|frame|frames)($|_)",
                      re.IGNORECASE)


def _counter_like(expr: nodes.NodeNG) -> bool:
    if isinstance(expr, nodes.Call):
        func = expr.func
        if isinstance(func, nodes.Name) and func.name == "len":
            return True
        if isinstance(func, nodes.Attribute) and func.attrname in ("count", "size", "__len__"):
            return True
        if isinstance(func, nodes.Attribute) and func.attrname == "eval":
            return _counter_like(func.expr)
        return False
    name = expr.name if isinstance(expr, nodes.Name) else expr.attrname if isinstance(expr, nodes.Attribute) else ""
    return bool(name) and _COUNTER.search(name) is not None


def _upper_constant(expr: nodes.NodeNG) -> bool:
    """An UPPER_CASE name or attribute, or arithmetic of those and numbers with at least one such name."""
    if isinstance(expr, nodes.BinOp) and expr.op in ("/", "//", "*", "+", "-"):
        parts = (expr.left, expr.right)
        return all(_upper_constant(p) or _is_number(p) for p in parts) and any(_upper_constant(p) for p in parts)
    name = expr.name if isinstance(expr, nodes.Name) else expr.attrname if isinstance(expr, nodes.Attribute) else ""
    return bool(name) and name.isupper()


def _is_number(expr: nodes.NodeNG) -> bool:
    return isinstance(expr, nodes.Const) and isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool)


def _is_modulo(expr: nodes.NodeNG) -> bool:
    """``x % n`` with ``n`` not a literal 1 or 2 (``step % 2`` holds on half the steps: no telling)."""
    if not (isinstance(expr, nodes.BinOp) and expr.op == "%"):
        return False
    divisor = expr.right
    return not (isinstance(divisor, nodes.Const) and isinstance(divisor.value, int) and divisor.value <= 2)


#: Comprehensions: loops written as expressions.
COMPREHENSIONS = (nodes.ListComp, nodes.SetComp, nodes.DictComp, nodes.GeneratorExp)


def _innermost(node: nodes.NodeNG, loop: nodes.NodeNG, kind: type) -> Optional[nodes.NodeNG]:
    """Return the innermost ancestor of class ``kind`` between ``node`` and ``loop``, if any."""
    parent = node.parent
    while parent is not None and parent is not loop:
        if isinstance(parent, kind):
            return parent
        parent = parent.parent
    return None


def _in_except_handler(node: nodes.NodeNG, loop: nodes.NodeNG) -> bool:
    return _innermost(node, loop, nodes.ExceptHandler) is not None


def _branch_of(node: nodes.NodeNG, loop: nodes.NodeNG) -> Optional[nodes.NodeNG]:
    """Return the innermost ``if`` statement holding ``node`` inside ``loop`` (None: the loop body)."""
    return _innermost(node, loop, nodes.If)


def _modulo_interval(test: nodes.NodeNG) -> Optional[str]:
    """``step % 100 == 0`` (or ``not step % 100``): "100"; a named interval: "`N`"; else None."""
    modulo = None
    if isinstance(test, nodes.UnaryOp) and test.op == "not" and _is_modulo(test.operand):
        modulo = test.operand
    elif isinstance(test, nodes.Compare) and len(test.ops) == 1 and test.ops[0][0] == "==":
        left, right = test.left, test.ops[0][1]
        modulo = left if _is_modulo(left) else right if _is_modulo(right) else None
    if modulo is None:
        return None
    divisor = modulo.right
    if isinstance(divisor, nodes.Const) and isinstance(divisor.value, int):
        return str(divisor.value)
    return f"`{divisor.as_string()}`"


def _counter_of(loop: nodes.NodeNG) -> Optional[str]:
    """The counter of ``for step in range(...)`` or ``for step, x in enumerate(...)``."""
    if not isinstance(loop, nodes.For) or not isinstance(loop.iter, nodes.Call):
        return None
    func = loop.iter.func
    name = func.name if isinstance(func, nodes.Name) else ""
    target = loop.target
    if name == "range" and isinstance(target, nodes.AssignName):
        return target.name
    if name == "enumerate" and isinstance(target, nodes.Tuple) and isinstance(target.elts[0], nodes.AssignName):
        return target.elts[0].name
    return None


def _conjuncts(test: nodes.NodeNG) -> List[nodes.NodeNG]:
    if isinstance(test, nodes.BoolOp) and test.op == "and":
        return [part for value in test.values for part in _conjuncts(value)]
    return [test]


def _tests_equality(test: nodes.NodeNG, counter: str, variant: FrozenSet[str]) -> bool:
    """``counter == K`` or ``K == counter`` with ``K`` reading nothing the loop changes and calling nothing."""
    if not (isinstance(test, nodes.Compare) and len(test.ops) == 1 and test.ops[0][0] == "=="):
        return False
    left, right = test.left, test.ops[0][1]
    for mine, other in ((left, right), (right, left)):
        if isinstance(mine, nodes.Name) and mine.name == counter:
            parts = [other, *other.nodes_of_class(nodes.NodeNG)]
            if any(isinstance(p, nodes.Call) for p in parts):
                return False
            return not any(isinstance(p, nodes.Name) and (p.name in variant or p.name == counter) for p in parts)
    return False
