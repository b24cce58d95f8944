"""TFG108: an assign op built on every iteration of a session loop."""

from typing import Optional, Tuple

from astroid import nodes

from tfguard.static.analysis.module import BuildEvent, ModuleAnalysis
from tfguard.static.analysis.variable_lists import is_variable_list
from tfguard.static.checks._session_loop import LoopBuildRule
from tfguard.static.finding import SAFE
from tfguard.static.fixes import hoist
from tfguard.static.registry import FixOffer

#: The fix when the assigned value comes from the graph (a tensor or a variable, as in a target-network update).
GRAPH_VALUE_FIX = ("build the assign ops once, before the loop (`update = tf.group(*[tf.assign(t, e) for t, e in "
                   "pairs])`), and run them")


class AssignInSessionLoop(LoopBuildRule):
    """``tf.assign(v, value)`` per step adds a constant and an assign op each time."""

    code = "TFG108"
    name = "assign-in-session-loop"
    summary = "`tf.assign` / `var.assign()` built inside a loop that runs the graph"
    fix = FixOffer(
        SAFE,
        "builds the assign op once, before the loop; when the value changes, feeds it to the "
        "variable's initializer (`sess.run(v.initializer, {v.initializer.inputs[1]: value})`, no op "
        "added), safe when the value is provably a Python or NumPy value",
        hoist.plan_hoist_or_load,
    )
    apis = frozenset({"tensorflow.assign", "tensorflow.assign_add", "tensorflow.assign_sub"})
    methods = frozenset({"assign", "assign_add", "assign_sub"})
    priority = 30
    effect = "builds a new assign op (and a constant for its value)"
    advice = (
        "build one assign op fed by a placeholder before the loop and run it with feed_dict, "
        "or feed the value to the variable's initializer: "
        "`sess.run(var.initializer, {var.initializer.inputs[1]: value})`"
    )

    def message(self, module: ModuleAnalysis, event: BuildEvent, loop: nodes.NodeNG) -> Tuple[str, str]:
        """Say to build the assign once when it copies a graph value; a placeholder or the initializer feed only
        helps when the value comes from Python."""
        headline, advice = super().message(module, event, loop)
        value = _assigned_value(event.site.node)
        if value is not None and _from_the_graph(module, value):
            return headline.replace(self.effect, "builds a new assign op", 1), GRAPH_VALUE_FIX
        return headline, advice


def _assigned_value(node: nodes.NodeNG) -> Optional[nodes.NodeNG]:
    """The value argument of ``tf.assign(ref, value)`` or ``ref.assign(value)``."""
    if not isinstance(node, nodes.Call):
        return None
    for keyword in node.keywords or ():
        if keyword.arg == "value":
            return keyword.value
    method = isinstance(node.func, nodes.Attribute) and node.func.attrname in AssignInSessionLoop.methods \
        and not _is_tf_module_call(node)
    index = 0 if method else 1
    return node.args[index] if len(node.args) > index else None


def _is_tf_module_call(node: nodes.Call) -> bool:
    func = node.func
    while isinstance(func, nodes.Attribute):
        func = func.expr
    return isinstance(func, nodes.Name) and func.name in ("tf", "tf1", "tensorflow")


def _from_the_graph(module: ModuleAnalysis, value: nodes.NodeNG) -> bool:
    """Whether ``value`` is known to be a tensor or variable (not a Python number or array): a TF value, or a
    name a loop or comprehension takes from a list of variables (``for t, e in zip(target.variables, ...)``,
    also through a name or attribute bound to one: ``zip(self.t_params, self.e_params)``)."""
    if isinstance(value, nodes.Const) or value.root() is not module.module:
        return False
    known = module.value(value)
    if known is not None and known.tensor:
        return True
    if isinstance(value, nodes.BinOp):  # ``(1 - tau) * t + tau * e``: arithmetic on a variable is a tensor
        return _from_the_graph(module, value.left) or _from_the_graph(module, value.right)
    if not isinstance(value, nodes.Name):
        return False
    try:
        _, assignments = value.lookup(value.name)
    except Exception:  # noqa: BLE001 - astroid's scope lookup on odd code: no claim
        return False
    return any(_iterates_variables(module, assignment) for assignment in assignments)


def _iterates_variables(module: ModuleAnalysis, assignment: nodes.NodeNG) -> bool:
    target = assignment
    while isinstance(target.parent, (nodes.Tuple, nodes.List)):
        target = target.parent
    owner = target.parent
    if isinstance(owner, (nodes.For, nodes.Comprehension)) and owner.target is target:
        return is_variable_list(module, owner.iter)
    return False

