"""The per-module analysis handed to every rule (work in progress)."""

from __future__ import annotations

from astroid import nodes


class ModuleAnalysis:
    """Shared static facts about one parsed module."""

    def __init__(self, module: nodes.Module, path: str) -> None:
        self.module = module
        self.path = path
