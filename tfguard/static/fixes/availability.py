"""Which rules have fixes, and how safe they are: what ``tfguard rule CODE`` shows (no astroid needed)."""

from __future__ import annotations

from typing import Dict, Tuple

#: Rule code -> (applicability, one line on what the fix does).  Codes not listed have no fix.
AVAILABLE: Dict[str, Tuple[str, str]] = {
    "TFG101": ("safe", "builds the Saver once, before the loop, with `max_to_keep=None` when each per-iteration "
                       "Saver saved once (the same files stay on disk); unsafe otherwise (one Saver deletes all but "
                       "its last `max_to_keep` checkpoints)"),
    "TFG102": ("safe", "builds the op once, before the loop"),
    "TFG103": ("safe", "builds the initializer once, before the loop"),
    "TFG106": ("safe", "builds `get_next()` once, before the loop; a one-shot iterator only as an unsafe fix"),
    "TFG107": ("unsafe", "builds the summary op once, before the loop; its values are then written under one tag "
                         "instead of `loss`, `loss_1`..."),
    "TFG108": ("safe", "builds the assign op once, before the loop; when the value changes, feeds it to the "
                       "variable's initializer (`sess.run(v.initializer, {v.initializer.inputs[1]: value})`, no op "
                       "added), safe when the value is provably a Python or NumPy value"),
    "TFG201": ("unsafe", "writes `writer.add_summary(sess.run(...), step)` only when `step % 100 == 0`"),
    "TFG202": ("unsafe", "saves only every N steps (1000, or a tenth of a shorter loop) and on the last step; safe "
                         "when the last save decides the files left (`max_to_keep=1`, or one path for every save)"),
    "TFG204": ("safe", "passes `num_parallel_calls=tf.data.experimental.AUTOTUNE`; unsafe when the map function "
                       "draws random numbers"),
    "TFG205": ("safe", "ends the pipeline with `.prefetch(tf.data.experimental.AUTOTUNE)`"),
    "TFG403": ("safe", "passes `tf.constant(value)` when the function uses the parameter only as a tensor (unused, "
                       "`tf.cast`, a summary `step=`); none otherwise"),
    "TFG404": ("unsafe", "passes `reduce_retracing=True` to the tf.function (static shapes read in it become None)"),
}


def fix_line(code: str) -> str:
    """Return ``Fix: safe (…)``, ``Fix: unsafe (…)`` or ``Fix: none`` for a rule."""
    found = AVAILABLE.get(code)
    if found is None:
        return "Fix: none"
    applicability, what = found
    option = "--fix" if applicability == "safe" else "--fix --unsafe-fixes"
    return f"Fix: {applicability} (`tfguard check {option}` {what})"
