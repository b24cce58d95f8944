"""TFG907 cross-device-copies: many tensors crossed devices in the traced step (`--placement`): the
`copies_threshold` of the placement data (DEFAULT_COPIES_THRESHOLD) or more. Information: it blames no line."""

from __future__ import annotations

from typing import List

from tfguard.runtime.diagnostics import RuntimeDiagnostic
from tfguard.runtime.document import format_bytes
from tfguard.runtime.judge.gpu_op_on_cpu import TOP
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.verdict import Diagnostic


def judge(evidence: Evidence) -> List[Diagnostic]:
    """TFG907 from one traced step's placement data (devices/placement.py), when a step was traced."""
    data = evidence.placement
    if data is None:
        return []
    count = sum(t["count"] for t in data["transfers"])
    if count < data["copies_threshold"]:
        return []
    size = sum(t["bytes"] for t in data["transfers"])
    pairs = ", ".join("%s -> %s: %d" % (t["from"], t["to"], t["count"]) for t in data["transfers"][:TOP])
    return [DIAGNOSTIC.finding(
        "%d tensors (%s) crossed devices in one step (%s)" % (count, format_bytes(size), pairs), None, None, None,
        help="ops that feed each other on different devices copy every step; place them together unless this is "
        "parameter-server placement", tensors=count, bytes=size)]


DIAGNOSTIC = RuntimeDiagnostic(
    "TFG907", "cross-device-copies", "info", "Many tensors crossed devices in the traced step (`--placement`).", "",
    judge)
