"""Chain links for the lines a finding's text names (issue 44: every line a message names is in the chain).

A message that says "`tf.Session()` at line 10" or "(and lines 41, 42)" names a line a reader (or a SARIF
viewer, an editor, a scorer) must be able to place: each such line becomes a :class:`ChainLink`, labelled
with the function it is in (``<module>`` at top level), after the hops the rule already has.
"""

from __future__ import annotations

from typing import Iterable, Sequence, Tuple, Union

from astroid import nodes

from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.analysis.scopes import FUNCTIONS, function_label
from tfguard.static.finding import ChainLink


def link_at(module: ModuleAnalysis, node: nodes.NodeNG) -> ChainLink:
    """Return the chain link for ``node``'s line: its file (another project module's when it lives there)
    and the function around it."""
    scope = node.scope()
    label = function_label(scope) if isinstance(scope, FUNCTIONS) else (
        "<lambda>" if isinstance(scope, nodes.Lambda) else "<module>")
    path = module.path
    if module.project is not None and node.root() is not module.module:
        owner = module.project.owner(node)
        path = owner.path if owner is not None else module.path
    return ChainLink(path, node.lineno, label)


def with_lines(chain: Sequence[ChainLink], module: ModuleAnalysis,
               named: Iterable[Union[nodes.NodeNG, ChainLink]], reported: int = 0) -> Tuple[ChainLink, ...]:
    """Return ``chain`` followed by a link for each node (or ready link) of ``named`` whose line it lacks (in
    order, once each); the finding's own line ``reported`` (in this module) needs no link."""
    links = list(chain)
    seen = {(link.path, link.line) for link in links} | {(module.path, reported)}
    for node in named:
        link = node if isinstance(node, ChainLink) else link_at(module, node)
        if (link.path, link.line) not in seen:
            seen.add((link.path, link.line))
            links.append(link)
    return tuple(links)


def with_default(chain: Sequence[ChainLink], module: ModuleAnalysis, steps, call: nodes.NodeNG,
                 loop: nodes.NodeNG) -> Tuple[ChainLink, ...]:
    """Return ``chain`` and the default a cadence message names ("`--log_every` defaults to 1 (line 14)"): the
    line to change when a guard holds on every step as the program ships (``steps`` is the module's
    :class:`~tfguard.static.analysis.frequency.StepAnalysis`)."""
    return with_lines(chain, module, steps.shipped_defaults(call, loop), call.lineno)
