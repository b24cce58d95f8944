"""TFG201 and TFG202 (unsafe): write summaries or checkpoints every N steps of the loop's counter.

The interval fits the loop: TensorFlow's hooks' default (100 steps for summaries, 1000 for checkpoints), or a
tenth of the loop when its literal bound is smaller (``range(100)``: every 10 steps).  A checkpoint fix keeps the
last save, the trained model: ``or step == last`` where the last step can be written (``range(n)``, ``range(a, b)``
with a bound the loop does not rebind); a loop whose last step cannot be known (``enumerate`` over an iterable)
gets no checkpoint fix (issue 31, item 5).
"""

from __future__ import annotations

from typing import List, Optional

from astroid import nodes

from tfguard.static.analysis.frequency import frequency
from tfguard.static.finding import SAFE, UNSAFE, Edit, Finding, Fix
from tfguard.static.fixes.context import FixContext
from tfguard.static.fixes.loops import INVARIANT
from tfguard.static.fixes.refusal import NoFix

#: Steps between two writes, as TensorFlow's own hooks default to.
EVERY = {"TFG201": 100, "TFG202": 1000}
#: Writes a loop with a smaller literal bound still gets: its interval is a tenth of the loop.
WRITES_PER_LOOP = 10


def loop_counter(loop: nodes.NodeNG) -> Optional[str]:
    """Return the step counter of ``for step in range(...)`` or ``for step, x in enumerate(...)``, if any."""
    if not isinstance(loop, nodes.For) or not isinstance(loop.iter, nodes.Call):
        return None
    func = loop.iter.func
    if not isinstance(func, nodes.Name):
        return None
    target = loop.target
    if func.name == "range" and isinstance(target, nodes.AssignName):
        return target.name
    if func.name == "enumerate" and isinstance(target, nodes.Tuple) and target.elts:
        first = target.elts[0]
        return first.name if isinstance(first, nodes.AssignName) else None
    return None


def plan_guard(ctx: FixContext, finding: Finding, node: nodes.NodeNG) -> Optional[Fix]:
    """Wrap an every-step ``saver.save(...)`` or ``writer.add_summary(sess.run(...), ...)`` in ``if step % N == 0:``.

    A summary written from a name is left alone: the ``sess.run`` that fetched it would still
    evaluate the summary op every step (TFG201 would then report that fetch instead).
    """
    statement = node.parent
    if finding.chain:
        raise NoFix("the write happens in a helper the loop calls: the fix belongs in the helper")
    if not isinstance(statement, nodes.Expr) or statement.value is not node:
        raise NoFix("the write is not a statement of its own that an `if` could wrap")
    loop = frequency(ctx.module).every_step_loop(node)
    counter = loop_counter(loop) if loop is not None else None
    if counter is None or ctx.scan(loop).bound[counter] != 1 or counter in ctx.scan(loop).mutated:
        raise NoFix("the loop has no step counter (`for step in range(...)` or `enumerate`) to test")
    written = node.args[0] if node.args else None
    if finding.code == "TFG201" and (not isinstance(written, nodes.Call) or ctx.module.run_event(written) is None):
        # a summary fetched by another sess.run every step would still be fetched every step
        raise NoFix("the summary is fetched by a `sess.run` that runs every step anyway: fetch it only on the "
                    "steps that write it")
    if "range" in ctx.module.module.locals or "enumerate" in ctx.module.module.locals:
        raise NoFix("`range`/`enumerate` are not the builtins in this module")
    source = ctx.source
    if not (source.starts_line(statement) and source.ends_line(statement) and source.starts_line(loop)):
        raise NoFix("the statement shares its line with other code")
    if any(n.lineno != n.end_lineno for n in statement.nodes_of_class((nodes.Const, nodes.JoinedStr))):
        raise NoFix("re-indenting would change a string that spans lines")
    body_indent, loop_indent = source.indent(loop.body[0].fromlineno), source.indent(loop.lineno)
    unit = body_indent[len(loop_indent):] if body_indent.startswith(loop_indent) else ""
    if not unit or unit.strip(" \t"):
        raise NoFix("the loop's indentation cannot be read")
    indent = source.indent(statement.fromlineno)
    every = _interval(loop, EVERY[finding.code])
    if every == 1:
        raise NoFix("the loop is too short to write less often (fewer than 20 iterations): nothing to gain")
    test = f"{counter} % {every} == 0"
    if finding.code == "TFG202":
        last = _last_step(ctx, loop)
        if last is None:
            raise NoFix("the loop's last step cannot be known before it ends (`enumerate` over an iterable, a "
                        "`range` with a step or a bound the loop changes): save every N steps and once after the "
                        "loop by hand, so the trained model is kept")
        test += f" or {counter} == {last}"
        kept = _same_files_at_the_end(ctx, node, statement, loop)
    lines = [f"{indent}if {test}:{source.newline}"]
    for lineno in range(statement.fromlineno, statement.tolineno + 1):
        lines.append(unit + source.line(lineno) + source.newline)
    end = source.next_line_start(statement.tolineno)
    edits = (Edit(statement.fromlineno, 1, end[0], end[1], "".join(lines)),)
    if finding.code == "TFG201":
        return Fix(UNSAFE, f"Write summaries only every {every} steps: `if {test}:` (unsafe: fewer values in the "
                   "event file)", edits)
    what = f"Write checkpoints only every {every} steps and on the last step: `if {test}:`"
    if isinstance(kept, str):
        return Fix(UNSAFE, f"{what} (unsafe: fewer checkpoints{kept})", edits)
    return Fix(SAFE, f"{what}; {kept[0]}, so the files left at the end are the last step's, as before", edits)


#: ``tf.train.Saver`` keywords that change which checkpoints it keeps beyond ``max_to_keep``.
_KEEPING_KEYWORDS = frozenset({"keep_checkpoint_every_n_hours", "saver_def"})
#: Calls that read the checkpoint files or folder while the loop runs: with fewer saves they would see others.
_CHECKPOINT_READERS = frozenset({
    "tensorflow.train.latest_checkpoint", "tensorflow.train.get_checkpoint_state", "tensorflow.train.checkpoint_exists",
    "tensorflow.train.list_variables", "tensorflow.train.load_checkpoint", "tensorflow.gfile.ListDirectory",
    "tensorflow.gfile.Exists", "tensorflow.gfile.Glob", "tensorflow.io.gfile.listdir", "tensorflow.io.gfile.exists",
    "tensorflow.io.gfile.glob", "os.listdir", "os.scandir", "os.walk", "os.path.exists", "os.path.isfile",
    "glob.glob", "glob.iglob",
})


def _same_files_at_the_end(ctx: FixContext, save: nodes.Call, statement: nodes.NodeNG, loop: nodes.For):
    """``(why,)`` when saving every N steps and on the last leaves the same files as saving every step, else the
    reason it may not (a string, starting with "; " or empty).

    The same when the last save decides what stays: the Saver keeps one checkpoint (``max_to_keep=1``, and no
    ``keep_checkpoint_every_n_hours``), or every save writes the same prefix (no ``global_step``), so each save
    replaced the files of the one before.  And only when the loop surely saves on its last step (no ``break``,
    ``continue``, ``return`` or ``raise`` in it), the save is a statement of the loop's own body, the Saver is a
    name bound once, to ``tf.train.Saver(...)``, used in the loop only by this save, and nothing in the loop (or a
    function of this file it calls) reads the checkpoints or their folder while it runs.
    """
    func = save.func
    if not (isinstance(func, nodes.Attribute) and func.attrname == "save" and isinstance(func.expr, nodes.Name)):
        return ""
    if statement.parent is not loop or statement not in loop.body:
        return "; the save is not a statement of the loop's own body"
    saver = func.expr
    built = _saver_call(ctx, saver)
    if built is None:
        return f"; `{saver.name}` is not bound once to a `tf.train.Saver(...)`"
    keywords = {k.arg: k.value for k in built.keywords or ()}
    if None in keywords or _KEEPING_KEYWORDS & set(keywords):
        return "; the Saver keeps checkpoints by other rules than `max_to_keep`"
    steps = len(save.args) >= 3 or any(k.arg == "global_step" for k in save.keywords or ())
    keeps_one = isinstance(keywords.get("max_to_keep"), nodes.Const) and keywords["max_to_keep"].value == 1
    if steps and not keeps_one:
        return (f"; `{saver.name}` keeps its last `max_to_keep` checkpoints (5 by default): saving less often "
                "leaves other steps' files on disk")
    ends = (nodes.Break, nodes.Continue, nodes.Return, nodes.Raise)
    for node in loop.nodes_of_class((*ends, nodes.Name, nodes.Call),
                                    skip_klass=(nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)):
        if isinstance(node, ends):
            return f"; the loop may skip its last save (a `{type(node).__name__.lower()}`)"
        if isinstance(node, nodes.Name) and node.name == saver.name and node is not saver:
            return f"; the loop uses `{saver.name}` for more than this save"
        if isinstance(node, nodes.Call) and _reads_checkpoints(ctx, node):
            return f"; `{node.func.as_string()}` in the loop may read the checkpoint files while it runs"
    why = "the Saver keeps one checkpoint (`max_to_keep=1`)" if steps else "every save writes the same files"
    return (why,)


def _saver_call(ctx: FixContext, name: nodes.Name) -> Optional[nodes.Call]:
    """The ``tf.train.Saver(...)`` call ``name`` is bound to, when it is bound once in its scope, outside loops."""
    try:
        scope, _ = name.lookup(name.name)
    except Exception:  # noqa: BLE001 - astroid's scope lookup on odd code: no claim
        return None
    bindings = scope.locals.get(name.name, []) if scope is not None else []
    if len(bindings) != 1 or not isinstance(bindings[0], nodes.AssignName):
        return None
    statement = bindings[0].parent
    if not (isinstance(statement, nodes.Assign) and statement.targets == [bindings[0]]
            and isinstance(statement.value, nodes.Call)):
        return None
    if ctx.module.call_qualname(statement.value) != "tensorflow.train.Saver":
        return None
    if next(ctx.module.enclosing_loops(statement), None) is not None:
        return None
    return statement.value


def _reads_checkpoints(ctx: FixContext, call: nodes.Call, depth: int = 0) -> bool:
    """A call that reads checkpoint files or folders, itself or in a function of this file it calls (two deep)."""
    if (ctx.module.call_qualname(call) or "") in _CHECKPOINT_READERS:
        return True
    helper = ctx.module.called_function(call) if depth < 2 else None
    if helper is None or helper.root() is not ctx.module.module:
        return depth >= 2 and ctx.module.called_function(call) is not None
    return any(_reads_checkpoints(ctx, inner, depth + 1) for inner in helper.nodes_of_class(nodes.Call))


def _range_bounds(loop: nodes.For) -> Optional[List[nodes.NodeNG]]:
    """The arguments of the loop's ``range(...)`` (one or two, no step), or None for another loop."""
    call = loop.iter
    if isinstance(call.func, nodes.Name) and call.func.name == "range" and not call.keywords and 1 <= len(
            call.args) <= 2 and not any(isinstance(a, nodes.Starred) for a in call.args):
        return list(call.args)
    return None


def _interval(loop: nodes.For, default: int) -> int:
    """Steps between two writes: ``default``, or a tenth of a loop whose bound (a literal, or a module constant
    bound once to one: ``EPOCHS = 8``) is smaller; 1 when the loop is too short to write less often."""
    bounds = _range_bounds(loop)
    values = [_int_value(b) for b in bounds] if bounds else []
    if not values or any(v is None for v in values):
        return default
    length = len(range(*values))
    return max(1, min(default, length // WRITES_PER_LOOP))


def _int_value(node: nodes.NodeNG) -> Optional[int]:
    """A literal int, or a module-level name assigned once, to a literal int."""
    if isinstance(node, nodes.Const) and type(node.value) is int:
        return node.value
    if not isinstance(node, nodes.Name):
        return None
    try:
        scope, assignments = node.lookup(node.name)
    except Exception:  # noqa: BLE001 - astroid's scope lookup on odd code: no claim
        return None
    if not isinstance(scope, nodes.Module) or len(scope.locals.get(node.name, ())) != 1 or len(assignments) != 1:
        return None
    statement = assignments[0].parent
    if isinstance(statement, nodes.Assign) and statement.targets == [assignments[0]]:
        value = statement.value
        return value.value if isinstance(value, nodes.Const) and type(value.value) is int else None
    return None


def _last_step(ctx: FixContext, loop: nodes.For) -> Optional[str]:
    """The source of the loop's last step (``99``, ``num_steps - 1``), when ``range``'s stop says it for good."""
    bounds = _range_bounds(loop)
    if not bounds:
        return None
    stop = bounds[-1]
    if isinstance(stop, nodes.Const) and type(stop.value) is int:
        return str(stop.value - 1)
    if ctx.scan(loop).expression_status(stop)[0] != INVARIANT:
        return None  # ``range(n)`` read ``n`` once; the loop (or what it calls) may change it, or a call may
    text = stop.as_string()
    return f"{text} - 1" if isinstance(stop, (nodes.Name, nodes.Attribute, nodes.Call)) else f"({text}) - 1"
