"""Exceptions and warnings raised by the runtime guard (imports no TensorFlow)."""

from __future__ import annotations

from typing import Optional


class GraphFrozenError(RuntimeError):
    """An op was added to a graph that a `tfguard.frozen` block finalized.

    Subclasses `RuntimeError`, the type TensorFlow raises for a finalized graph, so
    existing handlers keep working. Attributes name where and when it happened.
    """

    def __init__(
        self,
        message: str,
        path: Optional[str] = None,
        line: Optional[int] = None,
        api: Optional[str] = None,
        step: Optional[int] = None,
        code: str = "",
        rule: str = "",
    ) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.api = api
        self.step = step
        self.code = code
        self.rule = rule


class GuardWarning(UserWarning):
    """Base of the runtime guard's warnings.

    A generic "error" warnings filter (`-W error`, `warnings.simplefilter("error")`, pytest's
    `filterwarnings = error`) never turns them into exceptions inside `sess.run`; a filter
    that names this class or a subclass (`-W error::tfguard.GraphGrowthWarning`) does.
    """


class GraphGrowthWarning(GuardWarning):
    """A source line keeps adding ops to the graph as the guarded loop runs (repeated growth)."""


class SlowdownWarning(GuardWarning):
    """Steps of the guarded loop are getting slower and slower (a trend, not a level shift)."""


class RetracingWarning(GuardWarning):
    """A `tf.function` keeps retracing as calls go by (TFG908's live alert)."""
