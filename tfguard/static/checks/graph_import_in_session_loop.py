"""TFG104: a saved graph imported on every iteration of a session loop."""

from tfguard.static.checks._session_loop import LoopBuildRule


class GraphImportInSessionLoop(LoopBuildRule):
    """Importing a graph copies every one of its ops into the default graph again."""

    code = "TFG104"
    name = "graph-import-in-session-loop"
    summary = "graph imported (`import_meta_graph`, `import_graph_def`) inside a loop that runs the graph"
    apis = frozenset({
        "tensorflow.train.import_meta_graph",
        "tensorflow.import_graph_def",
        "tensorflow.graph_util.import_graph_def",
        "tensorflow.saved_model.loader.load",
        "tensorflow.saved_model.load",
    })
    priority = 90
    effect = "copies the whole saved graph into the default graph again"
    advice = "import the graph once, before the loop, and reuse the tensors it returns"
