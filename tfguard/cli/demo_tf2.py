"""``tfguard demo``'s TF 2 part: the field reports' diseases in TF 2 form, checked, run under the guard, fixed.

``tf2_train.py`` plants them in one small Keras script (an eager training step, summaries of every weight and
gradient and a checkpoint written every step, a map that parses its records in Python one at a time, ``predict``
once per sample), each large enough for the guard to judge in the default 60 steps; ``tf2_fixed.py`` is its fixed
twin. The part prints what the checker finds on both, runs both under ``tfguard run --json`` and prints the two
reports side by side, then every diagnostic the guard gave with its line. Whatever the checker and the guard find is
what it shows: nothing here is a canned result.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional

BAD_SCRIPT = "tf2_train.py"
FIXED_SCRIPT = "tf2_fixed.py"
TITLE = ("an eager training step, summaries of every weight and a checkpoint every step, a map that parses "
         "records in Python one at a time, predict per sample")
_ROWS = ["steps", "tf.functions (calls)", "traces", "predict calls", "diagnostics", "run time (with start-up)"]


def tensorflow_major() -> Optional[int]:
    """The installed TensorFlow's major version, read from its package metadata (TensorFlow is not imported)."""
    for name in ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly"):
        version = _distribution_version(name)
        if version:
            try:
                return int(version.split(".")[0])
            except ValueError:
                continue
    return None


def _distribution_version(name: str) -> Optional[str]:
    """An installed distribution's version, or None; `importlib.metadata` where it exists (Python 3.8+), else
    setuptools' `pkg_resources` (Python 3.7, beside TensorFlow 1.15)."""
    try:
        from importlib import metadata
    except ImportError:
        try:
            import pkg_resources
        except ImportError:
            return None
        try:
            return pkg_resources.get_distribution(name).version
        except Exception:  # not installed (DistributionNotFound), or unreadable metadata
            return None
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _functions(verdict: Any) -> List[Dict[str, Any]]:
    return list(verdict.functions.functions) if verdict.functions is not None else []


def _column(verdict: Any, steps: int) -> List[str]:
    functions = _functions(verdict)
    predict = [f for f in functions if "predict" in f["function"]]
    codes = ", ".join(d.code + ("" if d.severity != "info" else " (info)") for d in verdict.diagnostics) or "none"
    return [str(steps),
            "%d (%d calls)" % (len(functions), sum(f["calls"] for f in functions)),
            str(sum(f["traces"] for f in functions)),
            str(sum(f["calls"] for f in predict)),
            codes,
            "%.1f s" % verdict.facts["demo_seconds"]]


def comparison_table(bad: Any, fixed: Any, steps: int, width: int) -> str:
    """The two TF 2 runs side by side: what the guard recorded of their functions, and its diagnostics."""
    from tfguard.views.compare import _fit

    rows = [[label, a, b] for label, a, b in zip(_ROWS, _column(bad, steps), _column(fixed, steps))]
    return _fit(rows, ["", BAD_SCRIPT, FIXED_SCRIPT], width)


def diagnostic_lines(script: str, verdict: Any, width: int) -> List[str]:
    """One wrapped line group per diagnostic of ``script``'s run (every scope), each led by its code and line."""
    from tfguard.runtime.output.fit import wrap_lines

    lines = []
    for found in verdict.diagnostics:
        where = ("%s:%s " % (os.path.basename(found.path), found.line)) if found.path else ""
        lines += wrap_lines("%s %s%s" % (found.code, where, found.one_line), width, indent="  ",
                            subsequent="    ")
    return lines
