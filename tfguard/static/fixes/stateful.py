"""Which TF APIs build ops that hold state between runs, as data generated from TensorFlow's op registry.

``tf_stateful_apis.json`` is written by ``tools/gen_stateful_ops.py`` (the only place that imports TensorFlow for
this; the checker never does): an op holds state when its OpDef is stateful, it has an output, and it reaches no
state through an input (a resource handle or reference).  Random ops, variables, queues, readers, iterators,
``Print`` and ``py_func`` hold state: one such op run many times computes other values than one built per
iteration, so hoisting it is never safe.  ``assign``, ``get_next`` or ``dequeue`` act on state the program
already shares (the variable, iterator or queue passed in), so one op or many do the same.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Dict, Tuple

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_stateful_apis.json")


@lru_cache(maxsize=None)
def _data() -> Dict[str, Dict[str, Tuple[str, ...]]]:
    with open(DATA, encoding="utf-8") as handle:
        raw = json.load(handle)
    return {
        "apis": {name: tuple(ops) for name, ops in raw["apis"].items()},
        "methods": {name: tuple(ops) for name, ops in raw["methods"].items()},
    }


def state_holding_ops(api: str) -> Tuple[str, ...]:
    """Return the state-holding ops building ``api`` may add (``("RandomStandardNormal",)``), or ``()``.

    ``api`` is a canonical name (``tensorflow.random_normal``) or a method written ``.name``.
    """
    data = _data()
    table = data["methods"] if api.startswith(".") else data["apis"]
    return table.get(api, ())


def generated_for() -> str:
    """Return the TensorFlow version the data was generated from."""
    with open(DATA, encoding="utf-8") as handle:
        return json.load(handle)["tensorflow"]
