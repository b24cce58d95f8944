"""Judge a TF2 run's steps (record/steps.py) once: TFG902-TFG905's TF2 cases and TFG909, in code order.

TFG902-TFG905 are declared once, by their session judges; their TF2 cases are judged here from the steps (the
modules steps_*.py), with the same codes and thresholds. TFG909 (eager_training_step.py) reads only steps.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from tfguard.runtime.judge import eager_training_step, steps_input, steps_slowing, steps_writes
from tfguard.runtime.record.steps import StepRecord

_JUDGES = (steps_slowing.judge, steps_input.judge, steps_writes.judge_summaries, steps_writes.judge_saves,
           eager_training_step.DIAGNOSTIC.judge)


def judge_steps(record: StepRecord, options: Optional[Dict[str, Any]] = None) -> List[Dict[str, Any]]:
    """Every finding on a TF2 run's steps."""
    return [finding for judge in _JUDGES for finding in judge(record, options)]
