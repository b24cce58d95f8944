"""Device facts of one module: GPU pins, the sessions it creates and what their configs set.

* :meth:`DeviceAnalysis.device_text` reads a device string as written:
  ``'/gpu:1'``, ``'/device:GPU:%d' % i``, ``'/gpu:{}'.format(i)``, ``f'/gpu:{i}'``,
  ``'/gpu:' + str(i)``, a name bound to one of these, a loop over a list of them (written in
  place, built by a comprehension, sliced, through ``enumerate``/``zip``) or an item of one, or a call of a
  project function (a device function) handed one.
* :meth:`DeviceAnalysis.sessions` lists session creations with their ``config``.
* :meth:`DeviceAnalysis.config_options` follows a ``ConfigProto`` through names,
  ``config.X = …`` / ``config.gpu_options.X = …`` assignments and local helpers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List, Optional

from astroid import nodes

from tfguard.static.analysis.inference import argument_for
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.scopes import FUNCTIONS, own_nodes, owner_scope
from tfguard.static.analysis.tfapi import CONFIG_CLASSES, DEVICE_APIS, SESSION_CREATORS

#: A device string that names a GPU: ``/gpu:0``, ``/device:GPU:1``, ``/job:w/task:0/gpu:0``.
GPU_DEVICE = re.compile(r"(?:^|/)(?:device:)?gpu(?::|$)", re.IGNORECASE)

#: Option keys (dotted after the config object) that bound GPU memory.
MEMORY_OPTIONS = ("gpu_options.allow_growth", "gpu_options.per_process_gpu_memory_fraction")

_SESSION_FACTORIES = frozenset({
    "tensorflow.Session", "tensorflow.InteractiveSession", "tensorflow.train.MonitoredTrainingSession",
    "tensorflow.train.MonitoredSession", "tensorflow.train.SingularMonitoredSession",
})
_ENVIRONMENT_WRITES = frozenset({"os.putenv", "os.environ.setdefault", "os.environ.update"})
_SUPERVISOR_SESSION_METHODS = frozenset({"managed_session", "prepare_or_wait_for_session"})
_MAX_DEPTH = 12
#: Calls that define a command-line option with a default: argparse and tf.app.flags / absl flags.
_OPTION_DEFINERS = frozenset({"add_argument", "DEFINE_string", "DEFINE_integer"})


@dataclass(frozen=True)
class SessionSite:
    """A call that creates a session, and the expression passed as its ``config`` (None: no config)."""

    node: nodes.Call
    config: Optional[nodes.NodeNG]


def devices(module: ModuleAnalysis) -> "DeviceAnalysis":
    """Return the module's memoised :class:`DeviceAnalysis`."""
    return module.facts("devices", DeviceAnalysis)


def is_literal_true(node: Optional[nodes.NodeNG]) -> bool:
    """Return whether ``node`` is the constant ``True``."""
    return isinstance(node, nodes.Const) and node.value is True


def is_literal_false(node: Optional[nodes.NodeNG]) -> bool:
    """Return whether ``node`` is a constant that is false (``False``, ``0``, ``None``)."""
    return isinstance(node, nodes.Const) and not node.value


class DeviceAnalysis:
    """Memoised device, session and config facts of one module."""

    def __init__(self, module: ModuleAnalysis) -> None:
        self.module = module
        self._sessions: Optional[List[SessionSite]] = None
        self._gpu_pins: Optional[List[nodes.Call]] = None
        self._option_defaults: Optional[Dict[str, nodes.NodeNG]] = None

    # -- device strings ---------------------------------------------------------------

    def device_text(self, expr: Optional[nodes.NodeNG], depth: int = 0) -> Optional[str]:
        """Return a device string as written (placeholders kept), or None when it cannot be read."""
        if expr is None or depth > _MAX_DEPTH:
            return None
        if isinstance(expr, nodes.Const):
            return expr.value if isinstance(expr.value, str) else None
        if isinstance(expr, nodes.JoinedStr):
            return "".join(
                part.value if isinstance(part, nodes.Const) else "{}" for part in expr.values
            )
        if isinstance(expr, nodes.BinOp) and expr.op == "%":
            return self.device_text(expr.left, depth + 1)
        if isinstance(expr, nodes.BinOp) and expr.op == "+":
            left = self.device_text(expr.left, depth + 1)
            right = self.device_text(expr.right, depth + 1)
            return (left or "") + (right or "{}") if left is not None else None
        if isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Attribute) and expr.func.attrname == "format":
            return self.device_text(expr.func.expr, depth + 1)
        if isinstance(expr, nodes.Call) and isinstance(self.module.called_function(expr), nodes.FunctionDef):
            # a device function of the project handed the device: ``assign_to_device('/gpu:{}'.format(i),
            # ps_device='/cpu:0')`` places the tower's ops on the GPU it was given (variables elsewhere)
            arguments = [*expr.args, *(keyword.value for keyword in expr.keywords or ())]
            return _gpu_first([self.device_text(argument, depth + 1) for argument in arguments])
        if isinstance(expr, nodes.IfExp):
            texts = [self.device_text(e, depth + 1) for e in (expr.body, expr.orelse)]
            return _gpu_first(texts)
        if isinstance(expr, nodes.Name):
            return _gpu_first(self._name_texts(expr, depth))
        if isinstance(expr, nodes.Subscript) and not isinstance(expr.slice, nodes.Slice):
            # ``devices[i]`` of a list of device strings
            return _gpu_first([self.device_text(e, depth + 1) for e in self._literal_elements(expr.value, depth + 1)])
        if isinstance(expr, nodes.Attribute):
            default = self.option_defaults().get(expr.attrname)
            return self.device_text(default, depth + 1) if default is not None else None
        return None

    def _name_texts(self, name: nodes.Name, depth: int) -> List[Optional[str]]:
        texts: List[Optional[str]] = []
        for binding in self.module.dataflow.definitions(name, name.name):
            parent = binding.parent
            if isinstance(parent, (nodes.Assign, nodes.AnnAssign)):
                texts.append(self.device_text(parent.value, depth + 1))
            elif isinstance(parent, (nodes.For, nodes.Comprehension, nodes.Tuple)):
                # ``for device in gpus``, ``for i, device in enumerate(gpus)``,
                # ``for i, (device, batch) in enumerate(zip(gpus, batches))``
                texts.extend(self.device_text(e, depth + 1) for e in self._loop_elements(binding, depth))
            elif isinstance(parent, nodes.Arguments):
                texts.extend(self._argument_texts(binding, depth))
        return texts

    def _loop_elements(self, binding: nodes.AssignName, depth: int) -> List[nodes.NodeNG]:
        """Return the expressions a loop target takes from its iterable, through ``enumerate`` and ``zip``."""
        positions: List[int] = []
        node: nodes.NodeNG = binding
        while isinstance(node.parent, nodes.Tuple):
            positions.append(node.parent.elts.index(node))
            node = node.parent
        loop = node.parent
        if not isinstance(loop, (nodes.For, nodes.Comprehension)) or loop.target is not node:
            return []
        iterable: Optional[nodes.NodeNG] = loop.iter
        for position in reversed(positions):
            call = iterable if isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Name) else None
            if call is not None and call.func.name == "enumerate" and call.args and position == 1:
                iterable = call.args[0]
            elif call is not None and call.func.name == "zip" and position < len(call.args):
                iterable = call.args[position]
            else:
                return []
        return self._literal_elements(iterable, depth)

    def _literal_elements(self, expr: Optional[nodes.NodeNG], depth: int = 0) -> List[nodes.NodeNG]:
        """Return the elements of a list written in place or bound to a name.

        A literal list or tuple gives its elements; a comprehension (``['/gpu:%d' % i for i in
        range(n)]``) its element expression; a slice (``gpus[:n]``) and a concatenation the
        elements of their lists; a name the elements of every list it is bound to.
        """
        if expr is None or depth > _MAX_DEPTH:
            return []
        if isinstance(expr, (nodes.List, nodes.Tuple)):
            return list(expr.elts)
        if isinstance(expr, (nodes.ListComp, nodes.GeneratorExp)):
            return [expr.elt]
        if isinstance(expr, nodes.Subscript) and isinstance(expr.slice, nodes.Slice):
            return self._literal_elements(expr.value, depth + 1)
        if isinstance(expr, nodes.BinOp) and expr.op == "+":
            return self._literal_elements(expr.left, depth + 1) + self._literal_elements(expr.right, depth + 1)
        if isinstance(expr, nodes.BinOp) and expr.op == "*":
            return self._literal_elements(expr.left, depth + 1)
        if isinstance(expr, nodes.Name):
            elements: List[nodes.NodeNG] = []
            for binding in self.module.dataflow.definitions(expr, expr.name):
                value = binding.parent.value if isinstance(binding.parent, nodes.Assign) else None
                if value is None or binding not in binding.parent.targets or any(
                    name.name == expr.name for name in value.nodes_of_class(nodes.Name)
                ):
                    continue  # ``gpus = [gpus[0], gpus[0]]`` adds nothing the first binding lacks
                elements.extend(self._literal_elements(value, depth + 1))
            return elements
        return []

    def _argument_texts(self, parameter: nodes.AssignName, depth: int) -> List[Optional[str]]:
        """Return the device strings the call sites of a helper pass for ``parameter``."""
        function = parameter.parent.parent
        if not isinstance(function, FUNCTIONS):
            return []
        sites = self.module.dataflow.inference.call_sites(function) or []
        return [self.device_text(argument_for(call, function, parameter.name, bound), depth + 1)
                for call, bound in sites]

    def option_defaults(self) -> Dict[str, nodes.NodeNG]:
        """Return the default of each command-line option the module defines, by attribute name.

        ``parser.add_argument("--device", default="/gpu:0")`` and
        ``tf.app.flags.DEFINE_string("device", "/gpu:0", ...)`` make ``args.device`` / ``FLAGS.device``
        read as ``"/gpu:0"``.
        """
        if self._option_defaults is None:
            defaults: Dict[str, nodes.NodeNG] = {}
            for call in self.module.candidate_calls(frozenset(), _OPTION_DEFINERS):
                name, default = option_default(call)
                if name and default is not None:
                    defaults.setdefault(name, default)
            self._option_defaults = defaults
        return self._option_defaults

    def gpu_pin(self, call: nodes.NodeNG) -> Optional[str]:
        """Return the GPU device string a ``tf.device(...)`` call pins to, or None."""
        if not isinstance(call, nodes.Call) or not call.args:
            return None
        if self.module.call_named(call, DEVICE_APIS) is None:
            func = call.func
            is_graph_device = isinstance(func, nodes.Attribute) and func.attrname == "device" and (
                (self.module.value(func.expr) or _NO_VALUE).kind == "graph"
            )
            if not is_graph_device:
                return None
        text = self.device_text(call.args[0])
        return text if text is not None and GPU_DEVICE.search(text) else None

    def gpu_pins(self) -> List[nodes.Call]:
        """Return every ``tf.device`` call of the module that pins to a GPU, in source order."""
        if self._gpu_pins is None:
            self._gpu_pins = [
                call for call in self.module.candidate_calls(DEVICE_APIS) if self.gpu_pin(call) is not None
            ]
        return self._gpu_pins

    # -- sessions and configs ---------------------------------------------------------

    def sessions(self) -> List[SessionSite]:
        """Return every session the module creates, with its config expression."""
        if self._sessions is None:
            candidates = self.module.candidate_calls(_SESSION_FACTORIES, _SUPERVISOR_SESSION_METHODS)
            self._sessions = [site for call in candidates if (site := self._session(call))]
        return self._sessions

    def _session(self, call: nodes.Call) -> Optional[SessionSite]:
        qualname = self.module.call_named(call, _SESSION_FACTORIES)
        if qualname in ("tensorflow.Session", "tensorflow.InteractiveSession"):
            return SessionSite(call, _argument(call, "config", 2))
        if qualname == "tensorflow.train.MonitoredTrainingSession":
            return SessionSite(call, _argument(call, "config", None))
        if qualname in ("tensorflow.train.MonitoredSession", "tensorflow.train.SingularMonitoredSession"):
            creator = _argument(call, "session_creator", 0)
            if self.module.call_named(creator, SESSION_CREATORS):
                return SessionSite(call, _argument(creator, "config", None))
            return SessionSite(call, None) if creator is None else None
        func = call.func
        if isinstance(func, nodes.Attribute) and func.attrname in _SUPERVISOR_SESSION_METHODS:
            receiver = self.module.value(func.expr)
            if receiver is not None and receiver.api == "tensorflow.train.Supervisor":
                return SessionSite(call, _argument(call, "config", 1))
        return None

    def config_options(self, expr: Optional[nodes.NodeNG], depth: int = 0) -> Optional[Dict[str, nodes.NodeNG]]:
        """Return the options a session config sets (``gpu_options.allow_growth`` → value node).

        ``{}`` for no config at all; None when the config cannot be followed
        (a parameter, ``**kwargs``, a call into another module).
        """
        if expr is None or (isinstance(expr, nodes.Const) and expr.value is None):
            return {}
        if depth > _MAX_DEPTH:
            return None
        if isinstance(expr, nodes.Call):
            return self._call_options(expr, depth)
        if isinstance(expr, nodes.Name):
            return self._name_options(expr, depth)
        return None

    def _call_options(self, call: nodes.Call, depth: int) -> Optional[Dict[str, nodes.NodeNG]]:
        if self.module.call_named(call, CONFIG_CLASSES):
            options: Dict[str, nodes.NodeNG] = {}
            for keyword in call.keywords or ():
                if keyword.arg is None:
                    return None
                options[keyword.arg] = keyword.value
                if keyword.arg == "gpu_options":
                    inner = self.config_options(keyword.value, depth + 1) or {}
                    options.update({f"gpu_options.{key}": value for key, value in inner.items()})
            return options
        function = self.module.called_function(call)
        if function is None:
            return None
        returns = [n.value for n in own_nodes(function) if isinstance(n, nodes.Return) and n.value is not None]
        if len(returns) != 1:
            return None
        return self.config_options(returns[0], depth + 1)

    def _name_options(self, name: nodes.Name, depth: int) -> Optional[Dict[str, nodes.NodeNG]]:
        binding = self.module.dataflow.reaching_definition(name)
        if not (isinstance(binding, nodes.AssignName) and isinstance(binding.parent, nodes.Assign)):
            return None
        options = self.config_options(binding.parent.value, depth + 1)
        if options is None:
            return None
        options = dict(options)
        scope = owner_scope(binding) or self.module.module
        for node in own_nodes(scope):
            if isinstance(node, nodes.Assign):
                for target in node.targets:
                    path = _attribute_path(target, binding.name)
                    if path:
                        options[path] = node.value
        return options

    def sets_option(self, options: Dict[str, nodes.NodeNG], key: str) -> bool:
        """Return whether ``options`` sets ``key`` to something other than a false literal."""
        return key in options and not is_literal_false(options[key])

    # -- environment ------------------------------------------------------------------

    def sets_env_allow_growth(self) -> bool:
        """Return whether the module sets ``TF_FORCE_GPU_ALLOW_GROWTH`` in ``os.environ``."""
        candidates = self.module.nodes_of(nodes.Assign, nodes.Call)
        return any(env_var_written(self.module, node) == "TF_FORCE_GPU_ALLOW_GROWTH" for node in candidates)


def env_var_written(module: ModuleAnalysis, node: nodes.NodeNG) -> Optional[str]:
    """Return the environment variable a statement or call sets, if any.

    Handles ``os.environ[NAME] = …``, ``os.environ.update({NAME: …})`` /
    ``update(NAME=…)``, ``os.environ.setdefault(NAME, …)`` and ``os.putenv(NAME, …)``;
    an ``update`` with several names yields the first.
    """
    if isinstance(node, nodes.Assign):
        for target in node.targets:
            if isinstance(target, nodes.Subscript) and module.qualname(target.value) == "os.environ":
                return _string(target.slice)
        return None
    if not isinstance(node, nodes.Call):
        return None
    qualname = module.call_named(node, _ENVIRONMENT_WRITES)
    if qualname in ("os.putenv", "os.environ.setdefault") and node.args:
        return _string(node.args[0])
    if qualname == "os.environ.update":
        names = [k.arg for k in node.keywords or () if k.arg]
        for arg in node.args:
            if isinstance(arg, nodes.Dict):
                names.extend(_string(key) for key, _ in arg.items)
        names = [n for n in names if n]
        return "CUDA_VISIBLE_DEVICES" if "CUDA_VISIBLE_DEVICES" in names else (names[0] if names else None)
    return None


class _NoValue:
    kind = None


_NO_VALUE = _NoValue()


def _gpu_first(texts: List[Optional[str]]) -> Optional[str]:
    known = [t for t in texts if t is not None]
    for text in known:
        if GPU_DEVICE.search(text):
            return text
    return known[0] if known else None


def _argument(call: nodes.Call, keyword: str, index: Optional[int]) -> Optional[nodes.NodeNG]:
    for kw in call.keywords or ():
        if kw.arg == keyword:
            return kw.value
    if index is not None and len(call.args) > index:
        return call.args[index]
    return None


def _attribute_path(target: nodes.NodeNG, root: str) -> Optional[str]:
    """Return ``gpu_options.allow_growth`` for a target ``<root>.gpu_options.allow_growth``."""
    parts: List[str] = []
    node = target
    while isinstance(node, (nodes.AssignAttr, nodes.Attribute)):
        parts.append(node.attrname)
        node = node.expr
    if isinstance(node, nodes.Name) and node.name == root and parts:
        return ".".join(reversed(parts))
    return None


def option_default(call: nodes.Call) -> tuple:
    """Return (attribute name, default expression) of an ``add_argument`` / ``DEFINE_*`` call."""
    func = call.func
    leaf = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", "")
    if leaf == "add_argument":
        dest = _argument(call, "dest", None)
        name = _string(dest)
        if name is None:
            options = [_string(arg) for arg in call.args]
            long_names = [o for o in options if o and o.startswith("--")]
            short = [o for o in options if o and o.startswith("-")]
            chosen = long_names[0] if long_names else (short[0] if short else None)
            name = chosen.lstrip("-").replace("-", "_") if chosen else None
        return name, _argument(call, "default", None)
    name = _string(_argument(call, "name", 0))
    return name, _argument(call, "default", 1)


def _string(node: Optional[nodes.NodeNG]) -> Optional[str]:
    return node.value if isinstance(node, nodes.Const) and isinstance(node.value, str) else None
