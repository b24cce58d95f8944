"""Runtime guard: record sess.run timing, graph growth and host time; freeze the graph.

Modules that touch TensorFlow (guard, hook) import it only when used.
"""

from __future__ import annotations

from tfguard.runtime.errors import GraphFrozenError, GraphGrowthWarning, GuardWarning, SlowdownWarning
from tfguard.runtime.report import Report

__all__ = ["GraphFrozenError", "GraphGrowthWarning", "GuardWarning", "Report", "SlowdownWarning"]
