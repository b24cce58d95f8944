"""TFG907 cross-device-copies: many tensors crossed devices in the traced step (`--placement`): the
`copies_threshold` of the placement data (DEFAULT_COPIES_THRESHOLD) or more. Information: it blames no line."""

from __future__ import annotations

from typing import Any, Dict, List

from tfguard.runtime.diagnostics import RuntimeDiagnostic
from tfguard.runtime.document import format_bytes
from tfguard.runtime.judge.gpu_op_on_cpu import TOP


def judge(data: Dict[str, Any]) -> List[Dict[str, Any]]:
    """TFG907 from one traced step's placement data (devices/placement.py)."""
    count = sum(t["count"] for t in data["transfers"])
    if count < data["copies_threshold"]:
        return []
    size = sum(t["bytes"] for t in data["transfers"])
    pairs = ", ".join("%s -> %s: %d" % (t["from"], t["to"], t["count"]) for t in data["transfers"][:TOP])
    return [DIAGNOSTIC.finding(
        "%d tensors (%s) crossed devices in one step (%s) — ops that feed each other on "
        "different devices copy every step; place them together unless this is "
        "parameter-server placement" % (count, format_bytes(size), pairs), None, None, None,
        tensors=count, bytes=size)]


DIAGNOSTIC = RuntimeDiagnostic(
    "TFG907", "cross-device-copies", "info", "Many tensors crossed devices in the traced step (`--placement`).", "",
    judge, reads="placement")
