"""TFG906 gpu-op-on-cpu: ops pinned to a GPU ran on a CPU in the traced step (`--placement`); it blames the line
that built most of them (the placement data's fallbacks carry each op's user line)."""

from __future__ import annotations

from collections import Counter
from typing import Any, Dict, Iterable, List, Tuple

from tfguard.runtime.diagnostics import RuntimeDiagnostic
from tfguard.runtime.document import display_path
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.verdict import Diagnostic, Site

#: Lines named in one message.
TOP = 3
_TYPES_SHOWN = 3


def fallback_sites(fallbacks: Iterable[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Fallbacks grouped by source line: path, line, code, op types (with counts), ops, most ops first."""
    sites: Dict[Tuple[str, int], Dict[str, Any]] = {}
    for f in fallbacks:
        site = sites.setdefault((f["path"], f["line"]), {"path": f["path"], "line": f["line"], "code": f["code"],
                                                        "types": Counter(), "ops": 0, "ran_on": set()})
        site["types"][f["type"]] += 1
        site["ops"] += 1
        site["ran_on"].add(f["ran_on"])
    ordered = sorted(sites.values(), key=lambda s: (-s["ops"], s["path"], s["line"]))
    for site in ordered:
        common = site["types"].most_common()
        site["types"] = ", ".join(t if n == 1 else "%s x%d" % (t, n) for t, n in common[:_TYPES_SHOWN])
        if len(common) > _TYPES_SHOWN:
            hidden = len(common) - _TYPES_SHOWN
            site["types"] += " and %d more type%s" % (hidden, "" if hidden == 1 else "s")
        site["ran_on"] = ", ".join(sorted(site["ran_on"]))
    return ordered


def judge(evidence: Evidence) -> List[Diagnostic]:
    """TFG906 from one traced step's placement data (devices/placement.py), when a step was traced."""
    data = evidence.placement
    if data is None:
        return []
    fallbacks = data["fallbacks"]
    if not fallbacks:
        return []
    sites = fallback_sites(fallbacks)
    parts = ["%s:%d (%s)" % (display_path(s["path"]), s["line"], s["types"]) for s in sites[:TOP]]
    if len(sites) > TOP:
        parts.append("%d more line%s" % (len(sites) - TOP, "" if len(sites) == TOP + 1 else "s"))
    why = ("no GPU is visible to the session, so soft placement put them on the CPU"
           if not data["gpus_visible"] else
           "soft placement moved them: these op types have no GPU kernel for their dtypes")
    return [DIAGNOSTIC.finding("%d op%s pinned to a GPU ran on a CPU: %s" % (
        len(fallbacks), "" if len(fallbacks) == 1 else "s", "; ".join(parts)), None,
        sites[0]["path"], sites[0]["line"], help=why, named=[Site(s["path"], s["line"]) for s in sites[1:TOP]],
        ops=len(fallbacks), gpus_visible=bool(data["gpus_visible"]),
        sites=[{"path": s["path"], "line": s["line"], "ops": s["ops"], "types": s["types"]} for s in sites])]


DIAGNOSTIC = RuntimeDiagnostic(
    "TFG906", "gpu-op-on-cpu", "warning", "Ops pinned to a GPU ran on a CPU in the traced step (`--placement`).",
    "cpu-fallback", judge)
