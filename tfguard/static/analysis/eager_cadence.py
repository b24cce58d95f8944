"""TF 2 summary writes and checkpoint saves made on every step of a training loop, directly or through helpers.

The TF 2 half of TFG201/TFG202: :mod:`~tfguard.static.analysis.eager_steps` says which loop steps and which
calls write; :mod:`~tfguard.static.analysis.step_effects` follows helpers (a ``@tf.function`` train step that
writes histograms of every weight, a ``log()`` helper that flushes the writer).
"""

from __future__ import annotations

from typing import Iterator, List, Tuple

from astroid import nodes

from tfguard.static.analysis.eager_steps import eager_kind, eager_steps
from tfguard.static.analysis.step_effects import StepEffect, step_effects
from tfguard.static.analysis.tf_functions import tf2_code


def every_step_sites(module, kind: str) -> Iterator[Tuple[nodes.Call, nodes.NodeNG, List[StepEffect]]]:
    """Yield (call, step loop, effects) for each call that writes ``kind`` on every step of a TF 2 loop.

    ``effects`` is empty when the call writes itself; else it lists what the helper it calls writes on each
    call (each with its chain of helper lines).
    """
    if not tf2_code(module):
        return
    loops = eager_steps(module)
    effects = step_effects(module)
    for call in module.nodes_of(nodes.Call):
        if next(module.enclosing_loops(call), None) is None:
            continue
        direct = eager_kind(module, call)
        if direct is not None and direct != kind:
            continue
        reached = [] if direct is not None else effects.through_helpers(call, kind)
        if direct is None and not reached:
            continue
        loop = loops.every_step_loop(call)
        if loop is not None:
            yield call, loop, reached
