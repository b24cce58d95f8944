"""What an expression is known to hold: a :class:`Value` and its kinds (shared by the dataflow and its helpers)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from astroid import nodes

MODULE = "module"  # a TF module, class or function name (``tf.train.Saver``)
SESSION = "session"
RUNNER = "runner"  # a callable from ``sess.make_callable``
GRAPH = "graph"
TF = "tf"  # any object that came from TensorFlow: tensor, op, variable, dataset, layer…
FUNCTION = "function"  # a function or method defined in this module
CLASS = "class"  # a class defined in this module
INSTANCE = "instance"  # an instance of a class defined in this module
PYMODULE = "pymodule"  # a module of the checked project (``node`` is its astroid Module)
#: plain data (a NumPy array, a ``sess.run`` result, what a NumPy-returning TF API returns) or a Python list whose
#: items are not known: subscripts and attributes of it build nothing
DATA = "data"


@dataclass(frozen=True)
class Value:
    """What an expression is known to hold.

    ``api`` is the canonical TF name for MODULE values and the producing API
    for TF values; ``tensor`` is True when operators on the value build ops;
    ``node`` is the FunctionDef/ClassDef for FUNCTION, CLASS and INSTANCE values.
    """

    kind: str
    api: str = ""
    tensor: bool = False
    node: Optional[nodes.NodeNG] = None
