"""Runtime guard: record sess.run timing, graph growth and host time; freeze the graph.

The stages, each standing only on those before it and on the shared base here (errors, safety, tf_access,
document, diagnostics): ``record`` (what a guard keeps: series, signatures, growth sites, the typed
recording) <- ``capture`` (the session, graph, Saver and FileWriter patches, the import hook, the host sampler)
<- ``judge`` (one module per diagnostic) <- ``devices`` (placement, GPU) <- ``output`` (the text report, the JSON
document, plots, TensorBoard, live alerts) <- ``run`` (``frozen``/``watch``, GuardHook, ``tfguard run``).
Modules that touch TensorFlow import it only when used; importing this package imports nothing
(the names below load on first use).
"""

from __future__ import annotations

from typing import Any

__all__ = ["GraphFrozenError", "GraphGrowthWarning", "GuardWarning", "SessionReport", "SlowdownWarning"]
_LAZY = {"SessionReport": "tfguard.runtime.output.session_report", "GraphFrozenError": "tfguard.runtime.errors",
         "GraphGrowthWarning": "tfguard.runtime.errors", "GuardWarning": "tfguard.runtime.errors",
         "SlowdownWarning": "tfguard.runtime.errors"}


def __getattr__(name: str) -> Any:
    """Load the public names lazily (PEP 562): the report loads tabulate."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError("module 'tfguard.runtime' has no attribute %r" % (name,))
    import importlib

    return getattr(importlib.import_module(module), name)
