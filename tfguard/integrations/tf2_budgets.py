"""The ``@pytest.mark.tfguard(...)`` budgets of a TF2 test, checked on its TF2 facts (guarded.tf2_facts).

- ``max_host_syncs_per_step``: the most host syncs (`.numpy()`, `float(t)`, printing) one line may make per step;
- ``max_callback_share``: the largest share of a training batch one user callback's batch hooks may take (0-1];
- ``max_predict_calls``: the most `predict`/`evaluate` calls on small inputs one line may make.

Each is checked whatever the diagnostics' severities (TFG912, TFG911, TFG910 judge the same figures with their
own thresholds). A test with no TF2 step fails a host-sync budget it asserts, saying so, as a session budget
does with no session; no user callback or no predict call is within any budget.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

#: Budget name -> (the TF2 fact it bounds, lowest value allowed exclusive, highest inclusive, whole number).
_BUDGETS = {
    "max_host_syncs_per_step": ("syncs_per_step", -1e-12, math.inf, False),
    "max_callback_share": ("callback_share", 0.0, 1.0, False),
    "max_predict_calls": ("predict_calls", -1, math.inf, True),
}
TF2_BUDGETS = tuple(_BUDGETS)


def tf2_budget_value(name: str, value: Any) -> float:
    """A budget's value checked (ValueError, one line, naming the argument, when it is bad)."""
    _fact, low, high, whole = _BUDGETS[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (whole and not isinstance(value, int)) \
            or not low < value <= high:
        kind = "a whole number of at least 0" if whole else (
            "a number above 0 and at most 1" if high == 1.0 else "a number of at least 0")
        raise ValueError("%s must be %s, got %r" % (name, kind, value))
    return value


def check_tf2_budgets(tf2: Optional[Dict[str, Any]], budgets: Dict[str, float]) -> List[str]:
    """One line per asserted TF2 budget the test exceeded (or could not measure)."""
    failures = []
    for name, bound in budgets.items():
        fact = _BUDGETS[name][0]
        if tf2 is None or (name == "max_host_syncs_per_step" and not tf2.get("steps")):
            failures.append("%s=%s not checked: the test ran no TF2 step" % (name, bound))
            continue
        value = tf2.get(fact) or 0  # no user callback, no predict: 0, within any budget
        if value > bound:
            failures.append("%s=%s exceeded: %s" % (name, bound, _measured(name, value, tf2)))
    return failures


def _measured(name: str, value: float, tf2: Dict[str, Any]) -> str:
    if name == "max_host_syncs_per_step":
        return "%.1f host syncs per step at one line (%d steps of `%s`)" % (value, tf2["steps"], tf2["step_name"])
    if name == "max_callback_share":
        return "a callback took %.0f%% of a training batch" % (100 * value)
    return "%d predict/evaluate calls on small inputs from one line" % value
