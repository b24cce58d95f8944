"""Shared machinery of the rules that flag graph building inside ``sess.run`` loops (TFG101–TFG108).

Each rule claims the build sites it is about (by TF API or method name) and has
a priority; every build site in a session loop is reported once, under the
claiming rule with the highest priority (the most specific code wins).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Dict, FrozenSet, Iterable, List, Tuple

from astroid import nodes

from tfguard.static.analysis.frequency import frequency
from tfguard.static.analysis.module import OPERATOR_NODES, BuildEvent, BuildSite, ModuleAnalysis, describe
from tfguard.static.analysis.per_call import in_unit_test
from tfguard.static.analysis.scopes import FUNCTIONS, LOOPS, own_nodes
from tfguard.static.analysis.trip_counts import repeats_a_bounded_handful
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
    #: How to fix it, as an imperative: "create it once, before the loop" (the finding's help).
    advice: ClassVar[str] = ""
    #: Whether the rule's cost is paid per iteration whatever the graph does, so that a loop of a literal
    #: handful of iterations (the bounded-growth contract, ``trip_counts``) still counts.
    counts_small_loops: ClassVar[bool] = False

    def claims(self, site: BuildSite) -> bool:
        """Return whether this rule is about ``site``."""
        if site.api in self.apis:
            return True
        return site.api.startswith(".") and site.api[1:] in self.methods

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Yield this rule's share of the module's session-loop findings."""
        return [f for f in session_loop_findings(module) if f.code == self.code]

    def applies_at(self, module: ModuleAnalysis, node: nodes.NodeNG, loop: nodes.NodeNG, event: BuildEvent) -> bool:
        """Return whether ``event`` (a site this rule claims, reached from ``node`` in ``loop``) is a finding."""
        return True

    def message(self, module: ModuleAnalysis, event: BuildEvent, loop: nodes.NodeNG) -> Tuple[str, str]:
        """Return the finding's headline (what is built, in which loop) and help (the advice)."""
        site = event.site
        if event.chain:
            where = event.chain[-1].path
            place = f"line {site.line}" if where == module.path else f"{where}:{site.line}"
            what = f"`{describe(event.node)}` calls `{site.display}` at {place}, which {self.effect}"
        else:
            what = f"`{site.display}` {self.effect}"
        return f"{what} {frequency(module).iteration_words(event.node, loop)}", self.advice


@dataclass(frozen=True)
class _Claim:
    node: nodes.NodeNG
    rule: LoopBuildRule
    event: BuildEvent
    loop: nodes.NodeNG
    #: Further build sites of the same rule behind the same call (their links are in the event's chain).
    more_sites: int = 0


#: The only node types ModuleAnalysis.build_event can return an event for.
_BUILDING_NODES = (nodes.Call, *OPERATOR_NODES)



def session_loop_findings(module: ModuleAnalysis) -> List[Finding]:
    """Return the findings of every LoopBuildRule on ``module``, computed once per module."""
    return module.facts("session_loop_findings", _compute)


def _loop_rules() -> List[LoopBuildRule]:
    rules = [r for r in all_rules().values() if isinstance(r, LoopBuildRule)]
    return sorted(rules, key=lambda r: -r.priority)


def _claims(module: ModuleAnalysis, node, loop, rules: List[LoopBuildRule]) -> List[_Claim]:
    """Return one claim per rule that the build sites ``node`` reaches fall under.

    Each site goes to the highest-priority rule claiming it; a call reaching several problems
    (a helper that creates a Session and imports a graph) gets a claim from each specific rule, and
    the sites of one rule behind one call all go into that claim's chain.
    """
    event = module.build_event(node)
    by_rule: Dict[str, List[BuildEvent]] = {}
    ranked: Dict[str, LoopBuildRule] = {}
    for candidate in module.helper_events(event):
        rule = next((r for r in rules if r.claims(candidate.site)), None)
        if rule is not None and rule.applies_at(module, node, loop, candidate):
            by_rule.setdefault(rule.code, []).append(candidate)
            ranked[rule.code] = rule
    if len(by_rule) > 1:
        by_rule = _without_feeding_ops(by_rule, ranked, min(rule.priority for rule in rules))
    claims = []
    for code, events in by_rule.items():
        events = _outermost_sites(events)
        chain = list(events[0].chain)
        for other in events[1:]:
            chain.extend(link for link in other.chain if link not in chain)
        first = BuildEvent(events[0].node, events[0].site, tuple(chain))
        claims.append(_Claim(node, ranked[code], first, loop, len(events) - 1))
    return claims


#: Rules whose sites consume the ops a helper computes for them: a summary helper's ``tf.reduce_mean``
#: (or the ops of an imported graph) are part of that problem, not one of their own.
_CONSUMING_RULES = frozenset({"TFG107", "TFG104"})


def _without_feeding_ops(
    by_rule: Dict[str, List[BuildEvent]], ranked: Dict[str, LoopBuildRule], floor: int
) -> Dict[str, List[BuildEvent]]:
    """Leave out the catch-all rule's sites that are part of a specific rule's problem.

    With a summary (or graph-import) site behind the call, the catch-all rule (``op-in-session-loop``) does not
    speak. Otherwise its sites stay unless they feed a specific site: nested in its arguments
    (``tf.assign(lr, lr * 0.5)``) or bound to a name one of them reads. A helper called per item that builds
    ops, an initializer and a session has three problems, each reported at the call.
    """
    specific = {code: found for code, found in by_rule.items() if ranked[code].priority > floor}
    if not specific or specific.keys() & _CONSUMING_RULES:
        return specific
    targets = [event.site.node for found in specific.values() for event in found]
    kept = dict(specific)
    for code, found in by_rule.items():
        if code in specific:
            continue
        # Operators and subscripts (``paths[0]``) build ops only when their operand is a tensor, a weaker fact
        # than a TF call: next to a specific problem they stay quiet.
        own = [event for event in found if event.site.api != "operator" and not _feeds(event.site.node, targets)]
        if own:
            kept[code] = own
    return kept


def _feeds(node: nodes.NodeNG, targets: List[nodes.NodeNG]) -> bool:
    """Whether the op site ``node`` is nested in one of ``targets`` or binds a name one of them reads."""
    parent = node.parent
    while parent is not None and not parent.is_statement:
        if any(parent is target for target in targets):
            return True
        parent = parent.parent
    statement = node.statement()
    if not isinstance(statement, nodes.Assign):
        return False
    bound = {n.name for target in statement.targets for n in target.nodes_of_class(nodes.AssignName)}
    return any(
        isinstance(name, nodes.Name) and name.name in bound
        for target in targets for name in (target, *target.nodes_of_class(nodes.Name))
    )


def _compute(module: ModuleAnalysis) -> List[Finding]:
    rules = _loop_rules()
    claims: Dict[int, List[_Claim]] = {}
    # Only nodes inside a loop can be in a session loop, so only the outermost loops of
    # each scope are walked: walking every scope's whole code was most of the run time.
    for outer in _outermost_loops(module.module):
        for node in own_nodes(_Statements([outer])):
            if not isinstance(node, _BUILDING_NODES) or next(module.enclosing_loops(node), None) is None:
                continue  # cheap pre-tests: build_event is None for other nodes, session_loop_of outside loops
            if module.build_event(node) is None:
                continue
            loop = module.session_loop_of(node)
            loop_rules = rules
            if loop is None:
                loop_rules = [rule for rule in rules if rule.counts_small_loops]
                loop = _small_loop_for(module, node, loop_rules)
            if loop is None or module.fresh_graph_before(node, loop) or module.built_once(node, loop):
                continue
            if frequency(module).runs_at_most_once(node, loop):
                continue  # ``if step == 500:``: built once in the run, which costs what building it before does
            found = _claims(module, node, loop, loop_rules)
            if found:
                claims[id(node)] = found
    return [
        _finding(module, claim)
        for node_claims in claims.values() for claim in node_claims
        if not _inside_stronger_claim(claim, claims)
    ]


def _small_loop_for(module: ModuleAnalysis, node: nodes.NodeNG, rules: List[LoopBuildRule]):
    """The innermost loop of a literal handful of iterations that runs the graph each time and ``node`` builds
    something one of ``rules`` (those whose cost is not growth) claims; None in a unit test, whose cases each
    want their own session."""
    small = [loop for loop in module.enclosing_loops(node) if repeats_a_bounded_handful(loop)]
    if not small:
        return None  # cheap first: only loops of a literal handful were left out as no session loop
    event = module.build_event(node)
    if not any(rule.claims(candidate.site) for candidate in module.helper_events(event) for rule in rules):
        return None
    if in_unit_test(node):
        return None
    return next((loop for loop in small if module.runs_every_iteration(loop)), None)


def _outermost_sites(events: List[BuildEvent]) -> List[BuildEvent]:
    """Leave out sites nested in another site of the list (``tf.summary.scalar`` inside ``tf.summary.merge``)."""
    sites = {id(event.site.node) for event in events}

    def nested(node: nodes.NodeNG) -> bool:
        parent = node.parent
        while parent is not None and not parent.is_statement:
            if id(parent) in sites:
                return True
            parent = parent.parent
        return id(parent) in sites if parent is not None else False

    return [event for event in events if not nested(event.site.node)] or events


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


def _inside_stronger_claim(claim: _Claim, claims: Dict[int, List[_Claim]]) -> bool:
    """A build nested in another reported build of at least its priority is not reported again."""
    parent = claim.node.parent
    while parent is not None and not parent.is_statement:
        if any(outer.rule.priority >= claim.rule.priority for outer in claims.get(id(parent), ())):
            return True
        parent = parent.parent
    return False


def _finding(module: ModuleAnalysis, claim: _Claim) -> Finding:
    rule = claim.rule
    headline, advice = rule.message(module, claim.event, claim.loop)
    if claim.more_sites:
        calls = "call" if claim.more_sites == 1 else "calls"
        advice += f" (and {claim.more_sites} more such {calls} behind it, see the chain)"
    return rule.finding(module, claim.node, headline, advice, claim.event.chain)
