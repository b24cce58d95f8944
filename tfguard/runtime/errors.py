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


class GraphGrowthWarning(UserWarning):
    """A source line added ops to the graph while a `tfguard.watch` block ran."""


class SlowdownWarning(UserWarning):
    """Step intervals of the guarded loop are rising significantly."""
