"""The ``junit`` format: JUnit XML, one test suite per file and one failing test case per finding, as ruff writes
it; CI systems (GitLab, Jenkins, Azure) show it as test results. A run without findings is one passing case."""

from __future__ import annotations

from itertools import groupby
from typing import Dict, List
from xml.etree import ElementTree

from tfguard.static.finding import CheckResult, Finding
from tfguard.static.formats.options import PLAIN, RenderOptions
from tfguard.static.formats.text import display_path

#: The package name test cases are filed under (``tfguard.TFG102``).
PACKAGE = "tfguard"


def _suite(parent: ElementTree.Element, name: str, attributes: Dict[str, str]) -> ElementTree.Element:
    return ElementTree.SubElement(parent, "testsuite", dict({"name": name, "package": PACKAGE}, **attributes))


def render(result: CheckResult, options: RenderOptions = PLAIN) -> str:
    """Return the XML document: a ``<testsuite>`` per file with findings or errors, a ``<testcase>`` each."""
    findings = sorted(result.findings, key=Finding.sort_key)
    errors = sorted(result.errors, key=lambda e: e.path)
    root = ElementTree.Element("testsuites", {"name": PACKAGE, "tests": str(max(1, len(findings) + len(errors))),
                                              "failures": str(len(findings)), "errors": str(len(errors))})
    for path, group in groupby(findings, key=lambda finding: finding.path):
        items: List[Finding] = list(group)
        shown = display_path(path)
        suite = _suite(root, shown, {"tests": str(len(items)), "failures": str(len(items)), "errors": "0"})
        for finding in items:
            case = ElementTree.SubElement(suite, "testcase", {
                "name": f"{PACKAGE}.{finding.code}", "classname": shown, "file": shown,
                "line": str(finding.line), "column": str(finding.column)})
            failure = ElementTree.SubElement(case, "failure", {"message": finding.message, "type": finding.severity})
            failure.text = (f"line {finding.line}, col {finding.column}, {finding.code} {finding.name}: "
                            f"{finding.message}")
            failure.text += "".join(f"\nvia {display_path(link.path)}:{link.line} in {link.function}()"
                                    for link in finding.chain)
    for error in errors:
        shown = display_path(error.path)
        suite = _suite(root, shown, {"tests": "1", "failures": "0", "errors": "1"})
        case = ElementTree.SubElement(suite, "testcase", {"name": f"{PACKAGE}.check", "classname": shown,
                                                          "file": shown})
        ElementTree.SubElement(case, "error", {"message": error.message}).text = error.message
    if not findings and not errors:
        suite = _suite(root, PACKAGE, {"tests": "1", "failures": "0", "errors": "0"})
        ElementTree.SubElement(suite, "testcase", {"name": "No findings", "classname": PACKAGE})
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"
