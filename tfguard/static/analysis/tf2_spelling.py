"""Whether a module is written against the TF 2 API, so that a fix or an advice may spell ``tf.data.AUTOTUNE``.

``tf.data.AUTOTUNE`` exists from TF 2.4 on; ``tf.data.experimental.AUTOTUNE`` exists in TF 1.x and TF 2 alike. So
the TF 2 spelling is written only where the module shows it is TF 2 code: eager code (no session, placeholder or
graph-mode switch, :func:`~tfguard.static.analysis.tf_functions.tf2_code`) that uses an API of TF 2's own
(``tf.function``, ``tf.GradientTape``, ``tf.keras``, ``tf.summary.create_file_writer``...) and does not reach
TensorFlow through ``tensorflow.compat.v1``. Anything else keeps the spelling that runs everywhere.
"""

from __future__ import annotations

from astroid import nodes

#: Names of TF 2's own API: a module using one of them is written for TF 2.
TF2_SIGNS = ("tensorflow.function", "tensorflow.GradientTape", "tensorflow.keras", "keras.",
             "tensorflow.summary.create_file_writer", "tensorflow.data.AUTOTUNE", "tensorflow.train.Checkpoint")


def speaks_tf2(module) -> bool:
    """Return whether ``module`` (a ModuleAnalysis) is TF 2 code by its own API (see the module's docstring)."""
    return module.facts("speaks_tf2", _speaks_tf2)


def _speaks_tf2(module) -> bool:
    from tfguard.static.analysis.tf_functions import tf2_code

    for kind in (nodes.Import, nodes.ImportFrom):
        for node in module.nodes_of(kind):
            names = [node.modname] if isinstance(node, nodes.ImportFrom) else [name for name, _ in node.names]
            names += [f"{node.modname}.{name}" for name, _ in node.names] if isinstance(node, nodes.ImportFrom) else []
            if any(name == "tensorflow.compat.v1" or name.startswith("tensorflow.compat.v1.") for name in names):
                return False
    if not tf2_code(module):
        return False
    for kind in (nodes.Attribute, nodes.Name):
        for node in module.nodes_of(kind):
            qualname = module.qualname(node) or ""
            if qualname.startswith(TF2_SIGNS):
                return True
    return False
