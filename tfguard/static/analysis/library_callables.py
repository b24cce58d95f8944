"""Graph runs through library callables: ``U.function(...)`` closures and Keras models' run methods.

TF1 projects often never write ``sess.run``: OpenAI-baselines-style code builds ``U.function(inputs, outputs)``
(``tf_util.function``, a ``_Function`` whose ``__call__`` does ``get_session().run``) and calls it every step, and
Keras code calls ``model.predict`` / ``model.train_on_batch``, which run the graph through a cached
``K.function``. A loop over those is a session loop like any other.

Only what is known is counted: a ``function`` of a module named ``tf_util`` (when the module is not a file of
the project, whose code is followed instead), and the run methods of a receiver known to be a Keras model
(``Sequential(...)``, ``Model(...)``, ``load_model(...)``, an instance of a project class deriving from one). A
``model.predict`` on a receiver of unknown kind (it may be scikit-learn's) is not a run.
"""

from __future__ import annotations

from typing import Optional

from astroid import nodes

from tfguard.static.analysis.tfapi import (
    GRAPH_MODE_NAMES,
    KERAS_APPLICATIONS,
    KERAS_MODEL_APIS,
    RUNNER_FACTORY_SUFFIXES,
)


def is_runner_factory(api: Optional[str]) -> bool:
    """Whether a (non-TF) module name is a library function returning a graph-running callable."""
    return bool(api) and api.endswith(RUNNER_FACTORY_SUFFIXES)


def is_keras_model_api(api: Optional[str]) -> bool:
    """Whether ``api`` (a TF value's producing API) makes a Keras model."""
    if not api:
        return False
    return api in KERAS_MODEL_APIS or (api.startswith(KERAS_APPLICATIONS) and api.count(".") >= 3)


def graph_mode_module(module) -> bool:
    """Whether ``module`` (a ModuleAnalysis) shows it runs in graph mode: it imports standalone Keras (graph mode
    on the TF 1 backend) or names ``tf.Session``, ``tf.placeholder``, ``K.get_session``, ``tf.compat.v1``,
    ``disable_eager_execution``... In a TF 2 eager module ``model.predict`` runs no session graph."""
    return module.facts("graph_mode_module", _graph_mode_module)


def _graph_mode_module(module) -> bool:
    for node in module.nodes_of(nodes.Import):
        if any(name == "keras" or name.startswith("keras.") for name, _ in node.names):
            return True
    for node in module.nodes_of(nodes.ImportFrom):
        modname = node.modname or ""
        if modname == "keras" or modname.startswith("keras.") or "compat.v1" in modname:
            return True
        if any(name in ("v1", "Session", "placeholder") for name, _ in node.names):
            return True
    if any(node.attrname in GRAPH_MODE_NAMES for node in module.nodes_of(nodes.Attribute)):
        return True
    return False
