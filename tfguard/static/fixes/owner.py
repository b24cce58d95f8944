"""An op a method builds on every call from what ``__init__`` stored: build it once, in ``__init__`` (issue 40).

``def predict(self, sess, batch): return sess.run(tf.argmax(self.logits, 1), ...)``, called every step, builds a
new op per call.  Built at the end of ``__init__`` as ``self.argmax_op`` and read by the method, it is built once
per object, in the graph of ``self.logits`` — the only graph the per-call op could be built in, since TensorFlow
refuses to mix graphs.  Safe (the same values) when the op is a stateless TF build (no random draw, variable,
summary) that reads only constants, TensorFlow and ``self`` attributes that ``__init__`` stores, at its top level,
and nothing else in the module stores; ``__init__`` is the class's own, with no ``return``; the build runs in the
method's own code (no loop, ``with``, ``try`` or nested function around it); and no class of the module derives
from the owner (a subclass's ``__init__`` might not run the owner's).
"""

from __future__ import annotations

from typing import List, Optional

from astroid import nodes

from tfguard.static.analysis.scopes import FUNCTIONS, LOOPS
from tfguard.static.finding import SAFE, Edit, Fix
from tfguard.static.fixes.context import FixContext
from tfguard.static.fixes.loops import creates_state, registers
from tfguard.static.fixes.naming import op_name
from tfguard.static.fixes.refusal import NoFix

NO_FIX = "the op is built in a method the loop calls: the fix belongs in the method"


def plan_in_owner(ctx: FixContext, event, loop: nodes.NodeNG) -> Fix:
    """Return the fix that builds the method's op once in ``__init__``; raise NoFix saying why there is none."""
    site = event.site.node
    if len(event.chain) != 1 or site.root() is not ctx.module.module:
        raise NoFix(NO_FIX)
    method = site.scope()
    cls = method.parent
    if not (isinstance(method, nodes.FunctionDef) and isinstance(cls, nodes.ClassDef) and method.args.args
            and method.decorators is None and method.name != "__init__"):
        raise NoFix(NO_FIX)
    self_name = method.args.args[0].name
    init = cls.locals.get("__init__", [None])[0]
    if not isinstance(init, nodes.FunctionDef) or init.parent is not cls or not init.args.args:
        raise NoFix(f"{NO_FIX} (`{cls.name}` has no `__init__` of its own to build it in)")
    if any(True for _ in init.nodes_of_class((nodes.Return, nodes.Yield), skip_klass=(*FUNCTIONS, nodes.Lambda))):
        raise NoFix(f"{NO_FIX} (`{cls.name}.__init__` may return before its end)")
    why = _unmovable(ctx, site, method, self_name, init, cls, loop)
    if why:
        raise NoFix(f"{NO_FIX} ({why})")
    source = ctx.source
    if not source.ends_line(init.body[-1]) or site.lineno != site.end_lineno:
        raise NoFix(NO_FIX)

    name = ctx.fresh_name(op_name(site, event.site.api))
    init_self = init.args.args[0].name
    text = source.node_text(site).replace(f"{self_name}.", f"{init_self}.") if init_self != self_name else \
        source.node_text(site)
    indent = source.indent(init.body[0].fromlineno)
    after = source.next_line_start(init.body[-1].tolineno)
    start, end = source.start(site), source.end(site)
    edits = (Edit(after[0], after[1], after[0], after[1], f"{indent}{init_self}.{name} = {text}{source.newline}"),
             Edit(start[0], start[1], end[0], end[1], f"{self_name}.{name}"))
    return Fix(SAFE, f"Build `{source.node_text(site)}` once, as `{init_self}.{name}` at the end of "
               f"`{cls.name}.__init__`, and read it in `{method.name}()`", edits)


def _unmovable(ctx: FixContext, site, method, self_name: str, init, cls, loop) -> Optional[str]:
    """Why the op cannot be built in ``__init__`` with the same result ("" when it can)."""
    parent = site.parent
    while parent is not method:
        if isinstance(parent, (*LOOPS, nodes.With, nodes.Try, nodes.Lambda, nodes.ComprehensionScope, *FUNCTIONS)):
            return "it is built inside a loop, `with`, `try` or nested function of the method"
        parent = parent.parent
    attributes: List[str] = []
    for node in site.nodes_of_class((nodes.Name, nodes.Call, nodes.BinOp, nodes.Subscript, nodes.UnaryOp)):
        if isinstance(node, nodes.Name):
            if node.name == self_name:
                if not (isinstance(node.parent, nodes.Attribute) and node.parent.expr is node):
                    return f"it reads `{self_name}` itself"
                attributes.append(node.parent.attrname)
            elif not (ctx.module.qualname(node) or "").startswith("tensorflow"):
                return f"it reads `{node.name}`, which `__init__` cannot see as the method does"
        else:
            event = ctx.module.build_event(node)
            if isinstance(node, nodes.Call) and event is None:
                return f"it calls `{node.func.as_string()}`"
            if event is not None and (event.chain or creates_state(event.site.api) or registers(event.site.api)
                                      or ctx.scan(loop)._state_held(node)):
                return f"`{node.as_string()[:40]}` holds state or creates it"
    if not attributes:
        return "it reads no attribute of the object: its graph is not known"
    stored = _stored_in_init(init, cls)
    for attribute in attributes:
        if attribute not in stored:
            return f"`{self_name}.{attribute}` is not stored by `__init__` itself"
        for other in ctx.module.module.nodes_of_class((nodes.AssignAttr, nodes.DelAttr)):
            if other.attrname == attribute and other not in stored[attribute]:
                return f"`.{attribute}` is stored elsewhere too (line {other.lineno})"
    for other in ctx.module.module.nodes_of_class(nodes.ClassDef):
        if any(base.as_string().split(".")[-1] == cls.name for base in other.bases):
            return f"`{other.name}` derives from `{cls.name}`"
    return ""


def _stored_in_init(init: nodes.FunctionDef, cls: nodes.ClassDef):
    """Attribute name -> the ``self.x = ...`` targets of ``__init__``'s top-level statements."""
    owner = init.args.args[0].name
    stored = {}
    for statement in init.body:
        if isinstance(statement, nodes.Assign):
            for target in statement.targets:
                if isinstance(target, nodes.AssignAttr) and isinstance(target.expr, nodes.Name) and \
                        target.expr.name == owner:
                    stored.setdefault(target.attrname, []).append(target)
    return stored
