"""TFG304: a GPU session that takes all GPU memory (no ``allow_growth`` or memory fraction)."""

from __future__ import annotations

from typing import Iterable

from tfguard.static.analysis.devices import MEMORY_OPTIONS, devices
from tfguard.static.analysis.module import ModuleAnalysis, describe
from tfguard.static.analysis.one_shot import is_one_shot_script
from tfguard.static.checks._node_rule import NodeRule
from tfguard.static.finding import Finding


class GpuMemoryUnbounded(NodeRule):
    """By default TensorFlow maps nearly all memory of every visible GPU, for one process."""

    code = "TFG304"
    name = "gpu-memory-unbounded"
    severity = "info"
    default_enabled = False
    summary = "GPU session config sets neither `allow_growth` nor `per_process_gpu_memory_fraction`"

    def check(self, module: ModuleAnalysis) -> Iterable[Finding]:
        """Report sessions of a GPU-pinning module whose config bounds no GPU memory."""
        if is_one_shot_script(module):
            return  # a script that runs its session once: the log, the pin or the GPU grab is its point
        facts = devices(module)
        if not facts.gpu_pins() or facts.sets_env_allow_growth():
            return
        for session in facts.sessions():
            options = facts.config_options(session.config)
            if options is None or any(facts.sets_option(options, key) for key in MEMORY_OPTIONS):
                continue
            yield self.finding(
                module, session.node,
                f"`{describe(session.node)}` takes nearly all memory of every visible GPU, so no other process "
                "can share them", "set `config.gpu_options.allow_growth = True` or "
                "`config.gpu_options.per_process_gpu_memory_fraction`",
            )
