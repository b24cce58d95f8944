"""Reports kept as plain JSON-ready data: the guard's report and the placement report share this shape."""

from __future__ import annotations

import json
from typing import Any, ClassVar, Dict, Optional


class DataReport:
    """A report whose fields are plain data: `from_dict` checks the version, `to_dict` copies, fields read as
    attributes (`report.runs`)."""

    #: The `version` a document must carry, and what the report is called in the error for another one.
    VERSION: ClassVar[int] = 0
    KIND: ClassVar[str] = "report"

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> Any:
        """Rebuild a report from `to_dict()` output (e.g. loaded from JSON)."""
        if not isinstance(data, dict) or data.get("version") != cls.VERSION:
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


def format_seconds(value: Optional[float]) -> str:
    """A duration for report tables, `1.234 ms` style; `-` when unknown."""
    if value is None:
        return "-"
    if value >= 1.0:
        return "%.3f s" % value
    if value >= 1e-3:
        return "%.3f ms" % (value * 1e3)
    return "%.1f us" % (value * 1e6)
