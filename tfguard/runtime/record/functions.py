"""What the guard keeps of each `tf.function`: its calls, its traces, and what changed between two traces.

Plain Python, no TensorFlow: a trace's arguments arrive as TensorFlow's TraceTypes (`TensorSpec`, `Literal`,
`Weakref`, `Tuple`, ...) and are read by their attributes into short descriptions (`float32[32, 10]`, `3`,
`object of class Adam`), so a recording is JSON-ready and can be built by hand in tests.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

#: Traced call numbers kept per function (a function traced more often keeps its count, not every number).
MAX_TRACED_CALLS = 100000
#: Argument changes kept per function, and call sites.
MAX_CHANGES = 20
MAX_SITES = 20
#: Distinct values kept per change (a value that keeps taking new ones leads the changes), and tf.function objects
#: whose last trace's arguments are kept (a trace is compared with the same object's last one).
MAX_VALUES = 50
MAX_OBJECTS = 64

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+|0x[0-9a-fA-F]+")


class Argument(tuple):
    """One argument of a trace: (kind, description, identity); kind is tensor, value, object, structure or type.

    `identity` compares two traces' arguments: an object's identity is its address (a new object is a change),
    the others' is their description.
    """

    __slots__ = ()

    def __new__(cls, kind: str, description: str, identity: str = "") -> "Argument":
        return tuple.__new__(cls, (kind, description, identity or description))

    @property
    def kind(self) -> str:
        """tensor, value, object, structure or type."""
        return self[0]

    @property
    def description(self) -> str:
        """`float32[32, 10]`, `3`, `object of class Adam`."""
        return self[1]


def describe(trace_type: Any) -> Argument:
    """An argument's TraceType as an Argument (read by duck typing: no TensorFlow is imported)."""
    name = type(trace_type).__name__
    if trace_type is None:
        return Argument("type", "?")
    if hasattr(trace_type, "shape") and hasattr(trace_type, "dtype"):
        return Argument("tensor", "%s%s" % (_dtype_name(trace_type.dtype), _shape_text(trace_type.shape)))
    if name == "Literal" and hasattr(trace_type, "value"):
        return Argument("value", _short(repr(trace_type.value)))
    if name == "Weakref":
        target = _weak_target(trace_type)
        if target is None:  # freed already
            return Argument("object", "object (freed)", "freed@%x" % id(trace_type))
        return Argument("object", "object of class %s" % type(target).__name__,
                        "%s@%x" % (type(target).__name__, id(target)))
    if name in ("Tuple", "List", "Dict", "NamedTuple", "Attrs"):
        return Argument("structure", _short(_ADDRESS.sub("", str(trace_type))), str(trace_type))
    return Argument("type", _short(_ADDRESS.sub("", str(trace_type))), str(trace_type))


def _weak_target(trace_type: Any) -> Any:
    ref = getattr(trace_type, "_ref", None)
    try:
        return ref() if callable(ref) else None
    except Exception:
        return None


def _dtype_name(dtype: Any) -> str:
    return str(getattr(dtype, "name", dtype))


def _shape_text(shape: Any) -> str:
    try:
        dims = shape.as_list()
    except Exception:  # unknown rank
        return "[...]"
    return "[%s]" % ", ".join("None" if d is None else str(d) for d in dims)


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Change(object):
    """How one argument differed from the same tf.function object's previous trace: `x` shape [32, 10] -> [17, 10].

    `values` are the distinct values it changed to (a growing float takes a new one each time, a flag alternates
    between two); `sites` the user's calling lines of the traces it came with.
    """

    __slots__ = ("argument", "kind", "before", "after", "count", "first_call", "values", "sites")

    def __init__(self, argument: str, kind: str, before: str, after: str, call: int) -> None:
        self.argument = argument
        self.kind = kind
        self.before = before
        self.after = after
        self.count = 1
        self.first_call = call
        self.values = {after}
        self.sites: Dict[Tuple[str, int], int] = {}

    def seen(self, after: str, site: Optional[Tuple[str, int]]) -> None:
        """Note the value it changed to and the calling line of that trace."""
        if len(self.values) < MAX_VALUES:
            self.values.add(after)
        if site is not None and (site in self.sites or len(self.sites) < MAX_SITES):
            self.sites[site] = self.sites.get(site, 0) + 1

    def top_site(self) -> Optional[Tuple[str, int]]:
        """The calling line of most of the traces this change came with (the first such line on a tie)."""
        if not self.sites:
            return None
        return max(self.sites.items(), key=lambda item: item[1])[0]

    def text(self) -> str:
        """`argument x: shape [32, 10] -> [17, 10]`, in words for each kind."""
        if self.kind == "new-function":
            return "a new tf.function object for the same Python function (the function, or the model that " \
                   "owns it, was created again)"
        label = {"shape": "shape", "dtype": "dtype", "value": "Python value", "object": "a new",
                 "structure": "structure", "type": "type", "arguments": "arguments"}.get(self.kind, self.kind)
        if self.kind == "object":
            return "argument `%s`: a new %s" % (self.argument, self.after)
        return "argument `%s`: %s %s -> %s" % (self.argument, label, self.before, self.after)

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready."""
        return {"argument": self.argument, "kind": self.kind, "before": self.before, "after": self.after,
                "count": self.count, "first_call": self.first_call, "text": self.text()}

    def rank(self) -> Tuple[int, int, int]:
        """Sort key, first what keeps changing: more distinct values (a growing float before an alternating flag),
        then more traces, then the earlier."""
        distinct = self.count if self.kind in ("new-function", "object") else len(self.values)  # new each time
        return (-distinct, -self.count, self.first_call)


def changes_between(before: Sequence[Tuple[str, Argument]], after: Sequence[Tuple[str, Argument]]
                    ) -> List[Tuple[str, str, str, str]]:
    """(argument, kind, before, after) for each argument that differs between two traces' arguments."""
    old = dict(before)
    found = []
    for name, argument in after:
        previous = old.get(name)
        if previous is None:
            found.append((name, "arguments", "-", argument.description))
        elif previous[2] != argument[2]:
            found.append((name, _change_kind(previous, argument), previous.description, argument.description))
    for name, argument in before:
        if name not in dict(after):
            found.append((name, "arguments", argument.description, "-"))
    return found


def _change_kind(before: Argument, after: Argument) -> str:
    if before.kind == after.kind == "tensor":
        dtype_before, dtype_after = before.description.split("[")[0], after.description.split("[")[0]
        return "dtype" if dtype_before != dtype_after else "shape"
    if after.kind == "object":
        return "object"
    if before.kind == after.kind:
        return before.kind
    return "type"


class FunctionRecord(object):
    """One Python function's calls and traces, over every `tf.function` object made of it.

    A *traced call* is a call during which the function traced (a first call that creates variables traces
    twice: one traced call). A trace made outside any call (`get_concrete_function`) is counted with the next
    call. A trace is compared with the last trace of the same tf.function object: what differs made its cache
    miss. An object's first trace is a change only when an object of the same *variant* traced before (the same
    Python function closing over the same functions: Keras builds its train and test functions from one Python
    function, each a variant, neither "created again").
    """

    def __init__(self, name: str, path: str, line: int) -> None:
        self.name = name
        self.path = path
        self.line = line
        self.calls = 0
        self.call_seconds = 0.0
        self.traces = 0
        self.trace_seconds = 0.0
        #: Call numbers (1-based) of the traced calls, in order.
        self.traced_calls: List[int] = []
        self.traced_call_count = 0
        #: Traced calls per tf.function object (its cache's id): a count that grows means one object's cache does.
        self._object_calls: Dict[int, int] = {}
        self._last_traced_call = 0
        self.sites: Dict[Tuple[str, int], int] = {}
        self.changes: Dict[Tuple[str, str], Change] = {}
        #: The last trace's arguments of each recent tf.function object, and the variants seen.
        self._last_of_object: Dict[int, Sequence[Tuple[str, Argument]]] = {}
        self._variants: set = set()
        #: The user's lines that created the tf.function objects after the first of their variant (a function or
        #: a model created per call: the line to change), with how many objects each created.
        self.created_sites: Dict[Tuple[str, int], int] = {}
        #: The user's lines that built the Keras models of the tf.function objects made again for a model not
        #: seen before (a model built per call), with how many models each built; the recent models' serials.
        self.built_sites: Dict[Tuple[str, int], int] = {}
        self._models: Dict[int, None] = {}
        self.first_arguments: List[Tuple[str, str]] = []
        self.alerted = False

    def called(self, seconds: float) -> None:
        """One finished call."""
        self.calls += 1
        self.call_seconds += seconds

    def traced(self, seconds: float, arguments: Sequence[Tuple[str, Argument]], cache: int,
               site: Optional[Tuple[str, int]], variant: Any = None,
               created: Optional[Tuple[str, int]] = None,
               model: Optional[Tuple[int, Tuple[str, int]]] = None) -> bool:
        """One trace (made during call `self.calls + 1`, the call in progress) by the tf.function object `cache` of
        `variant`, created at the user's line `created`, of the Keras model `model` ((serial, the user's line that
        built it), None: none known); True when it is a new traced call."""
        call = self.calls + 1
        self.traces += 1
        self.trace_seconds += seconds
        new_call = call != self._last_traced_call
        if new_call:
            self._last_traced_call = call
            self.traced_call_count += 1
            if len(self.traced_calls) < MAX_TRACED_CALLS:
                self.traced_calls.append(call)
            self._object_calls[cache] = self._object_calls.get(cache, 0) + 1
            if site is not None and (site in self.sites or len(self.sites) < MAX_SITES):
                self.sites[site] = self.sites.get(site, 0) + 1
        if self.traces == 1:
            self.first_arguments = [(name, argument.description) for name, argument in arguments]
        last = self._last_of_object.pop(cache, None)
        if last is not None:
            self._note_changes(changes_between(last, arguments), call, site)
        elif variant in self._variants:  # a new object where one of its variant traced before: created again
            self._note_changes([("", "new-function", "", "")], call, site)
            if created is not None and (created in self.created_sites or len(self.created_sites) < MAX_SITES):
                self.created_sites[created] = self.created_sites.get(created, 0) + 1
            if model is not None and model[0] not in self._models and self._models:  # of a model built again
                built = tuple(model[1])
                if built in self.built_sites or len(self.built_sites) < MAX_SITES:
                    self.built_sites[built] = self.built_sites.get(built, 0) + 1
        if model is not None and last is None:  # a model compiled again keeps its serial: not "built again"
            self._models.pop(model[0], None)
            self._models[model[0]] = None
            if len(self._models) > MAX_OBJECTS:
                del self._models[next(iter(self._models))]
        self._variants.add(variant)
        self._last_of_object[cache] = arguments  # re-inserted last: the oldest object is dropped first
        if len(self._last_of_object) > MAX_OBJECTS:
            del self._last_of_object[next(iter(self._last_of_object))]
        return new_call

    def _note_changes(self, found: Sequence[Tuple[str, str, str, str]], call: int,
                      site: Optional[Tuple[str, int]]) -> None:
        for argument, kind, before, after in found:
            change = self.changes.get((argument, kind))
            if change is not None:
                change.count += 1
                change.before, change.after = change.before if kind == "object" else before, after
            elif len(self.changes) < MAX_CHANGES:
                change = self.changes[(argument, kind)] = Change(argument, kind, before, after, call)
            else:
                continue
            change.seen(after, site)

    @property
    def objects(self) -> int:
        """How many tf.function objects of this Python function traced."""
        return len(self._object_calls)

    @property
    def variants(self) -> int:
        """How many variants of this Python function traced (see the class docstring)."""
        return len(self._variants)

    @property
    def most_traced_calls_of_one_object(self) -> int:
        """The most traced calls one tf.function object made (its cache's size, about)."""
        return max(self._object_calls.values(), default=0)

    def top_site(self) -> Optional[Tuple[str, int]]:
        """The user's line that called the traced calls most often."""
        if not self.sites:
            return None
        return max(self.sites.items(), key=lambda item: item[1])[0]

    def top_changes(self) -> List[Change]:
        """The changes, what keeps changing first (`Change.rank`)."""
        return sorted(self.changes.values(), key=Change.rank)

    def retrace_site(self) -> Optional[Tuple[str, int]]:
        """The user's line to blame: the calling line of most traces of the leading change (a function traced from
        several lines, tensors first and Python literals after, is blamed where the literals retrace), else the
        line of most traced calls."""
        changes = self.top_changes()
        return (changes[0].top_site() if changes else None) or self.top_site()

    def created_site(self) -> Optional[Tuple[str, int]]:
        """The user's line that created most of the tf.function objects made again, or None."""
        if not self.created_sites:
            return None
        return max(self.created_sites.items(), key=lambda item: item[1])[0]

    def built_site(self) -> Optional[Tuple[str, int]]:
        """The user's line that built most of the Keras models whose functions were made again, or None."""
        if not self.built_sites:
            return None
        return max(self.built_sites.items(), key=lambda item: item[1])[0]

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready facts of this function."""
        return {
            "function": self.name, "path": self.path, "line": self.line, "calls": self.calls,
            "traces": self.traces, "traced_calls": self.traced_call_count,
            "traced_call_numbers": self.traced_calls[:1000], "objects": self.objects,
            "most_traced_calls_of_one_object": self.most_traced_calls_of_one_object,
            "trace_seconds": self.trace_seconds,
            "run_seconds": max(0.0, self.call_seconds - self.trace_seconds),
            "call_sites": [{"path": path, "line": line, "traced_calls": count}
                           for (path, line), count in sorted(self.sites.items(), key=lambda item: -item[1])],
            "first_arguments": [{"argument": name, "value": value} for name, value in self.first_arguments],
            "changes": [change.to_dict() for change in self.top_changes()],
            "created_at": [{"path": path, "line": line, "objects": count}
                           for (path, line), count in sorted(self.created_sites.items(), key=lambda item: -item[1])],
            "built_at": [{"path": path, "line": line, "models": count}
                         for (path, line), count in sorted(self.built_sites.items(), key=lambda item: -item[1])],
        }
