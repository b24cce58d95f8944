"""TF 2 ``tf.function`` facts, computed once per module: which functions are traced, how, and where they are called.

``tf.function`` keeps one graph per *input signature* of its Python function: a new Python value of a scalar or
string argument, a new shape of a Tensor (unless ``input_signature`` or ``reduce_retracing=True`` relaxes it) or
a new Python object as an argument is a new trace.  A ``tf.function`` object created again (a decorated nested
``def``, ``tf.function(f)`` in a loop) starts with no graph at all.  The TFG4xx rules read these facts:

* :class:`TracedFunction`: one ``@tf.function`` / ``tf.function(f)``, its options and the Python function;
* :meth:`TfFunctions.traced_of`: the tf.function a call calls (a decorated ``def``, a name or ``self.`` attribute
  bound to ``tf.function(...)``);
* :meth:`TfFunctions.inside_trace`: code that runs only while a tf.function traces (its body, nested helpers);
* :func:`enclosing_loop` / :func:`loop_targets`: the loop of a call in its own function and the names it binds;
* :func:`constructs_object`: a call that makes a new Python object (a Keras model, an optimizer, a local class).

The checker never imports TensorFlow: names are resolved through :mod:`~tfguard.static.analysis.tfapi`'s
canonical spellings (``tf.function`` and ``tf.compat.v1.function`` are ``tensorflow.function``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterator, List, Optional, Set

from astroid import nodes

from tfguard.static.analysis.scopes import FUNCTIONS, function_label
from tfguard.static.analysis.tfapi import TF_FUNCTION_APIS
from tfguard.static.finding import ChainLink

#: Keywords of ``tf.function`` that relax shapes (``experimental_relax_shapes``: ``reduce_retracing`` before TF 2.9).
RELAXING = frozenset({"reduce_retracing", "experimental_relax_shapes"})
LOOPS = (nodes.For, nodes.While)
#: Canonical prefixes of the Keras namespaces (tf.keras / tf_keras / Keras 3's ``keras``).
KERAS_PREFIXES = ("tensorflow.keras.", "keras.", "tf_keras.", "tensorflow.compat.v2.keras.")
#: Calls that make a Keras model (each new model traces its own call / predict / evaluate functions).
MODEL_FACTORY_LEAVES = frozenset({"Sequential", "Model", "load_model", "clone_model", "model_from_json",
                                  "model_from_config", "model_from_yaml"})


@dataclass(frozen=True)
class TracedFunction:
    """One ``tf.function``: where it is created and what was passed to it."""

    #: The decorator node or the ``tf.function(...)`` call.
    creation: nodes.NodeNG
    #: The Python function traced (a FunctionDef or Lambda), when the module shows it.
    function: Optional[nodes.NodeNG]
    has_signature: bool
    relaxes_shapes: bool

    @property
    def label(self) -> str:
        """The name of the traced Python function, for messages."""
        function = self.function
        if isinstance(function, FUNCTIONS):
            return function.name
        return "<lambda>" if isinstance(function, nodes.Lambda) else "the function"


def creation_link(path: str, traced: TracedFunction) -> ChainLink:
    """The line that creates ``traced`` (its ``@tf.function`` or ``tf.function(...)``) as a chain link.

    It is the line a retracing finding asks to change (an ``input_signature``, ``reduce_retracing=True``, or
    creating the function once), so SARIF viewers, editors and scorers can place it (issue 44).
    """
    creation = traced.creation
    function = traced.function
    if isinstance(function, FUNCTIONS) and function.decorators is not None and creation.parent is function.decorators:
        label = function.name
    else:
        scope = creation.scope()
        label = function_label(scope) if isinstance(scope, FUNCTIONS) else "<module>"
    return ChainLink(path, creation.lineno, label)


def tf_functions(module) -> "TfFunctions":
    """Return the tf.function facts of ``module`` (a ModuleAnalysis), computed once."""
    return module.facts("tf_functions", TfFunctions)


class TfFunctions:
    """Every tf.function of one module and the calls that reach one."""

    def __init__(self, module) -> None:
        self.module = module
        self.by_function: Dict[int, TracedFunction] = {}
        self.by_creation: Dict[int, TracedFunction] = {}
        self._traced_scopes: Set[int] = set()
        self._class_members: Dict[int, Dict[str, Optional[TracedFunction]]] = {}
        for function in module.nodes_of(nodes.FunctionDef, nodes.AsyncFunctionDef):
            for decorator in function.decorators.nodes if function.decorators else ():
                traced = self._from_decorator(decorator, function)
                if traced is not None:
                    self._add(traced, decorated=True)
        for call in module.calls_to(TF_FUNCTION_APIS):
            if call.args:
                self._add(_traced(call, call, self._python_function(call.args[0])), decorated=False)
        # The body of a function handed to tf.function runs while it traces (a direct call of it runs eagerly,
        # which only makes the rules quieter there).
        for traced in self.by_creation.values():
            if traced.function is not None:
                self._traced_scopes.add(id(traced.function))

    # -- construction -----------------------------------------------------------

    def _from_decorator(self, decorator: nodes.NodeNG, function: nodes.NodeNG) -> Optional[TracedFunction]:
        if isinstance(decorator, nodes.Call):
            if self.module.qualname(decorator.func) in TF_FUNCTION_APIS:
                return _traced(decorator, decorator, function)
            return None
        if self.module.qualname(decorator) in TF_FUNCTION_APIS:
            return _traced(decorator, None, function)
        return None

    def _python_function(self, expr: nodes.NodeNG) -> Optional[nodes.NodeNG]:
        if isinstance(expr, nodes.Lambda):
            return expr
        value = self.module.value(expr)
        if value is not None and value.kind == "function" and isinstance(value.node, (*FUNCTIONS, nodes.Lambda)):
            return value.node
        return None

    def _add(self, traced: TracedFunction, decorated: bool) -> None:
        self.by_creation[id(traced.creation)] = traced
        if decorated and traced.function is not None:  # the name of a decorated def is the tf.function itself
            self.by_function.setdefault(id(traced.function), traced)

    # -- queries ----------------------------------------------------------------

    def all(self) -> List[TracedFunction]:
        """Return every tf.function of the module, in source order."""
        return sorted(self.by_creation.values(), key=lambda t: (t.creation.lineno or 0, t.creation.col_offset or 0))

    def traced_of(self, call: nodes.Call) -> Optional[TracedFunction]:
        """Return the tf.function that ``call`` calls, if the module shows one."""
        func = call.func
        if isinstance(func, nodes.Name):
            return self._traced_name(func)
        if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and func.expr.name == "self":
            return self._traced_self_attribute(func)
        return None

    def _traced_name(self, name: nodes.Name) -> Optional[TracedFunction]:
        try:
            _, bindings = name.lookup(name.name)
        except Exception:  # astroid raises on odd scopes; an unknown name is no tf.function
            return None
        found: Optional[TracedFunction] = None
        for binding in bindings:
            traced = self._traced_binding(binding)
            if traced is None:
                return None  # bound to something else on some path: not known to be a tf.function
            found = traced
        return found

    def _traced_binding(self, binding: nodes.NodeNG) -> Optional[TracedFunction]:
        if isinstance(binding, FUNCTIONS):
            return self.by_function.get(id(binding))
        if isinstance(binding, nodes.AssignName) and isinstance(binding.parent, nodes.Assign):
            value = binding.parent.value
            if isinstance(value, nodes.Call):
                return self.by_creation.get(id(value))
        return None

    def _traced_self_attribute(self, func: nodes.Attribute) -> Optional[TracedFunction]:
        cls = func.frame()
        while cls is not None and not isinstance(cls, nodes.ClassDef):
            cls = cls.parent
        if cls is None:
            return None
        members = self._class_members.get(id(cls))
        if members is None:
            members = self._class_members[id(cls)] = self._members(cls)
        return members.get(func.attrname)

    def _members(self, cls: nodes.ClassDef) -> Dict[str, Optional[TracedFunction]]:
        """Map each method or ``self.`` attribute name of ``cls`` to its tf.function, None when some binding of
        the name is something else (then it is not known to be a tf.function)."""
        members: Dict[str, Optional[TracedFunction]] = {}

        def bind(name: str, traced: Optional[TracedFunction]) -> None:
            if traced is None or (name in members and members[name] is None):
                members[name] = None
            else:
                members[name] = traced

        for member in cls.body:
            if isinstance(member, FUNCTIONS):
                bind(member.name, self.by_function.get(id(member)))
        for assign in cls.nodes_of_class(nodes.AssignAttr):
            if isinstance(assign.parent, nodes.Assign):
                bind(assign.attrname, self.by_creation.get(id(assign.parent.value)))
        return members

    def inside_trace(self, node: nodes.NodeNG) -> bool:
        """Return whether ``node`` runs only while some tf.function traces (in its body or a function nested there)."""
        parent = node.parent
        while parent is not None:
            if isinstance(parent, (*FUNCTIONS, nodes.Lambda)) and id(parent) in self._traced_scopes:
                return True
            parent = parent.parent
        return False

    def is_traced_body(self, function: nodes.NodeNG) -> bool:
        """Return whether ``function`` itself is the Python function of a tf.function."""
        return id(function) in self._traced_scopes


def _traced(creation: nodes.NodeNG, call: Optional[nodes.Call], function: Optional[nodes.NodeNG]) -> TracedFunction:
    keywords = {k.arg: k.value for k in (call.keywords or ())} if call is not None else {}
    # tf.function(func, input_signature, autograph, ...): the signature is its second positional parameter.
    signature = keywords.get("input_signature")
    if signature is None and call is not None and len(call.args) > 1:
        signature = call.args[1]
    has_signature = signature is not None and not (isinstance(signature, nodes.Const) and signature.value is None)
    relaxes = any(
        name in keywords and not (isinstance(keywords[name], nodes.Const) and not keywords[name].value)
        for name in RELAXING
    )
    return TracedFunction(creation=creation, function=function, has_signature=has_signature, relaxes_shapes=relaxes)


# -- loops ----------------------------------------------------------------------


def enclosing_loop(node: nodes.NodeNG) -> Optional[nodes.NodeNG]:
    """Return the innermost loop of ``node``'s own function (or module) whose body runs ``node`` each iteration."""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (*FUNCTIONS, nodes.Lambda, nodes.ClassDef, nodes.Module)):
        if isinstance(parent, LOOPS) and child in parent.body:
            return parent
        if isinstance(parent, nodes.Comprehension) or isinstance(parent, (nodes.ListComp, nodes.GeneratorExp,
                                                                            nodes.DictComp, nodes.SetComp)):
            if child is not getattr(parent, "iter", None) and not _is_first_generator_iter(parent, child):
                return parent
        child, parent = parent, parent.parent
    return None


def _is_first_generator_iter(comp: nodes.NodeNG, child: nodes.NodeNG) -> bool:
    generators = getattr(comp, "generators", None)
    return bool(generators) and child is generators[0]


def loops_around(node: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
    """Yield the loops of ``node``'s own function that run it each iteration, innermost first."""
    loop = enclosing_loop(node)
    while loop is not None:
        yield loop
        loop = enclosing_loop(loop)


#: TensorFlow warns when a tf.function traces this many times within 10 calls.  Each iteration of a loop that
#: retraces is a full trace (seconds for a real model), so the retracing rules stay silent only on a literal loop of
#: fewer iterations; from 5 on, the count TensorFlow itself calls "expensive", it is reported (issue 44).  In a
#: unit test (a ``test_*`` function, a ``TestCase`` method) the bound stays :func:`bounded_loop`'s 10: a test that
#: rerolls a handful of times runs once.
RETRACE_WARNING = 5


def few_traces(loop: nodes.NodeNG) -> bool:
    """Whether ``loop`` (and the loops around it) make fewer than :data:`RETRACE_WARNING` iterations, literally
    (at most 10 in a unit test): the bound of the retracing rules TFG401, TFG403 and TFG405."""
    from tfguard.static.analysis.per_call import in_unit_test

    return bounded_loop(loop, RETRACE_WARNING - 1) or (in_unit_test(loop) and bounded_loop(loop))


def bounded_loop(loop: nodes.NodeNG, limit: Optional[int] = None) -> bool:
    """Whether ``loop`` (and the loops around it) make a bounded handful of iterations (at most ``limit``, 10 by
    default): literally (:func:`~tfguard.static.analysis.trip_counts.repeats_a_bounded_handful`), or
    ``for _ in range(n)`` with ``n`` bound once in the same function to such an int literal (``num_rerolls = 5``)."""
    from tfguard.static.analysis.trip_counts import SMALL_TRIP_COUNT, repeats_a_bounded_handful

    limit = SMALL_TRIP_COUNT if limit is None else limit
    if repeats_a_bounded_handful(loop, limit):
        return True
    iterable = getattr(loop, "iter", None)
    if not (isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Name) and iterable.func.name == "range"
            and len(iterable.args) == 1 and isinstance(iterable.args[0], nodes.Name)):
        return False
    name = iterable.args[0]
    scope = loop.scope()
    values = [a.value for a in scope.nodes_of_class(nodes.Assign) if a.scope() is scope
              and any(isinstance(t, nodes.AssignName) and t.name == name.name for t in a.targets)]
    return len(values) == 1 and isinstance(values[0], nodes.Const) and type(values[0].value) is int \
        and values[0].value <= limit and enclosing_loop(loop) is None


def loop_targets(loop: nodes.NodeNG) -> FrozenSet[str]:
    """Return the names a ``for`` loop binds each iteration."""
    target = getattr(loop, "target", None)
    if target is None:
        return frozenset()
    return frozenset(n.name for n in target.nodes_of_class(nodes.AssignName))


def assigned_in(body_owner: nodes.NodeNG, name: str) -> List[nodes.NodeNG]:
    """Return the statements of ``body_owner``'s body (own code, nested functions excluded) that assign ``name``."""
    found = []
    for node in _own_descendants(body_owner):
        if isinstance(node, nodes.AssignName) and node.name == name:
            found.append(node.parent)
        elif isinstance(node, nodes.AugAssign) and isinstance(node.target, nodes.AssignName) \
                and node.target.name == name:
            found.append(node)
    return found


def _own_descendants(owner: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
    stack = list(owner.get_children())
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (*FUNCTIONS, nodes.Lambda, nodes.ClassDef)):
            continue
        stack.extend(node.get_children())


# -- objects --------------------------------------------------------------------


def is_keras_name(qualname: Optional[str]) -> bool:
    """Return whether ``qualname`` is in a Keras namespace."""
    return bool(qualname) and qualname.startswith(KERAS_PREFIXES)


def builds_model(module, call: nodes.NodeNG, depth: int = 0) -> bool:
    """Return whether ``call`` makes a new Keras model: a Keras model factory, a local subclass of a Keras
    ``Model``, or a local function whose return value is one (followed two levels)."""
    if not isinstance(call, nodes.Call):
        return False
    qualname = module.call_qualname(call)
    if qualname is not None:
        leaf = qualname.rsplit(".", 1)[-1]
        if is_keras_name(qualname) and (leaf in MODEL_FACTORY_LEAVES or ".applications." in qualname):
            return True
        if is_keras_name(qualname):
            return False
    value = module.value(call.func)
    if value is None:
        return False
    if value.kind == "class" and isinstance(value.node, nodes.ClassDef):
        return _is_keras_model_class(module, value.node)
    if value.kind == "function" and isinstance(value.node, FUNCTIONS) and depth < 2:
        return any(
            isinstance(ret.value, nodes.Call) and builds_model(module, ret.value, depth + 1)
            or isinstance(ret.value, nodes.Name) and _name_bound_to_model(module, value.node, ret.value.name, depth)
            for ret in value.node.nodes_of_class(nodes.Return)
            if ret.value is not None and ret.scope() is value.node
        )
    return False


def _name_bound_to_model(module, function: nodes.NodeNG, name: str, depth: int) -> bool:
    bindings = assigned_in(function, name)
    return bool(bindings) and all(
        isinstance(b, nodes.Assign) and builds_model(module, b.value, depth + 1) for b in bindings
    )


def is_keras_model_class(module, cls: nodes.ClassDef) -> bool:
    """Return whether ``cls`` subclasses a Keras ``Model`` or ``Sequential`` (through local bases, three deep)."""
    return _is_keras_model_class(module, cls)


def _is_keras_model_class(module, cls: nodes.ClassDef, depth: int = 0) -> bool:
    for base in cls.bases:
        qualname = module.qualname(base)
        if qualname is not None and is_keras_name(qualname) and qualname.rsplit(".", 1)[-1] in {"Model", "Sequential"}:
            return True
        value = module.value(base)
        if depth < 3 and value is not None and value.kind == "class" and isinstance(value.node, nodes.ClassDef):
            if _is_keras_model_class(module, value.node, depth + 1):
                return True
    return False


def constructs_object(module, expr: Optional[nodes.NodeNG]) -> bool:
    """Return whether ``expr`` makes a new Python object a trace keys on by identity: a class instantiated (a
    Keras model, layer, optimizer or loss, a ``tf.Module``, a local class), a model built, or a lambda."""
    if isinstance(expr, nodes.Lambda):
        return True
    if not isinstance(expr, nodes.Call):
        return False
    if builds_model(module, expr):
        return True
    qualname = module.call_qualname(expr)
    if qualname is not None:
        leaf = qualname.rsplit(".", 1)[-1]
        if qualname in {"tensorflow.Variable", "tensorflow.Module", "tensorflow.compat.v2.Variable"}:
            return True
        keras_class = is_keras_name(qualname) and leaf[:1].isupper()
        return keras_class or qualname.startswith("tensorflow.distribute.") and leaf[:1].isupper()
    value = module.value(expr.func)
    return value is not None and value.kind == "class" and isinstance(value.node, nodes.ClassDef)


# -- TF 2 code ------------------------------------------------------------------


def tf2_code(module) -> bool:
    """Return whether ``module`` (a ModuleAnalysis) is TF 2 eager code, where tf.functions trace.

    Like :func:`~tfguard.static.analysis.eager.runs_eagerly`, without its ``as_default`` sign: TF 2 code writes
    ``with writer.as_default():`` for summaries.  A module that creates a session, switches eager execution off,
    builds placeholders or runs a graph through a library callable is TF 1 graph code: the TFG4xx rules stay
    silent there (its ``tf.function``\\ s, if any, are not what slows it down).
    """
    return module.facts("tf2_code", _tf2_code)


def _tf2_code(module) -> bool:
    from tfguard.static.analysis import eager  # imported here: eager imports the dataflow layer this module serves

    if module.calls_to(eager.GRAPH_MODE_APIS):
        return False
    for call in module.nodes_of(nodes.Call):
        # ``U.function([x], [loss])``: only a call named ``function`` can be a runner factory (resolved then)
        if not isinstance(call.func, nodes.Attribute) or call.func.attrname != "function":
            continue
        callee = module.value(call.func)
        if callee is not None and callee.kind == "module" and eager.is_runner_factory(callee.api):
            return False
    # One type at a time: nodes_of() of several types sorts them, which costs more than the scan itself.
    names = {node.name for kind in (nodes.Name, nodes.AssignName) for node in module.nodes_of(kind)}
    names.update(node.attrname for kind in (nodes.Attribute, nodes.AssignAttr) for node in module.nodes_of(kind))
    names.discard("clear_session")  # ``keras.backend.clear_session()``: TF 2 Keras code frees its models with it
    return not any(eager._SESSION_NAME.search(name) for name in names)
