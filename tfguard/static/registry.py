"""Rule base class and the registry of all rules.

Every module in :mod:`tfguard.static.checks` is imported once; each concrete
:class:`Rule` subclass defined there is registered under its code.  Adding a
rule therefore touches two places: its module in ``tfguard/static/checks/`` and its
catalog folder in ``rules/``.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Dict, Iterable, Iterator, List, Optional

if TYPE_CHECKING:  # pragma: no cover
    from tfguard.static.analysis.module import ModuleAnalysis
    from tfguard.static.finding import Finding, Fix
    from tfguard.static.suppression import SuppressionAudit

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class FixOffer:
    """A rule's automatic fix, declared on the rule (``fix = FixOffer(...)``).

    ``applicability`` is how safe the fix is at best (``"safe"``: ``--fix`` applies it; ``"unsafe"``: only with
    ``--unsafe-fixes``; a safe fix may still plan an unsafe one for a finding), ``what`` says in one line what it
    does (``tfguard rule CODE`` prints it), and ``plan(ctx, finding, node)`` plans the fix of one finding with the
    node the rule reported it at, returning a :class:`~tfguard.static.finding.Fix`, None, or raising
    :class:`~tfguard.static.fixes.refusal.NoFix` with the reason there is none (see ``tfguard/static/fixes/``).
    """

    applicability: str
    what: str
    plan: Callable[[Any, "Finding", Any], Optional["Fix"]]


class Rule:
    """A static check. Subclasses set the class attributes and implement ``check``."""

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    severity: ClassVar[str] = "error"
    summary: ClassVar[str] = ""
    default_enabled: ClassVar[bool] = True
    #: The rule's automatic fix, None when it has none.
    fix: ClassVar[Optional[FixOffer]] = None

    def check(self, module: "ModuleAnalysis") -> Iterable["Finding"]:
        """Yield the findings of this rule on one analysed module."""
        raise NotImplementedError

    @classmethod
    def catalog_slug(cls) -> str:
        """Return the rule's folder name in ``rules/``, e.g. ``TFG101-saver-in-session-loop``."""
        return f"{cls.code}-{cls.name}"


class SuppressionRule(Rule):
    """A rule about the ``# noqa`` comments themselves, such as TFG001 unused-noqa.

    Whether a comment suppresses anything is known only once every other rule
    has run on the file, so the engine calls ``check_suppressions`` after them,
    with the findings before suppression, instead of ``check``.  Its findings are
    then suppressed like any other (``# noqa: TFG001`` silences one).
    """

    def check_suppressions(self, audit: "SuppressionAudit") -> Iterable["Finding"]:
        """Yield the findings of this rule on one file's suppression comments."""
        raise NotImplementedError


def _concrete_rules(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        if sub.__dict__.get("code"):
            yield sub
        yield from _concrete_rules(sub)


@lru_cache(maxsize=None)
def all_rules() -> Dict[str, Rule]:
    """Return every registered rule, keyed and ordered by code."""
    import tfguard.static.checks as checks_pkg

    for info in pkgutil.iter_modules(checks_pkg.__path__):
        importlib.import_module(f"{checks_pkg.__name__}.{info.name}")
    rules: Dict[str, Rule] = {}
    for cls in _concrete_rules(Rule):
        if cls.code in rules:
            raise RuntimeError(f"rule code {cls.code} is registered twice")
        if cls.severity not in SEVERITIES:
            raise RuntimeError(f"rule {cls.code} has unknown severity {cls.severity!r}")
        rules[cls.code] = cls()
    return dict(sorted(rules.items()))


def rule_codes() -> List[str]:
    """Return all known rule codes, including the built-in TFG000 parse error."""
    return sorted({PARSE_ERROR_CODE, *all_rules()})


PARSE_ERROR_CODE = "TFG000"
PARSE_ERROR_NAME = "parse-error"
PARSE_ERROR_SUMMARY = (
    "The file cannot be read or parsed (not Python 3, nor Python 2 converted line for line; bad encoding; NUL byte)."
)
