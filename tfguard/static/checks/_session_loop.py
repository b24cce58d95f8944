"""Shared machinery of the rules that flag graph building inside ``sess.run`` loops (TFG101–TFG108).

Each rule claims the build sites it is about (by TF API or method name) and has
a priority; every build site in a session loop is reported once, under the
claiming rule with the highest priority (the most specific code wins).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Dict, FrozenSet, Iterable, List, Optional

from astroid import nodes

from tfguard.static.analysis.events import loop_text
from tfguard.static.analysis.module import OPERATOR_NODES, BuildEvent, BuildSite, ModuleAnalysis, describe
from tfguard.static.analysis.scopes import FUNCTIONS, LOOPS, own_nodes
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding
from tfguard.static.registry import all_rules


class LoopBuildRule(NodeRule):
    """A rule about something built on every iteration of a session loop."""

    #: Canonical TF names this rule is about.
    apis: ClassVar[FrozenSet[str]] = frozenset()
    #: Methods of TF objects this rule is about.
    methods: ClassVar[FrozenSet[str]] = frozenset()
    #: Higher wins when several rules claim one site.
    priority: ClassVar[int] = 10
    #: What the site does, as a verb phrase: "builds new save/restore ops".
    effect: ClassVar[str] = "adds new ops to the graph"
    #: How to fix it, as an imperative: "create it once, before the loop".
    fix: ClassVar[str] = ""

    def claims(self, site: BuildSite) -> bool:
        """Return whether this rule is about ``site``."""
        if site.api in self.apis:
            return True
        return site.api.startswith(".") and site.api[1:] in self.methods

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Yield this rule's share of the module's session-loop findings."""
        return [f for f in session_loop_findings(module) if f.code == self.code]

    def message(self, module: ModuleAnalysis, event: BuildEvent, loop: nodes.NodeNG) -> str:
        """Return the finding's message: what is built, in which loop, and the fix."""
        site = event.site
        if event.chain:
            where = event.chain[-1].path
            place = f"line {site.line}" if where == module.path else f"{where}:{site.line}"
            what = f"`{describe(event.node)}` calls `{site.display}` at {place}, which {self.effect}"
        else:
            what = f"`{site.display}` {self.effect}"
        return f"{what} on every iteration of {loop_text(loop)}; {self.fix}"


@dataclass(frozen=True)
class _Claim:
    node: nodes.NodeNG
    rule: LoopBuildRule
    event: BuildEvent
    loop: nodes.NodeNG


#: The only node types ModuleAnalysis.build_event can return an event for.
_BUILDING_NODES = (nodes.Call, *OPERATOR_NODES)



def session_loop_findings(module: ModuleAnalysis) -> List[Finding]:
    """Return the findings of every LoopBuildRule on ``module``, computed once per module."""
    return module.facts("session_loop_findings", _compute)


def _loop_rules() -> List[LoopBuildRule]:
    rules = [r for r in all_rules().values() if isinstance(r, LoopBuildRule)]
    return sorted(rules, key=lambda r: -r.priority)


def _best_claim(module: ModuleAnalysis, node, loop, rules: List[LoopBuildRule]) -> Optional[_Claim]:
    event = module.build_event(node)
    best: Optional[_Claim] = None
    for candidate in module.helper_events(event):
        for rule in rules:
            if best is not None and rule.priority <= best.rule.priority:
                break
            if rule.claims(candidate.site):
                best = _Claim(node, rule, candidate, loop)
                break
    return best


def _compute(module: ModuleAnalysis) -> List[Finding]:
    rules = _loop_rules()
    claims: Dict[int, _Claim] = {}
    # Only nodes inside a loop can be in a session loop, so only the outermost loops of
    # each scope are walked: walking every scope's whole code was most of the run time.
    for outer in _outermost_loops(module.module):
        for node in own_nodes(_Statements([outer])):
            if not isinstance(node, _BUILDING_NODES) or next(module.enclosing_loops(node), None) is None:
                continue  # cheap pre-tests: build_event is None for other nodes, session_loop_of outside loops
            if module.build_event(node) is None:
                continue
            loop = module.session_loop_of(node)
            if loop is None or module.fresh_graph_before(node, loop) or module.built_once(node, loop):
                continue
            claim = _best_claim(module, node, loop, rules)
            if claim is not None:
                claims[id(node)] = claim
    return [_finding(module, c) for c in claims.values() if not _inside_stronger_claim(c, claims)]


class _Statements:
    """A statement list, walked by ``own_nodes`` like a scope body."""

    def __init__(self, body: List[nodes.NodeNG]) -> None:
        self.body = body


_STATEMENT_LISTS = ("body", "orelse", "handlers", "finalbody", "cases")


def _outermost_loops(module: nodes.Module) -> List[nodes.NodeNG]:
    """Return, in source order, the loops of the module and of every function that no other loop of the same
    scope runs (their walk covers the loops nested in them).

    Only statement lists are walked: a loop is a statement and never sits inside an
    expression.  Loops directly in a class body belong to no scope (``ModuleAnalysis.scopes``)
    and are left out, the functions defined there are not.
    """
    found: List[nodes.NodeNG] = []
    stack = [(module, True)]
    while stack:
        node, record = stack.pop()
        if isinstance(node, LOOPS) and record:
            found.append(node)
            record = False
        elif isinstance(node, FUNCTIONS):
            record = True
        elif isinstance(node, nodes.ClassDef):
            record = False
        children = [child for name in _STATEMENT_LISTS for child in _statement_list(node, name)]
        stack.extend((child, record) for child in reversed(children))
    return found


def _statement_list(node: nodes.NodeNG, name: str) -> List[nodes.NodeNG]:
    children = getattr(node, name, None)
    return children if isinstance(children, list) else []


def _inside_stronger_claim(claim: _Claim, claims: Dict[int, _Claim]) -> bool:
    """A build nested in another reported build of at least its priority is not reported again."""
    parent = claim.node.parent
    while parent is not None and not parent.is_statement:
        outer = claims.get(id(parent))
        if outer is not None and outer.rule.priority >= claim.rule.priority:
            return True
        parent = parent.parent
    return False


def _finding(module: ModuleAnalysis, claim: _Claim) -> Finding:
    rule = claim.rule
    return rule.finding(module, claim.node, rule.message(module, claim.event, claim.loop), claim.event.chain)
