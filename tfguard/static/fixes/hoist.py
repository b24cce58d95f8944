"""TFG101–TFG108: build it once, before the loop.

A statement ``name = build(...)`` (or a bare ``build(...)``) directly in the loop body moves, with
its comments, to just before the loop; a build used inline (``sess.run(tf.argmax(y, 1))``) gets a
fresh name bound before the loop and the use reads that name.  In nested loops it moves above the
outermost loop it does not depend on.  The fix is safe only when the expression reads nothing the loop
changes, in its body or through what it calls (:class:`~tfguard.static.fixes.loops.LoopScan`,
:mod:`~tfguard.static.fixes.reach`), builds no op that holds state between runs
(:mod:`~tfguard.static.fixes.stateful`), calls nothing but TF builds and pure builtins, and sits under no
``with``/``try`` of the loop (a name or device scope is copied around the op built before the loop).
APIs that create state (variables, one-shot iterators), Savers (which
delete older checkpoints), summaries (whose tags change) and builds in a helper are unsafe (see
:func:`_api_risk`); APIs whose result depends on what else the graph holds get no fix while the loop
builds variables, summaries or calls building helpers (a later pass may move those first).  Every
refusal raises :class:`~tfguard.static.fixes.refusal.NoFix` with the reason the report gives.
"""

from __future__ import annotations

import dataclasses
from typing import List, Optional, Tuple

from astroid import nodes

from tfguard.static.analysis.fact_types import describe
from tfguard.static.analysis.scopes import FUNCTIONS, LOOPS, is_ancestor
from tfguard.static.analysis.tfapi import COLLECTION_READERS, FILE_KEEPING_APIS, SCOPE_APIS
from tfguard.static.finding import SAFE, UNSAFE, Edit, Finding, Fix
from tfguard.static.fixes.assign import plan_load
from tfguard.static.fixes.context import FixContext
from tfguard.static.fixes.feed import plan_feed
from tfguard.static.fixes.loops import IMPURE, INVARIANT, VARYING, creates_state, registers
from tfguard.static.fixes.naming import op_name
from tfguard.static.fixes.owner import plan_in_owner
from tfguard.static.fixes.refusal import NoFix


#: Names for the value a hoist binds, by the API's last name.
def plan_hoist(ctx: FixContext, finding: Finding, node: nodes.NodeNG, feed: bool = True) -> Optional[Fix]:
    """Return the fix that builds ``node`` once, before its session loop; raise :class:`NoFix` when there is none.

    An op that reads Python values the loop changes is built once from placeholders that the run feeds them
    through (:mod:`~tfguard.static.fixes.feed`), unless ``feed`` is False.
    """
    module = ctx.module
    loop = module.session_loop_of(node)
    event = module.build_event(node)
    if loop is None or event is None:
        raise NoFix("the op is built through a call tfguard cannot move")
    reasons: List[str] = []
    pure_helper = False
    if finding.chain or event.chain:
        try:
            risk = _helper_risk(ctx, node, loop)
        except NoFix as refused:
            if str(refused) != METHOD:
                raise
            return plan_in_owner(ctx, event, loop)  # build it in the method's owner, once per object
        pure_helper = _pure_builder(ctx, node, loop)
        if not pure_helper:
            reasons.append(risk)
    path = _path_to_loop(node, loop)
    if path is None:
        raise NoFix("the build runs in a nested function, lambda, class, comprehension or f-string of the loop")
    scan = ctx.scan(loop)
    status, why = _call_status(scan, node) if pure_helper else scan.expression_status(node)
    if status == VARYING:
        if feed and not reasons and not pure_helper and not path[1]:
            return plan_feed(ctx, node, loop, why)
        raise NoFix(f"built before the loop it would compute another value: {why}")
    if not pure_helper:
        loop, scan, status, why, path = _outermost(ctx, node, loop, (scan, status, why, path))
    guarded, risky = path
    scopes = _scope_blocks(ctx, node, loop, scan) if risky == IN_WITH else None
    if status == IMPURE:
        reasons.append(why)
    if risky and scopes is None:
        reasons.append(risky)
    if _reads_what_the_loop_builds(node, event.site.api, scan):
        # built before the loop it would miss what the loop adds: not even an unsafe fix
        raise NoFix("it reads the graph's collections (variables, summaries), which the loop still adds to")
    statement = _movable_statement(ctx, node, loop, guarded) if not scopes else None
    keeps_files = event.site.api in FILE_KEEPING_APIS and statement is not None and _saver_keeps_files(
        ctx, statement, node, loop)
    reasons.extend(_api_risk(event.site.api, guarded, keeps_files))
    applicability = UNSAFE if reasons else SAFE
    if not ctx.source.starts_line(loop):
        raise NoFix("the loop does not start its line, so there is no line before it to build on")
    if statement is not None:
        edits, message = _move_statement(ctx, statement, loop)
        if keeps_files:
            edits, message = _keep_every_checkpoint(ctx, edits, message, statement, node, loop)
    else:
        if isinstance(node.parent, nodes.Expr):
            raise NoFix("a bare expression statement that cannot move: nothing to name")
        helper = finding.chain or event.chain
        api = node.func.as_string() if helper and isinstance(node, nodes.Call) else event.site.api
        edits, message = _name_expression(ctx, node, loop, api, scopes or ())
    if edits is None:
        raise NoFix("tfguard found no edit it could make here")
    if reasons:
        message += f" (unsafe: {'; '.join(dict.fromkeys(reasons))})"
    return Fix(applicability, message, tuple(edits))


def _outermost(ctx: FixContext, node: nodes.NodeNG, loop: nodes.NodeNG, found):
    """Move the build above every enclosing loop it does not depend on, not only the innermost one.

    Built above the inner of two loops only, the op would still be built once per outer iteration.
    Returns (loop, scan, status, why, path) for the outermost such loop.
    """
    best = (loop, *found)
    for outer in ctx.module.enclosing_loops(loop):
        path = _path_to_loop(node, outer)
        if path is None or not ctx.source.starts_line(outer):
            break
        scan = ctx.scan(outer)
        status, why = scan.expression_status(node)
        if status == VARYING:
            break
        best = (outer, scan, status, why, path)
    return best


def _helper_risk(ctx: FixContext, node: nodes.NodeNG, loop: nodes.NodeNG) -> str:
    """Why calling the helper that builds the op once, before the loop, may change the program; NoFix when it must.

    Offered only for a call of a function of this file whose arguments and the globals it reads the loop does not
    change (checked with the call's own expression by the caller); always unsafe.
    """
    module = ctx.module
    helper = module.called_function(node) if isinstance(node, nodes.Call) else None
    if helper is None or helper.root() is not module.module or not isinstance(helper, nodes.FunctionDef):
        raise NoFix("the op is built in a helper the loop calls: the fix belongs in the helper")
    if isinstance(helper.parent, nodes.ClassDef):
        raise NoFix(METHOD)
    scan = ctx.scan(loop)
    for name in helper.nodes_of_class(nodes.Name):
        if name.name in helper.locals:
            continue
        if scan.bound[name.name] or name.name in scan.mutated or name.name in scan.reach.changed:
            raise NoFix(f"the helper `{helper.name}()` that builds the op reads `{name.name}`, which the loop changes")
    return (f"`{helper.name}()` then runs once, before the loop, instead of on every iteration: whatever else it "
            "does (counters, prints, files) happens once")


METHOD = "the op is built in a method the loop calls: the fix belongs in the method"


def _pure_builder(ctx: FixContext, node: nodes.NodeNG, loop: nodes.NodeNG) -> bool:
    """Whether the helper ``node`` calls only builds ops: called once before the loop, it does all it did.

    A function of this file (``def accuracy_op(inputs): return tf.reduce_mean(...)``) whose body is
    assignments to its own names and a ``return``, whose every call builds a TF op that keeps no state between
    runs (no random draw, variable, queue, summary tag) or is a pure builtin, with no ``global``, ``nonlocal``,
    ``yield``, ``with``, loop or branch: what it returns is the op, and running it once adds nothing else the
    program could see (no print, no counter, no file).  :func:`_helper_risk` has already checked that the loop
    changes nothing it reads.
    """
    helper = ctx.module.called_function(node) if isinstance(node, nodes.Call) else None
    if not isinstance(helper, nodes.FunctionDef) or helper.decorators is not None:
        return False
    body = list(helper.body)
    if body and isinstance(body[0], nodes.Expr) and isinstance(body[0].value, nodes.Const):
        body = body[1:]  # the docstring
    if not body or not isinstance(body[-1], nodes.Return) or body[-1].value is None:
        return False
    if not all(isinstance(statement, (nodes.Assign, nodes.Return)) for statement in body):
        return False
    if any(not isinstance(t, nodes.AssignName) for statement in body if isinstance(statement, nodes.Assign)
           for t in statement.targets):
        return False
    scan = ctx.scan(loop)
    for statement in body:
        for sub in statement.nodes_of_class((nodes.Call, nodes.Lambda, nodes.Yield, nodes.NamedExpr)):
            if not isinstance(sub, nodes.Call):
                return False
            event = ctx.module.build_event(sub)
            if event is not None and event.chain:
                return False  # a helper of the helper: not read here
            if event is not None and (creates_state(event.site.api) or registers(event.site.api)):
                return False
            if not scan._pure_call(sub) or scan._state_held(sub):
                return False
    return True


def _call_status(scan, call: nodes.Call) -> Tuple[str, str]:
    """The status of a pure builder's call: that of its arguments (the helper itself changes nothing)."""
    worst = ("invariant", "")
    for argument in [*call.args, *(k.value for k in call.keywords or ())]:
        status, why = scan.expression_status(argument)
        if status == VARYING:
            return status, why
        if status == IMPURE and worst[0] != IMPURE:
            worst = (status, why)
    return worst


def _path_to_loop(node: nodes.NodeNG, loop: nodes.NodeNG) -> Optional[Tuple[bool, str]]:
    """Return (under a conditional, why moving out is risky) for the way from ``node`` up to ``loop``.

    None when ``node`` sits in a nested function, lambda, class or comprehension (it does not
    run as the loop's own code).
    """
    guarded, risky = False, ""
    child, parent = node, node.parent
    while parent is not None and parent is not loop:
        if isinstance(parent, (*FUNCTIONS, nodes.Lambda, nodes.ClassDef, nodes.ComprehensionScope, nodes.JoinedStr)):
            return None  # not the loop's own code, or inside an f-string (whose positions are not the text's)
        if isinstance(parent, (nodes.If, nodes.IfExp, nodes.BoolOp)) or (
            isinstance(parent, LOOPS) and child not in parent.body
        ):
            guarded = True
        if isinstance(parent, (nodes.With, nodes.AsyncWith)) and child in parent.body and IN_WITH not in risky:
            risky = f"{risky}; {IN_WITH}" if risky else IN_WITH
        if isinstance(parent, (nodes.Try, nodes.TryStar)) and child in parent.body and IN_TRY not in risky:
            risky = f"{risky}; {IN_TRY}" if risky else IN_TRY
        child, parent = parent, parent.parent
    return (guarded, risky) if parent is loop else None


IN_TRY = "it runs inside a `try` block of the loop"
IN_WITH = "it runs inside a `with` block of the loop (a device, name scope or graph may apply)"


def _scope_blocks(ctx: FixContext, node: nodes.NodeNG, loop: nodes.NodeNG, scan) -> Optional[List[nodes.With]]:
    """The ``with`` blocks between ``loop`` and ``node`` (outermost first) when each only names or places ops.

    Each must be a plain ``with`` of :data:`SCOPE_APIS` calls (no ``as``), whose arguments the loop does not change,
    and no ``try`` may sit on the way: then the op built before the loop under the same blocks is placed as the
    loop's ops were.  None otherwise.
    """
    blocks: List[nodes.With] = []
    child, parent = node, node.parent
    while parent is not None and parent is not loop:
        if isinstance(parent, (nodes.Try, nodes.TryStar, nodes.AsyncWith)) and child in parent.body:
            return None
        if isinstance(parent, nodes.With) and child in parent.body:
            for expr, var in parent.items:
                if var is not None or not isinstance(expr, nodes.Call) or ctx.module.call_qualname(
                        expr) not in SCOPE_APIS or scan.expression_status(expr)[0] != INVARIANT:
                    return None
            if not (ctx.source.starts_line(parent) and parent.lineno == parent.items[-1][0].end_lineno
                    and parent.body[0].fromlineno > parent.lineno):
                return None  # a header over several lines: not copied
            blocks.append(parent)
        child, parent = parent, parent.parent
    return list(reversed(blocks)) or None


def _api_risk(api: str, guarded: bool, keeps_files: bool = False) -> List[str]:
    reasons = []
    if api in FILE_KEEPING_APIS and not keeps_files:
        reasons.append("one Saver keeps only its last `max_to_keep` checkpoints (5 by default) and deletes older "
                       "ones, where a Saver per iteration deleted none of the others' files: the same weights, "
                       "other files on disk")
    if creates_state(api):
        reasons.append("it creates state (variables, an iterator), so one object replaces one per iteration")
    if registers(api):
        reasons.append("each summary op built in the loop gets a new tag (`loss`, `loss_1`, ...): one op built "
                       "before the loop writes every value under one tag")
        if guarded:
            reasons.append("the summary would exist even on iterations that skipped it")
    return reasons


def _saver_keeps_files(ctx: FixContext, statement: nodes.NodeNG, node: nodes.NodeNG, loop: nodes.NodeNG) -> bool:
    """Whether one Saver built with ``max_to_keep=None`` keeps exactly the files the Savers built per iteration wrote.

    A Saver deletes only checkpoints it saved itself, beyond its ``max_to_keep``: one built per iteration and
    saving at most once never deletes any, and the ``checkpoint`` state file of each save names only the
    latest checkpoint, as a Saver with ``max_to_keep=None`` writes it.  So the hoisted Saver keeps every file
    when the per-iteration one is bound to a name (``saver = tf.train.Saver(...)`` on one line, no ``*args``,
    ``**kwargs`` or ``saver_def``), used in the loop only by one ``saver.save(...)`` in the iteration that built
    it (and ``saver.restore(...)``), and not read outside the loop (where the last Saver of the original, with
    its own ``last_checkpoints``, would still act).
    """
    if not isinstance(statement, nodes.Assign) or not isinstance(node, nodes.Call):
        return False
    if statement.fromlineno != statement.tolineno or any(isinstance(a, nodes.Starred) for a in node.args):
        return False
    if any(k.arg is None or k.arg == "saver_def" for k in node.keywords or ()):
        return False
    name = statement.targets[0].name
    home = next(ctx.module.enclosing_loops(statement), None)
    saves = 0
    for use in statement.scope().nodes_of_class(nodes.Name):
        if use.name != name:
            continue
        if not is_ancestor(loop, use):
            return False  # read outside the loop: the original's last Saver there has its own memory
        parent = use.parent
        if not (isinstance(parent, nodes.Attribute) and parent.attrname in ("save", "restore")
                and isinstance(parent.parent, nodes.Call) and parent.parent.func is parent):
            return False
        if parent.attrname == "save":
            saves += 1
            if next(ctx.module.enclosing_loops(use), None) is not home:
                return False  # saved several times by one Saver: it could delete its own
    return saves == 1


def _keep_every_checkpoint(ctx: FixContext, edits: List[Edit], message: str, statement, node: nodes.Call, loop):
    """Rewrite the moved Saver's line with ``max_to_keep=None`` (its value replaced, or the keyword added)."""
    source = ctx.source
    call_text = source.node_text(node)
    keyword = next((k for k in node.keywords or () if k.arg == "max_to_keep"), None)
    if keyword is not None:
        start, end = source.start(keyword.value), source.end(keyword.value)
        base = source.start(node)
        first = source.offset(start) - source.offset(base)
        last = source.offset(end) - source.offset(base)
        new_call = call_text[:first] + "None" + call_text[last:]
    else:
        separator = ", " if node.args or node.keywords else ""
        new_call = call_text[:-1] + separator + "max_to_keep=None)"
    moved = edits[0]
    text = moved.content.replace(call_text, new_call, 1)
    if text == moved.content:
        return edits, message
    edits = [Edit(moved.line, moved.column, moved.end_line, moved.end_column, text), *edits[1:]]
    message += (" with `max_to_keep=None`: like the Savers built per iteration, each of which saved once, it "
                "deletes no checkpoint, so the same files stay on disk")
    return edits, message


def _reads_what_the_loop_builds(node: nodes.NodeNG, api: str, scan) -> bool:
    """A Saver, initializer or ``merge_all`` reads the graph's collections, which the loop still adds to."""
    return api in COLLECTION_READERS and not _explicit_list(node) and bool(scan.other_builds(node))


def _explicit_list(node: nodes.NodeNG) -> bool:
    """``tf.train.Saver(var_list)`` or ``Saver(var_list=...)`` reads no collection."""
    if not isinstance(node, nodes.Call):
        return False
    return bool(node.args) or any(k.arg == "var_list" for k in node.keywords or ())


def _movable_statement(ctx: FixContext, node, loop, guarded: bool) -> Optional[nodes.NodeNG]:
    """Return the statement to move whole (``name = node`` or a bare ``node``), or None to name ``node`` instead."""
    statement = node.parent
    if isinstance(statement, nodes.Assign):
        if statement.value is not node or len(statement.targets) != 1:
            return None
        target = statement.targets[0]
        if not isinstance(target, nodes.AssignName):
            return None
        scan = ctx.scan(loop)
        if scan.bound[target.name] != 1 or scan.read_before(target.name, statement):
            return None
        if guarded and len(statement.scope().locals.get(target.name, ())) != 1:
            return None
    elif not isinstance(statement, nodes.Expr):
        return None
    parent = statement.parent
    while parent is not loop:
        if not isinstance(parent, (*LOOPS, nodes.If)):
            return None
        parent = parent.parent
    source = ctx.source
    if not (source.starts_line(statement) and source.ends_line(statement)):
        return None
    if any(isinstance(n, (nodes.Const, nodes.JoinedStr)) and n.lineno != n.end_lineno
           for n in statement.nodes_of_class((nodes.Const, nodes.JoinedStr))):
        return None  # re-indenting would change a string that spans lines
    return statement


def _leading_comments(ctx: FixContext, statement: nodes.NodeNG) -> int:
    """Return the first line of the comment block directly above ``statement`` at its indentation."""
    source = ctx.source
    first = statement.fromlineno
    indent = source.indent(first)
    while first > 1:
        above = source.line(first - 1)
        if above.strip().startswith("#") and source.indent(first - 1) == indent:
            first -= 1
        else:
            break
    return first


def _move_statement(ctx: FixContext, statement, loop) -> Tuple[Optional[List[Edit]], str]:
    source = ctx.source
    first, last = _leading_comments(ctx, statement), statement.tolineno
    old_indent, new_indent = source.indent(statement.fromlineno), source.indent(loop.lineno)
    moved = []
    for lineno in range(first, last + 1):
        text = source.line(lineno)
        if text.startswith(old_indent):
            text = new_indent + text[len(old_indent):]
        moved.append(text + source.newline)
    removal_end = source.next_line_start(last)
    replacement = ""
    siblings = _block_of(statement)
    if siblings is not None and len(siblings) == 1:
        replacement = old_indent + "pass" + source.newline
    edits = [
        Edit(loop.lineno, 1, loop.lineno, 1, "".join(moved)),
        Edit(first, 1, removal_end[0], removal_end[1], replacement),
    ]
    value = describe(statement.value)
    code = f"{statement.targets[0].name} = {value}" if isinstance(statement, nodes.Assign) else value
    return edits, f"Move `{code}` before the loop at line {loop.lineno}"


def _block_of(statement: nodes.NodeNG) -> Optional[list]:
    parent = statement.parent
    for name in ("body", "orelse", "finalbody"):
        block = getattr(parent, name, None)
        if isinstance(block, list) and statement in block:
            return block
    return None


def _name_expression(ctx: FixContext, node, loop, api: str, scopes=()) -> Tuple[Optional[List[Edit]], str]:
    source = ctx.source
    name = ctx.fresh_name(op_name(node, api))
    text = source.node_text(node)
    if node.lineno != node.end_lineno:
        text = f"({text})"
    indent = source.indent(loop.lineno)
    start, end = source.start(node), source.end(node)
    header = ""
    for block in scopes:  # the same name and device scopes around the op, built once
        unit = source.indent(block.body[0].fromlineno)[len(source.indent(block.lineno)):] or "    "
        header += f"{indent}{source.line(block.lineno).strip()}{source.newline}"
        indent += unit
    edits = [
        Edit(loop.lineno, 1, loop.lineno, 1, f"{header}{indent}{name} = {text}{source.newline}"),
        Edit(start[0], start[1], end[0], end[1], name),
    ]
    shown = " ".join(text.split())
    if len(shown) > 60:
        shown = shown[:59] + "…"
    where = " under the same `with` block" if scopes else ""
    return edits, f"Build `{shown}` once, as `{name}`, before the loop at line {loop.lineno}{where}"


def plan_hoist_or_load(ctx: FixContext, finding: Finding, node: nodes.NodeNG) -> Optional[Fix]:
    """TFG108's fix: hoist the assign; else feed its value to the variable's initializer (no op at all) when its
    result is unused; else feed it through a placeholder built once."""
    try:
        hoisted = plan_hoist(ctx, finding, node, feed=False)
    except NoFix as refused:
        load = plan_load(ctx, finding, node)
        if load is None:
            return plan_hoist(ctx, finding, node)
        return dataclasses.replace(load, message=f"{load.message} (not hoisted: {refused})")
    return hoisted or plan_load(ctx, finding, node)
