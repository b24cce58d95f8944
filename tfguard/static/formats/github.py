"""The ``github`` format: GitHub Actions workflow commands that annotate the pull request."""

from __future__ import annotations

from typing import List

from tfguard.static.finding import CheckResult, Finding
from tfguard.static.formats.options import PLAIN, RenderOptions

#: Finding severity -> workflow command.
COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """Escape a command's message as GitHub's runner expects (``%``, CR, LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a property value: the message escapes plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(name: str, properties: List[tuple], message: str) -> str:
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties)
    return f"::{name} {props}::{escape_data(message)}"


def format_finding(finding: Finding) -> str:
    """Return the ``::error file=…,line=…,col=…,title=tfguard (CODE)::message`` line of one finding."""
    properties = [("file", finding.path), ("line", finding.line), ("col", finding.column)]
    if finding.end_line > finding.line or finding.end_column > finding.column:
        properties += [("endLine", finding.end_line), ("endColumn", finding.end_column)]
    properties.append(("title", f"tfguard ({finding.code})"))
    message = finding.message
    message += "".join(f"\nvia {link.path}:{link.line} in {link.function}()" for link in finding.chain)
    return _command(COMMANDS[finding.severity], properties, message)


def render(result: CheckResult, options: RenderOptions = PLAIN) -> str:
    """Return one workflow command per finding, then one ``::error`` per file that could not be checked."""
    lines = [format_finding(f) for f in sorted(result.findings, key=Finding.sort_key)]
    lines += [_command("error", [("file", e.path), ("title", "tfguard")], e.message)
              for e in sorted(result.errors, key=lambda e: e.path)]
    return "".join(line + "\n" for line in lines)
