"""The judges: one module per runtime diagnostic, each declaring itself (``DIAGNOSTIC = RuntimeDiagnostic(...)``).

`all_diagnostics()` imports every module of this package once and collects their declarations, keyed and
ordered by code, as the static registry collects its rules; a module without ``DIAGNOSTIC`` is a helper
(slowdown.py, shares.py, summary_cost.py, time_parts.py, across_sessions.py, judgement.py).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from typing import Any, Dict, List

from tfguard.runtime.diagnostics import SEVERITIES, RuntimeDiagnostic
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.verdict import Diagnostic


@lru_cache(maxsize=None)
def all_diagnostics() -> Dict[str, RuntimeDiagnostic]:
    """Every declared runtime diagnostic, keyed and ordered by code."""
    found: Dict[str, RuntimeDiagnostic] = {}
    for info in pkgutil.iter_modules(__path__):
        declared = getattr(importlib.import_module("%s.%s" % (__name__, info.name)), "DIAGNOSTIC", None)
        if declared is None:
            continue
        if declared.code in found:
            raise RuntimeError("runtime diagnostic %s is declared twice" % declared.code)
        if declared.severity not in SEVERITIES:
            raise RuntimeError("runtime diagnostic %s has an unknown severity" % declared.code)
        found[declared.code] = declared
    return dict(sorted(found.items()))


def fail_on_codes() -> Dict[str, str]:
    """``--fail-on`` name -> code, in code order (the diagnostics that can fail a run)."""
    return {d.fail_on: code for code, d in all_diagnostics().items() if d.fail_on}


def code_of(fail_on: str) -> str:
    """The code a ``--fail-on`` name stands for (``growth`` -> its code); KeyError for an unknown name."""
    return fail_on_codes()[fail_on]


def fail_on_name(word: str) -> str:
    """The ``--fail-on`` name a word stands for: a name (``growth``) or its code (``TFG901``), any case."""
    word = word.strip()
    for name, code in fail_on_codes().items():
        if word.upper() == code:
            return name
    return word.lower()


def judge_evidence(evidence: Evidence) -> List[Diagnostic]:
    """Every judge's findings on `evidence`, in code order, each with the evidence's scope (and session)."""
    return [finding.scoped(evidence.scope, evidence.session) for d in all_diagnostics().values()
            for finding in d.judge(evidence)]


def judge_placement(data: Dict[str, Any]) -> List[Diagnostic]:
    """The findings on one traced step's placement data alone (a `tfguard.placement` report), in code order."""
    return judge_evidence(Evidence(placement=data))
