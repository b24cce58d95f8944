"""The value a setting holds unless the user changes it: a command-line default, a keyword default, a class attribute.

``if step % self.n_critic == 0:`` is a frequency guard only when ``n_critic`` is more than 1; with
``n_critic`` defaulting to 1 (``parser.add_argument('--n_critic', type=int, default=1)``,
``def __init__(self, n_critic=1)``, ``class GAN: n_critic = 1``) the branch runs on every step as the
program ships.  :func:`default_number` reads such a default (for a parameter, what every call site of
the module passes, its default where a call passes nothing), and answers None whenever one reading of the
expression gives another value or none can be read.
"""

from __future__ import annotations

from typing import List, Optional

from astroid import nodes

from tfguard.static.analysis.devices import devices
from tfguard.static.analysis.inference import argument_for
from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.scopes import FUNCTIONS

_MAX_DEPTH = 6


def default_number(module: ModuleAnalysis, expr: nodes.NodeNG, depth: int = 0) -> Optional[float]:
    """Return the number ``expr`` holds by default, or None when it is unknown or may differ."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(expr, nodes.Const):
        value = expr.value
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if isinstance(expr, nodes.Name):
        return _agreed([_binding_number(module, b, depth) for b in module.dataflow.definitions(expr, expr.name)])
    if isinstance(expr, nodes.Attribute):
        return _attribute_number(module, expr, depth)
    return None


def _agreed(values: List[Optional[float]]) -> Optional[float]:
    """The one value every reading gives; None if any is unknown or two differ."""
    if not values or any(v is None for v in values) or len(set(values)) != 1:
        return None
    return values[0]


def _binding_number(module: ModuleAnalysis, binding: nodes.NodeNG, depth: int) -> Optional[float]:
    parent = binding.parent
    if isinstance(parent, nodes.Assign) and binding in parent.targets:
        return default_number(module, parent.value, depth + 1)
    if isinstance(parent, nodes.Arguments):
        return _parameter_number(module, parent, binding, depth)
    return None


def _parameter_number(module: ModuleAnalysis, arguments: nodes.Arguments, parameter: nodes.AssignName,
                      depth: int) -> Optional[float]:
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
        return default_number(module, default, depth + 1) if default is not None else None
    passed = [argument_for(call, function, parameter.name, bound) for call, bound in sites]
    return _agreed([default_number(module, p, depth + 1) if isinstance(p, nodes.NodeNG) else None for p in passed])


def _parameter_default(arguments: nodes.Arguments, parameter: nodes.AssignName) -> Optional[nodes.NodeNG]:
    """The default expression of a parameter (``n_critic=1``), or None without one."""
    positional = list(arguments.posonlyargs or []) + list(arguments.args or [])
    if parameter in positional:
        index = positional.index(parameter) - (len(positional) - len(arguments.defaults or []))
        return arguments.defaults[index] if index >= 0 else None
    if parameter in (arguments.kwonlyargs or []):
        return (arguments.kw_defaults or [])[arguments.kwonlyargs.index(parameter)]
    return None


def _attribute_number(module: ModuleAnalysis, expr: nodes.Attribute, depth: int) -> Optional[float]:
    """``self.n`` from ``self.n = n`` / a class attribute; ``args.n`` / ``FLAGS.n`` from their option default."""
    if isinstance(expr.expr, nodes.Name) and expr.expr.name == "self":
        function = expr.scope()
        cls = function.parent if isinstance(function, FUNCTIONS) else None
        if not isinstance(cls, nodes.ClassDef):
            return None
        values: List[Optional[float]] = []
        for target in module.dataflow.instance_attributes(cls).get(expr.attrname, ()):
            statement = target.parent
            values.append(default_number(module, statement.value, depth + 1)
                          if isinstance(statement, nodes.Assign) else None)
        for binding in cls.locals.get(expr.attrname, ()):
            values.append(_binding_number(module, binding, depth) if isinstance(binding, nodes.AssignName) else None)
        return _agreed(values)
    default = devices(module).option_defaults().get(expr.attrname)
    return default_number(module, default, depth + 1) if default is not None else None
