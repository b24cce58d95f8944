"""Plain JSON-ready reports (the placement report) and the number, time and path formatting every output shares.

The run's document and its version are verdict.py's."""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any, ClassVar, Dict, List, Optional, Tuple


class DataReport:
    """A report whose fields are plain data: `from_dict` checks the version, `to_dict` copies, fields read as
    attributes (`report.runs`)."""

    #: The `version` a document must carry, and what the report is called in the error for another one.
    VERSION: ClassVar[int] = 0
    #: Earlier versions a document may carry and still be read (their fields are a subset).
    READS: ClassVar[Tuple[int, ...]] = ()
    KIND: ClassVar[str] = "report"

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> Any:
        """Rebuild a report from `to_dict()` output (e.g. loaded from JSON)."""
        if not isinstance(data, dict) or data.get("version") not in (cls.VERSION,) + cls.READS:
            raise ValueError("unsupported tfguard %s version: %r" % (
                cls.KIND, data.get("version") if isinstance(data, dict) else data))
        return cls(json.loads(json.dumps(data)))

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-serialisable copy with stable keys."""
        return json.loads(json.dumps(self._data))

    def __getattr__(self, name: str) -> Any:
        data = self.__dict__.get("_data")
        if data is not None and name in data:
            return data[name]
        raise AttributeError(name)


def significant(value: float, digits: int = 3) -> str:
    """``value`` to ``digits`` significant digits, without an exponent: 3.79, 246, 0.0123, 1830."""
    if value == 0:
        return "0"
    text = "%.*g" % (digits, value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        decimals = max(0, digits - 1 - int(exponent))
        text = "%.*f" % (decimals, value)
    return text


def format_seconds(value: Optional[float]) -> str:
    """A duration for report tables to 3 significant digits, `3.79 s`, `246 ms`, `85.0 us`; `-` when unknown."""
    if value is None:
        return "-"
    if value >= 1.0:
        return "%s s" % _padded(value)
    if value >= 1e-3:
        return "%s ms" % _padded(value * 1e3)
    return "%s us" % _padded(value * 1e6)


def _padded(value: float) -> str:
    """3 significant digits that keep their trailing zeros (1.20, 86.0), as the precision they carry."""
    if value >= 100:
        return "%.0f" % value
    if value >= 10:
        return "%.1f" % value
    return "%.2f" % value


def after_run(step: int) -> str:
    """When something happened between runs, runs counted from 1: ``before run 1`` for step 0 (no run done yet),
    else ``after run N``; one spelling for growth sites, blocked changes and live warnings."""
    return "before run 1" if step == 0 else "after run %d" % step


def after_runs(first: int, last: int) -> str:
    """A span of :func:`after_run`: ``after run 4``, ``after runs 2-31``, ``before run 1 to after run 2``."""
    if first == last:
        return after_run(first)
    if first == 0:
        return "before run 1 to %s" % after_run(last)
    return "after runs %d-%d" % (first, last)


def display_path(path: str) -> str:
    """`path` relative to the working folder when it lies inside it, else as it is."""
    if path.startswith("<"):
        return path
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def format_bytes(value: Optional[int]) -> str:
    """`1.2 MiB` style; '-' for unknown."""
    if value is None:
        return "-"
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= size:
            return "%.1f %s" % (value / size, unit)
    return "%d B" % value


def _name_start(label: str, index: int) -> int:
    """Where the fetch or feed name holding position `index` of a signature label starts."""
    return max(label.rfind(", ", 0, index) + 2, label.rfind(" <- ", 0, index) + 4, 0) if index else 0


def shown_labels(labels: List[str], width: Optional[int] = None) -> List[str]:
    """Fetch-signature labels as a table shows them, each at most `width` characters (None: whole), never two that
    read the same (issue 45: six rows that differed only past the cut read alike).

    A label cut where another one still reads the same keeps its head, then the name where the two part; labels
    that still read alike (the same names fetched in another structure) are numbered, ``[2]``, ``[3]``."""
    shown = []
    for i, label in enumerate(labels):
        text = label
        if width and len(label) > width:
            text = label[:width - 3] + "..."
            alike = [o for j, o in enumerate(labels) if j != i and o != label and o.startswith(label[:width - 3])]
            if alike:
                parting = max(len(os.path.commonprefix([label, o])) for o in alike)
                head = max(8, width // 3)
                start = max(_name_start(label, parting), head)
                room = width - head - 3
                rest = label[start:]
                text = label[:head] + "..." + (rest if len(rest) <= room else rest[:room - 3] + "...")
        shown.append(text)
    counts = Counter(shown)
    seen: Counter = Counter()
    for i, text in enumerate(shown):
        if counts[text] > 1:
            seen[text] += 1
            shown[i] = "%s [%d]" % (text, seen[text])
    return shown
