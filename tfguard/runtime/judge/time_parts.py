"""Where a session's loop spent its wall time, judged once for every output (issue 45: the HTML page said
"outside sess.run" 1.48 % in its facts and 9.23 % under its cost bar, two figures of two definitions).

The loop is the span the host share (`host_fraction`, TFG903's figure) is measured over: from the first run of the
dominant fetch signature to the end (record/recorder.py). Its wall time splits into

- ``in sess.run``: the loop's runs, less the summaries' extra run time;
- ``summaries``: the extra run time that fetching the summary ops cost (summary_cost.py; 0 when not measured);
- ``Saver.save``;
- ``outside sess.run``: the rest, Python between the runs (FileWriter calls included, said apart as
  ``writer_s``). Its share IS `host_fraction`: one figure, one definition, wherever a report shows it.

The set-up before the loop (building the graph, initializers, a restore) is no part of the loop: ``before_loop_s``.
A document written before the loop's own figures were kept (no ``loop``) is split over the session's whole wall
time, with the same definition of the parts.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

#: The parts, in the order the outputs show them: (name, css class of the HTML bar).
PARTS = (("in sess.run", "run"), ("summaries", "summaries"), ("Saver.save", "save"), ("outside sess.run", "outside"))


def _get(figures: Any, name: str, default: Any = None) -> Any:
    return figures.get(name, default) if isinstance(figures, dict) else getattr(figures, name, default)


def time_parts(figures: Any, cost: Dict[str, Any]) -> Dict[str, Any]:
    """The loop's wall time in parts (see the module docstring) of a session's figures (a Recording, or a document's
    figures), `cost` its summary cost: {span_s, before_loop_s, writer_s, outside_share, parts: [{name, css,
    seconds, share}]}."""
    wall = float(_get(figures, "wall_s") or 0.0)
    loop = _get(figures, "loop") or {"wall_s": wall, "run_s": _get(figures, "run_s") or 0.0,
                                     "save_s": _get(figures, "save_s") or 0.0}
    span, run, save = float(loop["wall_s"]), float(loop["run_s"]), float(loop["save_s"])
    extra = min(run, float(cost.get("extra_run_s") or 0.0))
    outside = max(0.0, span - run - save)
    seconds = [run - extra, extra, save, outside]
    host = _get(figures, "host_fraction")
    # The outside share is the host share itself, never a second computation of it (span <= 0: not measured).
    outside_share: Optional[float] = host if host is not None else (outside / span if span > 0 else None)
    parts: List[Dict[str, Any]] = []
    for (name, css), value in zip(PARTS, seconds):
        share = outside_share if name == "outside sess.run" else (value / span if span > 0 else None)
        parts.append({"name": name, "css": css, "seconds": value, "share": share})
    return {"span_s": span, "before_loop_s": max(0.0, wall - span), "writer_s": float(cost.get("writer_s") or 0.0),
            "outside_share": outside_share, "parts": parts}


def outside_share(figures: Dict[str, Any]) -> Optional[float]:
    """The share of the loop's wall time outside sess.run, as every output shows it (the judged `time_parts`; a
    session's figures without them, a test's hand-made ones: its `host_fraction`, the same figure)."""
    parts = figures.get("time_parts")
    return parts["outside_share"] if parts else figures.get("host_fraction")
