"""What every fix planner of one module shares: the analysis, the source text, the names already in use."""

from __future__ import annotations

import builtins
import keyword
import re
from collections import Counter
from typing import Dict, Optional, Set

from astroid import nodes

from tfguard.static.analysis.module import ModuleAnalysis
from tfguard.static.fixes.loops import LoopScan
from tfguard.static.fixes.source import SourceText


class FixContext:
    """One module being planned for: fresh names handed out here never collide with each other."""

    def __init__(self, module: ModuleAnalysis, source: SourceText) -> None:
        self.module = module
        self.source = source
        self._scans: Dict[int, LoopScan] = {}
        self._names: Optional[Set[str]] = None

    def scan(self, loop: nodes.NodeNG) -> LoopScan:
        """Return the :class:`LoopScan` of ``loop``, read once."""
        found = self._scans.get(id(loop))
        if found is None:
            found = self._scans[id(loop)] = LoopScan(self.module, loop)
        return found

    def names_in_use(self) -> Set[str]:
        """Return every identifier of the module (and those handed out by :meth:`fresh_name`)."""
        if self._names is None:
            self._names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", self.source.text))
        return self._names

    def fresh_name(self, base: str) -> str:
        """Return an identifier based on ``base`` that the module does not use yet, and reserve it."""
        used = self.names_in_use()
        base = re.sub(r"[^A-Za-z0-9_]", "_", base).strip("_") or "hoisted"
        if base[0].isdigit() or keyword.iskeyword(base) or hasattr(builtins, base):
            base = f"{base}_op"
        candidate, number = base, 1
        while candidate in used:
            number += 1
            candidate = f"{base}_op" if number == 2 and not base.endswith("_op") else f"{base}_{number}"
        used.add(candidate)
        return candidate

    def tf_alias(self) -> Optional[str]:
        """Return the name the module most often reaches TensorFlow through (``tf`` in ``tf.data``), if any.

        Names are resolved by the dataflow, so ``tf = tensorflow`` and ``from tensorflow.compat import v1 as
        tf`` both give ``tf``.
        """
        counts = Counter(
            name.name for name in self.module.nodes_of(nodes.Name)
            if isinstance(name.parent, nodes.Attribute) and self.module.qualname(name) == "tensorflow"
        )
        return counts.most_common(1)[0][0] if counts else None
