"""The text of a TF2 program's Keras calls, callbacks and host syncs (the document's `program` part)."""

from __future__ import annotations

from typing import Any, Dict, Optional


def render(data: Dict[str, Any], width: Optional[int] = None) -> str:
    """The diagnostics of the `program` part (TFG910-TFG912), one per line; "" when it has none."""
    from tfguard.runtime.output.fit import resolve_width, wrap_lines

    diagnostics = data.get("diagnostics") or []
    if not diagnostics:
        return ""
    steps = data.get("steps") or {}
    head = "tfguard TF2 program report: %d finding%s" % (len(diagnostics), "" if len(diagnostics) == 1 else "s")
    if steps.get("count"):
        head += " (%d steps of `%s`)" % (steps["count"], steps.get("name") or "?")
    lines = [head]
    columns = resolve_width(width)
    for diagnostic in diagnostics:
        line = "%s %s: %s" % (diagnostic["code"], diagnostic["severity"], diagnostic["message"])
        lines.extend(wrap_lines(line, columns, subsequent="    ") if columns else [line])
    return "\n".join(lines)
