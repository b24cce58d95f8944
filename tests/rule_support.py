"""Test-only rules: finding calls by name, building findings, registering rules for one test; checking one file."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Dict, Iterator, List, Optional, Sequence

from astroid import nodes

from tfguard.static.config import Settings
from tfguard.static.engine import check_bytes, read_file
from tfguard.static.finding import ChainLink, Finding
from tfguard.static.registry import Rule, all_rules


def check_file(path: str, settings: Optional[Settings] = None, project=None) -> List[Finding]:
    """Read and check one file as the checker does (undecodable bytes yield a TFG000 finding)."""
    return list(check_bytes(read_file(path), path, settings, project).findings)


def calls_named(analysis, name: str) -> Iterator[nodes.Call]:
    """Yield the calls of the plain name ``name`` (``bad()``) in an analysed module."""
    for call in analysis.nodes_of(nodes.Call):
        if isinstance(call.func, nodes.Name) and call.func.name == name:
            yield call


def finding_at(rule: Rule, analysis, node: nodes.NodeNG, headline: str, chain: Sequence[ChainLink] = ()) -> Finding:
    """Return ``rule``'s finding at ``node``."""
    return Finding(
        path=analysis.path,
        line=node.lineno,
        column=node.col_offset + 1,
        end_line=node.end_lineno,
        end_column=node.end_col_offset + 1,
        code=rule.code,
        name=rule.name,
        severity=rule.severity,
        headline=headline,
        chain=tuple(chain),
    )


@contextmanager
def registered(define: Callable[[], List[type]]) -> Iterator[Dict[str, type]]:
    """Register the Rule subclasses ``define()`` creates for the length of the block, keyed by code."""
    all_rules.cache_clear()
    classes = define()
    all_rules.cache_clear()
    try:
        yield {cls.code: cls for cls in classes}
    finally:
        for cls in classes:
            cls.code = ""  # the registry skips a subclass without a code of its own
        all_rules.cache_clear()
