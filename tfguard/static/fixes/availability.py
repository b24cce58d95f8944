"""What ``tfguard rule CODE`` says of a rule's fix, read from the rule's own declaration (``Rule.fix``)."""

from __future__ import annotations

from typing import Dict

from tfguard.static.registry import FixOffer, all_rules


def fix_offers() -> Dict[str, FixOffer]:
    """Return the fix each rule that has one declares, keyed and ordered by code."""
    return {code: rule.fix for code, rule in all_rules().items() if rule.fix is not None}


def fix_line(code: str) -> str:
    """Return ``Fix: safe (…)``, ``Fix: unsafe (…)`` or ``Fix: none`` for a rule."""
    rule = all_rules().get(code)
    if rule is None or rule.fix is None:
        return "Fix: none"
    option = "--fix" if rule.fix.applicability == "safe" else "--fix --unsafe-fixes"
    return f"Fix: {rule.fix.applicability} (`tfguard check {option}` {rule.fix.what})"
