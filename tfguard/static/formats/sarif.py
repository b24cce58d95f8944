"""The ``sarif`` format: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers."""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Optional
from urllib.parse import quote

from tfguard import __version__
from tfguard.catalog import rule_page_url, rule_readme
from tfguard.static.finding import CheckResult, Finding
from tfguard.static.formats.options import PLAIN, RenderOptions
from tfguard.static.registry import PARSE_ERROR_CODE, PARSE_ERROR_NAME, PARSE_ERROR_SUMMARY, all_rules

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"

#: Finding severity -> SARIF result level.
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def readme_section(readme: str, title: str) -> Optional[str]:
    """Return the text of the ``## title`` section of a catalog README, or None."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", readme, flags=re.S | re.M)
    return match.group(1).strip() if match else None


def _rule_descriptor(code: str, name: str, summary: str, severity: str, enabled: bool, docs_url: str = ""
                     ) -> Dict[str, Any]:
    readme = rule_readme(code)
    short = summary.replace("`", "").rstrip(".")
    full = (readme_section(readme, "What it does") if readme else None) or short
    descriptor: Dict[str, Any] = {
        "id": code,
        "name": name,
        "shortDescription": {"text": short},
        "fullDescription": {"text": full},
        "defaultConfiguration": {"level": LEVELS[severity], "enabled": enabled},
        "properties": {"tags": ["tfguard"]},
    }
    help_text = f"{short}. Run `tfguard rule {code}` for the full explanation."
    descriptor["help"] = {"text": help_text, "markdown": readme} if readme else {"text": help_text}
    uri = rule_page_uri(code, docs_url)
    if uri:
        descriptor["helpUri"] = uri
    return descriptor


def rule_page_uri(code: str, docs_url: str = "") -> Optional[str]:
    """The address of a rule's page for SARIF's ``helpUri`` (``docs_url``: a docs site's base address; default
    :data:`tfguard.catalog.PUBLISHED_DOCS_URL`, else the page's file); None for a code without a page."""
    return rule_page_url(code, docs_url)


def rule_descriptors(docs_url: str = "") -> List[Dict[str, Any]]:
    """Return ``tool.driver.rules``: TFG000 and every registered rule, in code order, each ``helpUri`` its page
    (see :func:`rule_page_uri`)."""
    descriptors = [_rule_descriptor(PARSE_ERROR_CODE, PARSE_ERROR_NAME, PARSE_ERROR_SUMMARY, "error", True,
                                    docs_url)]
    for code, rule in all_rules().items():
        descriptors.append(_rule_descriptor(code, rule.name, rule.summary, rule.severity, rule.default_enabled,
                                            docs_url))
    return descriptors


@lru_cache(maxsize=8)
def _source_root(cwd: str) -> str:
    """%SRCROOT%: the root of the git repository around the working folder (what code scanning resolves paths
    against), else the working folder."""
    from tfguard.static.gitignore import repository_root

    return repository_root(cwd) or cwd


def source_root() -> str:
    """The folder %SRCROOT% stands for in this run."""
    return _source_root(os.getcwd())


def artifact_location(path: str) -> Dict[str, Any]:
    """Return a relative URI against %SRCROOT% (the repository root, or the working folder outside a
    repository), so that a file outside the working folder but in the repository stays relative; a file
    URI for other paths.

    URIs are percent-encoded from the path's bytes, so a file name that is not
    valid UTF-8 (``b"\\xff.py"``, read as ``"\\udcff.py"``) becomes ``%FF.py``.
    """
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, source_root()) if not path.startswith("<") else path
    if relative.startswith(os.pardir) or os.path.isabs(relative):
        return {"uri": Path(absolute).as_uri()}
    return {"uri": quote(os.fsencode(relative.replace(os.sep, "/"))), "uriBaseId": SRCROOT}


def display_text(text: str) -> str:
    """Return ``text`` with the undecodable bytes of a file name (lone surrogates) as ``\\xff`` escapes.

    Lone surrogates are valid in a Python string but not in the JSON a SARIF viewer reads.
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that stands for no byte
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _region(finding: Finding) -> Dict[str, int]:
    region = {"startLine": max(1, finding.line), "startColumn": max(1, finding.column)}
    if finding.end_line > finding.line or (finding.end_line == finding.line and finding.end_column > finding.column):
        region["endLine"] = finding.end_line
        region["endColumn"] = max(1, finding.end_column)
    return region


def _location(path: str, region: Dict[str, int], message: Optional[str] = None) -> Dict[str, Any]:
    location: Dict[str, Any] = {"physicalLocation": {"artifactLocation": artifact_location(path), "region": region}}
    if message:
        location["message"] = {"text": display_text(message)}
    return location


def _code_flow(finding: Finding) -> Dict[str, Any]:
    steps = [{"location": _location(finding.path, _region(finding), "called here, inside the loop")}]
    for link in finding.chain:
        steps.append({"location": _location(link.path, {"startLine": max(1, link.line)}, f"in {link.function}()")})
    return {"threadFlows": [{"locations": steps}]}


def partial_fingerprints(findings: List[Finding]) -> Dict[int, Dict[str, str]]:
    """``partialFingerprints`` of each finding (by index): what the baseline matches on (code, enclosing def,
    the flagged line's text without its spacing) and which such finding of the file it is, so that code
    scanning follows a finding when lines above it move and tells two identical lines apart."""
    from tfguard.static.fingerprints import SourceLines, finding_fingerprint

    sources = SourceLines()
    seen: Dict[tuple, int] = {}
    prints: Dict[int, Dict[str, str]] = {}
    for index, finding in enumerate(findings):
        key = finding_fingerprint(finding, sources)
        occurrence = seen.get((finding.path, key), 0)
        seen[(finding.path, key)] = occurrence + 1
        prints[index] = {FINGERPRINT_KEY: f"{key}:{occurrence + 1}"}
    return prints


#: The ``partialFingerprints`` key of tfguard's own fingerprint (versioned, as SARIF asks).
FINGERPRINT_KEY = "tfguardFindingHash/v1"


def _result(finding: Finding, rule_index: Dict[str, int], fingerprints: Optional[Dict[str, str]] = None
            ) -> Dict[str, Any]:
    result: Dict[str, Any] = {
        "ruleId": finding.code,
        "level": LEVELS[finding.severity],
        "message": {"text": display_text(finding.message)},
        "locations": [_location(finding.path, _region(finding))],
    }
    if fingerprints:
        result["partialFingerprints"] = fingerprints
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    if finding.chain:
        result["codeFlows"] = [_code_flow(finding)]
        result["relatedLocations"] = [
            {"id": index, **_location(link.path, {"startLine": max(1, link.line)}, f"in {link.function}()")}
            for index, link in enumerate(finding.chain)
        ]
    if finding.fix is not None:
        result["fixes"] = [_fix(finding)]
    return result


def _fix(finding: Finding) -> Dict[str, Any]:
    """Return the SARIF ``fix`` object: one artifact change, each edit a replacement (insertions delete nothing)."""
    fix = finding.fix
    assert fix is not None
    replacements = [
        {"deletedRegion": {"startLine": edit.line, "startColumn": edit.column,
                           "endLine": edit.end_line, "endColumn": edit.end_column},
         "insertedContent": {"text": edit.content}}
        for edit in fix.edits
    ]
    return {
        "description": {"text": fix.message},
        "artifactChanges": [{"artifactLocation": artifact_location(finding.path), "replacements": replacements}],
        "properties": {"applicability": fix.applicability},
    }


def to_document(result: CheckResult, docs_url: str = "") -> Dict[str, Any]:
    """Return the SARIF log of one run as a JSON-ready dict; the rules' ``helpUri`` point at ``docs_url``."""
    rules = rule_descriptors(docs_url)
    rule_index = {rule["id"]: index for index, rule in enumerate(rules)}
    findings = sorted(result.findings, key=Finding.sort_key)
    prints = partial_fingerprints(findings)
    notifications = [
        {"level": "error", "message": {"text": display_text(f"{e.path}: {e.message}")},
         "locations": [{"physicalLocation": {"artifactLocation": artifact_location(e.path)}}]}
        for e in sorted(result.errors, key=lambda e: e.path)
    ]
    run: Dict[str, Any] = {
        "tool": {"driver": {"name": "tfguard", "version": __version__, "semanticVersion": __version__,
                            "rules": rules}},
        "originalUriBaseIds": {SRCROOT: {"uri": Path(source_root()).as_uri() + "/"}},
        "invocations": [{"executionSuccessful": not result.errors, "toolExecutionNotifications": notifications}],
        "results": [_result(f, rule_index, prints.get(index)) for index, f in enumerate(findings)],
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render(result: CheckResult, options: RenderOptions = PLAIN) -> str:
    """Return the SARIF log, indented, with a final newline (its rules link to ``options.docs_url``)."""
    return json.dumps(to_document(result, options.docs_url), indent=2) + "\n"
