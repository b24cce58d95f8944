"""Hover: what the codes on a flagged line, or named by a ``# noqa: CODE`` comment, mean, with their pages."""

from __future__ import annotations

from typing import List, Optional, Sequence

from tfguard.static.formats.sarif import rule_page_uri
from tfguard.static.suppression import read_suppressions


def code_summary(code: str) -> Optional[tuple]:
    """Return (name, summary) of a code of the checker or of the runtime guard, None for an unknown code."""
    from tfguard.runtime.judge import all_diagnostics
    from tfguard.static.registry import PARSE_ERROR_CODE, PARSE_ERROR_NAME, PARSE_ERROR_SUMMARY, all_rules

    if code == PARSE_ERROR_CODE:
        return PARSE_ERROR_NAME, PARSE_ERROR_SUMMARY
    rule = all_rules().get(code)
    if rule is not None:
        return rule.name, rule.summary
    runtime = all_diagnostics().get(code)
    if runtime is not None:
        return runtime.name, runtime.summary
    return None


def describe_codes(codes: Sequence[str], docs_url: str = "") -> Optional[str]:
    """Return the hover's Markdown for ``codes`` (each once, in order), None when none is known."""
    parts: List[str] = []
    for code in dict.fromkeys(codes):
        known = code_summary(code)
        if known is None:
            continue
        name, summary = known
        parts.append(f"**{code}** `{name}`: {summary}{_page(code, name, docs_url)}")
    return "\n\n---\n\n".join(parts) or None


def _page(code: str, name: str, docs_url: str) -> str:
    """The hover's pointer to the rule's page: a link to it on a docs site (``docs-url``, or the published one);
    without a site, its "Why is this bad?" section, shown in the hover itself, and the command that prints the
    whole page (a link would open the raw Markdown file inside site-packages)."""
    from tfguard.catalog import PUBLISHED_DOCS_URL, rule_readme

    if docs_url or PUBLISHED_DOCS_URL:
        href = rule_page_uri(code, docs_url)
        return f"\n\n[{code} {name}]({href})" if href else ""
    page = rule_readme(code)
    if page is None:
        return ""
    why = page.split("\n## Why is this bad?\n", 1)[1].split("\n## ", 1)[0].strip() if \
        "\n## Why is this bad?\n" in page else ""
    return (f"\n\n{why}" if why else "") + f"\n\n`tfguard rule {code}` prints the whole page."


def noqa_codes_at(text: str, line: int, column: int) -> List[str]:
    """Return the code a ``# noqa: CODES`` comment names under (1-based) ``line``/``column``, or every code
    the comment names when the position is on the comment but not on one code."""
    suppressions = read_suppressions(text)
    on_line = [c for c in suppressions.codes if c.line == line]
    under = [c.code for c in on_line if c.column <= column < c.end_column]
    if under:
        return under
    comment_start = min((c.column for c in on_line), default=None)
    if comment_start is None:
        return []
    hash_at = text.splitlines()[line - 1].rfind("#", 0, comment_start)
    return [c.code for c in on_line] if hash_at >= 0 and column > hash_at else []
