"""The codes of the runtime diagnostics (TFG901-TFG908): names, severities and one-line summaries.

``tfguard rules`` lists them after the static rules and ``tfguard rule TFG901`` prints their pages
(``rules/TFG901-graph-growth/README.md``), so every code tfguard prints is documented. Pure data: the
verdicts themselves are computed in :mod:`tfguard.runtime.recorder`, :mod:`tfguard.runtime.placement` and
:mod:`tfguard.runtime.retracing`.
"""

from __future__ import annotations

from typing import Dict, NamedTuple


class RuntimeCode(NamedTuple):
    """One runtime diagnostic: ``severity`` is the most severe it is reported with."""

    name: str
    severity: str
    summary: str
    fail_on: str


#: Code -> its description, in code order; ``fail_on`` is the ``tfguard run --fail-on`` name ("" for none).
RUNTIME_CODES: Dict[str, RuntimeCode] = {
    "TFG901": RuntimeCode("graph-growth", "error", "The graph keeps growing while the training loop runs "
                          "(error), grew a few times after the loop started (info), or code tried to add ops to "
                          "a frozen graph (error).", "growth"),
    "TFG902": RuntimeCode("slowing-steps", "warning", "Steps get slower and slower: a significant, persisting "
                          "trend of the program's own work.", "slowdown"),
    "TFG903": RuntimeCode("input-bound", "warning", "The device waits on Python (input preparation) for half "
                          "of the wall time or more.", "input-bound"),
    "TFG904": RuntimeCode("summaries-every-run", "warning", "Summary ops are fetched on most runs instead of "
                          "every N steps.", "summaries"),
    "TFG905": RuntimeCode("saves-too-often", "warning", "`Saver.save` takes 10% of the wall time or more.",
                          "saves"),
    "TFG906": RuntimeCode("gpu-op-on-cpu", "warning", "Ops pinned to a GPU ran on a CPU in the traced step "
                          "(`--placement`).", "cpu-fallback"),
    "TFG907": RuntimeCode("cross-device-copies", "info", "Many tensors crossed devices in the traced step "
                          "(`--placement`).", ""),
    "TFG908": RuntimeCode("function-retracing", "warning", "A `tf.function` keeps retracing as calls go by "
                          "(warning), or traced a bounded handful of times (info).", "retracing"),
}


def catalog_slug(code: str) -> str:
    """Return the catalog folder name of a runtime code, ``TFG901-graph-growth``."""
    return f"{code}-{RUNTIME_CODES[code].name}"
