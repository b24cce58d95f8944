"""The value a setting holds unless the user changes it: a command-line default, a keyword default, a class attribute.

``if step % self.n_critic == 0:`` is a frequency guard only when ``n_critic`` is more than 1; with
``n_critic`` defaulting to 1 (``parser.add_argument('--n_critic', type=int, default=1)``,
``def __init__(self, n_critic=1)``, ``class GAN: n_critic = 1``) the branch runs on every step as the
program ships.  :func:`default_number` reads such a default (for a parameter, what every call site of
the module passes, its default where a call passes nothing), and answers None whenever one reading of the
expression gives another value or none can be read.
"""

from __future__ import annotations

import os
from typing import List, Optional, Tuple

from astroid import nodes

from tfguard.static.analysis.devices import devices, option_default
from tfguard.static.analysis.inference import argument_for
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.scopes import FUNCTIONS

_MAX_DEPTH = 6
#: How many files of a module's folder are read for the options it uses.
_MAX_SIBLINGS = 64


def default_number(module: ModuleAnalysis, expr: nodes.NodeNG) -> Optional[float]:
    """Return the number ``expr`` holds by default, or None when it is unknown or may differ."""
    found = _default(module, expr, 0)
    return found[0] if found is not None else None


def default_constant(module: ModuleAnalysis, expr: nodes.NodeNG) -> Optional[nodes.Const]:
    """Return the constant :func:`default_origin` names (the line a message points at), None when it names none."""
    found = _default(module, expr, 0)
    return None if found is None or found[1] is expr else found[1]


def default_origin(module: ModuleAnalysis, expr: nodes.NodeNG) -> str:
    """Say, for messages, which default gives ``expr`` its value: "the argparse default of `--n_critic`
    (line 35)", "the keyword default `n_critic=1` of `__init__()` (line 8)", "`LOG_EVERY = 1` (line 5)";
    "" when it is ``expr`` itself or unknown."""
    found = _default(module, expr, 0)
    if found is None or found[1] is expr:
        return ""
    const = found[1]
    parent = const.parent
    elsewhere = const.root() is not module.module and const.root().file
    line = f"({os.path.basename(const.root().file)}:{const.lineno})" if elsewhere else f"(line {const.lineno})"
    if isinstance(parent, nodes.Keyword):
        parent = parent.parent
    if isinstance(parent, nodes.Call):
        name, _ = option_default(parent)
        if isinstance(parent.func, nodes.Attribute) and parent.func.attrname == "add_argument":
            return f"the argparse default of `--{name}` {line}"
        return f"the flag default of `{name}` {line}"
    if isinstance(parent, nodes.Arguments):
        function = parent.parent
        names = [a.name for a in (*(parent.args or []), *(parent.kwonlyargs or []))]
        defaults = [*(parent.defaults or []), *(d for d in parent.kw_defaults or [] if d is not None)]
        keyword = next((n for n, d in zip(names[len(names) - len(defaults):], defaults) if d is const), None)
        if keyword is not None:
            return f"the keyword default `{keyword}={const.as_string()}` of `{function.name}()` {line}"
    if isinstance(parent, nodes.Assign):
        return f"`{parent.as_string()}` {line}"
    return ""


def _default(module: ModuleAnalysis, expr: nodes.NodeNG, depth: int) -> Optional[Tuple[float, nodes.Const]]:
    """(the number ``expr`` holds by default, the constant that wrote it), or None."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(expr, nodes.Const):
        value = expr.value
        return (value, expr) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if isinstance(expr, nodes.Name):
        return _agreed([_binding_number(module, b, depth) for b in module.dataflow.definitions(expr, expr.name)])
    if isinstance(expr, nodes.Attribute):
        return _attribute_number(module, expr, depth)
    return None


def _agreed(values: List[Optional[Tuple[float, nodes.Const]]]) -> Optional[Tuple[float, nodes.Const]]:
    """The one value every reading gives (with the first constant that wrote it); None if any is unknown or
    two differ."""
    if not values or any(v is None for v in values) or len({v[0] for v in values}) != 1:
        return None
    return values[0]


def _binding_number(module: ModuleAnalysis, binding: nodes.NodeNG, depth: int) -> Optional[Tuple[float, nodes.Const]]:
    parent = binding.parent
    if isinstance(parent, nodes.Assign) and binding in parent.targets:
        return _default(module, parent.value, depth + 1)
    if isinstance(parent, nodes.Arguments):
        return _parameter_number(module, parent, binding, depth)
    return None


def _parameter_number(module: ModuleAnalysis, arguments: nodes.Arguments, parameter: nodes.AssignName,
                      depth: int) -> Optional[Tuple[float, nodes.Const]]:
    """What a parameter holds: what every call site in the module passes (its default where it passes
    nothing); with no call site in the module, its default."""
    function = arguments.parent
    default = _parameter_default(arguments, parameter)
    if not isinstance(function, FUNCTIONS):
        return None
    sites = module.dataflow.inference.call_sites(function)
    if sites is None:
        return None  # too many call sites to read
    if not sites:
        return _default(module, default, depth + 1) if default is not None else None
    passed = [argument_for(call, function, parameter.name, bound) for call, bound in sites]
    return _agreed([_default(module, p, depth + 1) if isinstance(p, nodes.NodeNG) else None for p in passed])


def _parameter_default(arguments: nodes.Arguments, parameter: nodes.AssignName) -> Optional[nodes.NodeNG]:
    """The default expression of a parameter (``n_critic=1``), or None without one."""
    positional = list(arguments.posonlyargs or []) + list(arguments.args or [])
    if parameter in positional:
        index = positional.index(parameter) - (len(positional) - len(arguments.defaults or []))
        return arguments.defaults[index] if index >= 0 else None
    if parameter in (arguments.kwonlyargs or []):
        return (arguments.kw_defaults or [])[arguments.kwonlyargs.index(parameter)]
    return None


def _attribute_number(module: ModuleAnalysis, expr: nodes.Attribute, depth: int) -> Optional[Tuple[float, nodes.Const]]:
    """``self.n`` from ``self.n = n`` / a class attribute; ``args.n`` / ``FLAGS.n`` from their option default."""
    if isinstance(expr.expr, nodes.Name) and expr.expr.name == "self":
        function = expr.scope()
        cls = function.parent if isinstance(function, FUNCTIONS) else None
        if not isinstance(cls, nodes.ClassDef):
            return None
        values: List[Optional[Tuple[float, nodes.Const]]] = []
        for target in module.dataflow.instance_attributes(cls).get(expr.attrname, ()):
            statement = target.parent
            values.append(_default(module, statement.value, depth + 1)
                          if isinstance(statement, nodes.Assign) else None)
        for binding in cls.locals.get(expr.attrname, ()):
            values.append(_binding_number(module, binding, depth) if isinstance(binding, nodes.AssignName) else None)
        return _agreed(values)
    default = devices(module).option_defaults().get(expr.attrname)
    if default is None:
        return _sibling_option(module, expr.attrname, depth)
    return _default(module, default, depth + 1)


def _sibling_option(module: ModuleAnalysis, name: str, depth: int) -> Optional[Tuple[float, nodes.Const]]:
    """The default of an option the module reads but does not define (``self.n_critic = args.n_critic`` in
    ``WGAN.py``, the parser in ``main.py`` beside it): what the project files of its folder that define it
    agree on. Those files become dependencies of the module's findings."""
    project = module.project
    here = module.module.file
    if project is None or not here:
        return None
    folder = os.path.dirname(os.path.abspath(here))
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".py"))[:_MAX_SIBLINGS]
    except OSError:
        return None
    found = []
    for filename in names:
        path = os.path.join(folder, filename)
        if path == os.path.abspath(here) or not _may_define(path, name):
            continue
        other = project.analysis(path)
        if other is None:
            continue
        default = devices(other).option_defaults().get(name)
        if default is not None:
            project.note_dependency(here, path)
            found.append(_default(other, default, depth + 1))
    return _agreed(found) if found else None


def _may_define(path: str, name: str) -> bool:
    """A cheap test on the bytes: the file defines options and names ``name``."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return False
    return (b"add_argument" in data or b"DEFINE_" in data) and name.encode("ascii", "ignore") in data
