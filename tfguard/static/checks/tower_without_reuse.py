"""TFG303: variables created in every tower of a multi-GPU loop with no variable reuse."""

from __future__ import annotations

from typing import Iterable

from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.analysis.towers import TowerAnalysis
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding


class TowerWithoutReuse(NodeRule):
    """The second tower's ``tf.get_variable`` raises "Variable ... already exists"."""

    code = "TFG303"
    name = "tower-without-reuse"
    severity = "error"
    summary = "`tf.get_variable` called in every tower of a per-device loop without variable reuse"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report each variable-creating call in a tower loop that has no reuse in force."""
        towers = TowerAnalysis(module)
        for loop in towers.tower_loops():
            for creation in towers.unshared_creations(loop):
                if creation.chain:
                    site = creation.site
                    what = f"`{describe(creation.node)}` calls `{describe(site)}` at line {site.lineno}"
                else:
                    what = f"`{describe(creation.node)}`"
                yield self.finding(
                    module, creation.node,
                    f"{what} in every tower of the loop at line {loop.lineno} with no variable reuse: the second "
                    "tower fails with \"ValueError: Variable ... already exists\"", "call "
                    "`tf.get_variable_scope().reuse_variables()` after the first tower, or wrap the loop in "
                    "`tf.variable_scope(tf.get_variable_scope(), reuse=tf.AUTO_REUSE)`",
                    creation.chain,
                )
