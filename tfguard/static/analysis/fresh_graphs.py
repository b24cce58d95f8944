"""Fresh graphs: whether code inside a loop or function runs on a graph made (or reset) there."""

from __future__ import annotations

from astroid import nodes

from tfguard.static.analysis import tfapi
from tfguard.static.analysis.dataflow import GRAPH
from tfguard.static.analysis.scopes import Body, is_ancestor, own_nodes, position


class FreshGraphs:
    """The fresh-graph queries of :class:`~tfguard.static.analysis.module.ModuleAnalysis`.

    A mixin of the facade: it reads the core queries (``value``, ``qualname``, ``called_function``...) and
    the other concerns' queries through ``self``.
    """

    def fresh_graph_before(self, node: nodes.NodeNG, boundary: nodes.NodeNG) -> bool:
        """Return whether, inside ``boundary`` (a loop or function), ``node`` runs on a fresh graph.

        True when it is inside ``with <graph made in boundary>.as_default():`` or
        comes after a ``tf.reset_default_graph()`` (or a helper that resets) in ``boundary``.
        """
        if isinstance(node, nodes.Call):
            for keyword in node.keywords or ():
                if keyword.arg == "graph" and self._is_fresh_graph(keyword.value, boundary):
                    return True
        child, parent = node, node.parent
        while parent is not None and parent is not boundary:
            if isinstance(parent, (nodes.With, nodes.AsyncWith)):
                # The body runs under every item; an item (``tf.Session()`` in
                # ``with tf.Graph().as_default(), tf.Session() as s:``) under the items before it.
                for context, _ in parent.items:
                    if context is child:
                        break
                    if self._is_fresh_graph_context(context, boundary):
                        return True
            child, parent = parent, parent.parent
        resets = self._graph_resets.get(id(boundary))
        if resets is None:
            resets = self._graph_resets[id(boundary)] = [
                position(other) for other in own_nodes(Body(boundary.body))
                if isinstance(other, nodes.Call) and self._resets_graph(other)
            ]
        here = position(node)
        return any(reset < here for reset in resets)

    def _is_fresh_graph_context(self, context: nodes.NodeNG, boundary: nodes.NodeNG) -> bool:
        if not (isinstance(context, nodes.Call) and isinstance(context.func, nodes.Attribute)):
            return False
        if context.func.attrname != "as_default":
            return False
        return self._is_fresh_graph(context.func.expr, boundary)

    def _is_fresh_graph(self, graph: nodes.NodeNG, boundary: nodes.NodeNG) -> bool:
        """Return whether ``graph`` is a ``tf.Graph()`` created inside ``boundary`` (each iteration or call).

        A call of a project function that returns a ``tf.Graph()`` it made (``g = make_graph()``) makes one too.
        """
        if isinstance(graph, nodes.Call):
            return self._makes_graph(graph)
        if isinstance(graph, nodes.Name):
            definitions = self.dataflow.definitions(graph, graph.name)
            dominating = _dominating_binding(graph, definitions, boundary)
            if dominating is not None:
                # ``g = tf.Graph()`` at the top of the loop body rebinds the ``g`` made before the loop
                return self._makes_graph(dominating.parent.value)
            return bool(definitions) and all(
                is_ancestor(boundary, d)
                and isinstance(d.parent, nodes.Assign)
                and self._makes_graph(d.parent.value)
                for d in definitions
            )
        return False

    def _makes_graph(self, call: nodes.NodeNG) -> bool:
        if not isinstance(call, nodes.Call):
            return False
        if self.call_qualname(call) == "tensorflow.Graph":
            return True
        if self.called_function(call) is None:
            return False
        made = self.value(call)
        return made is not None and made.kind == GRAPH and made.api == "tensorflow.Graph"

    def _resets_graph(self, call: nodes.Call) -> bool:
        if self.call_qualname(call) in tfapi.GRAPH_RESETS:
            return True
        function = self.called_function(call)
        if function is None:
            return False
        summary = self.summary(function)
        return summary is not None and summary.resets_graph


def _dominating_binding(use: nodes.Name, definitions, boundary: nodes.NodeNG):
    """The binding of ``use`` made in ``boundary`` by an assignment that always runs before it: a statement
    of a body that holds the use, earlier in it (the last such one); None if there is none."""
    best = None
    for binding in definitions:
        statement = binding.parent
        if not (isinstance(statement, nodes.Assign) and binding in statement.targets):
            continue
        if not is_ancestor(boundary, statement) or not is_ancestor(statement.parent, use):
            continue
        if position(statement) >= position(use) or is_ancestor(statement, use) or not _same_body(statement, use):
            continue
        if best is None or position(statement) > position(best.parent):
            best = binding
    return best


def _same_body(statement: nodes.NodeNG, use: nodes.NodeNG) -> bool:
    """Whether ``use`` sits under a statement of the same body list as ``statement`` (not its ``else``)."""
    holder = use
    while holder.parent is not None and holder.parent is not statement.parent:
        holder = holder.parent
    owner = statement.parent
    return any(statement in getattr(owner, field, ()) and holder in getattr(owner, field, ())
               for field in ("body", "orelse", "finalbody"))
