"""The top of a report page: the verdict lines, then each diagnostic with the source lines it blames and its help."""

from __future__ import annotations

import re
from html import escape
from typing import Any, Dict, List, Optional, Tuple

from tfguard.catalog import rule_page_url
from tfguard.runtime.document import display_path
from tfguard.runtime.judge.graph_growth import DIAGNOSTIC as GRAPH_GROWTH

_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
# Where a message's headline ends: its advice (" — "), its next clause ("; ") or the sites it lists (": a.py:3").
_HEADLINE_END = re.compile(r" \u2014 |; |: (?=\S+\.py:\d+)")
_HEADLINE_CHARS = 160


def all_diagnostics(document: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The run's diagnostics, the main session's and those across sessions, most severe first."""
    found = list(document.get("diagnostics") or []) + [
        dict(d, across_sessions=True) for d in document.get("across_sessions") or []]
    return sorted(found, key=lambda d: _SEVERITY_ORDER.get(d.get("severity"), 3))


def headline(message: str) -> str:
    """The first clause of a diagnostic's message: what is wrong, without the sites and advice after it."""
    match = _HEADLINE_END.search(message)
    text = message[:match.start()] if match else message
    return text if len(text) <= _HEADLINE_CHARS else text[:_HEADLINE_CHARS - 1].rstrip() + "\u2026"


def _code_link(code: str) -> str:
    href = rule_page_url(code)
    if href is None:
        return '<span class="code">%s</span>' % escape(code)
    return '<a class="code" href="%s">%s</a>' % (escape(href), escape(code))


def verdict_lines(document: Dict[str, Any]) -> str:
    """One line per diagnostic (code, severity, headline), or one line saying the run is clean."""
    if "mode" not in document:
        return '<p class="verdict none">%s created no TensorFlow session: nothing to report</p>' % escape(
            " ".join(document.get("command") or []) or "the program")
    found = all_diagnostics(document)
    if not found:
        grew = document.get("nodes_added")
        return ('<p class="verdict ok"><span class="sev ok">ok</span> no diagnostics: %d runs watched, %s</p>'
                % (document["runs"], "the graph grew by %d ops before the loop" % grew if grew
                   else "the graph did not grow (%d ops)" % document["nodes_end"]))
    return "\n".join('<p class="verdict %s">%s <span class="sev %s">%s</span> %s%s</p>' % (
        escape(d["severity"]), _code_link(d["code"]), escape(d["severity"]), escape(d["severity"]),
        escape(headline(d["message"])), " (across sessions)" if d.get("across_sessions") and "across sessions"
        not in headline(d["message"]) else "") for d in found)


def _places(document: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Every source line the document knows the text of: growth sites, blocked changes, host-time lines."""
    places = list(document.get("growth_sites") or []) + list(document.get("frozen_violations") or [])
    places += list((document.get("host_time") or {}).get("lines") or [])
    return places


def blamed_lines(document: Dict[str, Any], diagnostic: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The source lines a diagnostic blames: its own ``path``/``line`` when it has them, and every known place
    (growth site, blocked change, host-time line) its message names as ``path:line``; each once."""
    message = diagnostic.get("message", "")
    found: List[Dict[str, Any]] = []
    seen = set()
    if diagnostic.get("path") and diagnostic.get("line"):
        found.append({"path": diagnostic["path"], "line": diagnostic["line"], "code": diagnostic.get("source")})
        seen.add((display_path(diagnostic["path"]), diagnostic["line"]))
    for place in _places(document):
        key = (display_path(place["path"]), place["line"])
        if key in seen or not place.get("line"):
            continue
        if "%s:%d" % key in message or "%s:%d" % (place["path"], place["line"]) in message:
            seen.add(key)
            found.append(place)
    for entry in found:  # the text of a line given by path/line alone, when a place has it
        if not entry.get("code"):
            for place in _places(document):
                if (display_path(place["path"]), place["line"]) == (display_path(entry["path"]), entry["line"]):
                    entry["code"] = place.get("code")
    return found


def message_and_help(document: Dict[str, Any], diagnostic: Dict[str, Any]) -> Tuple[str, Optional[str]]:
    """The message to show and what to do: its own ``help`` field when it has one, a repeated growth site's fix for
    graph growth, else the advice after the message's dash (then left out of the message shown, not said twice)."""
    message = diagnostic["message"]
    if diagnostic.get("help"):
        return message, diagnostic["help"]
    if diagnostic["code"] == GRAPH_GROWTH.code and diagnostic["severity"] == "error":
        for site in document.get("growth_sites") or []:
            if site.get("kind") == "repeated" and site.get("fix"):
                return message, site["fix"]
    head, dash, advice = message.partition(" \u2014 ")
    return (head, advice) if dash else (message, None)


def _source(place: Dict[str, Any]) -> str:
    where = "%s:%d" % (display_path(place["path"]), place["line"])
    code = (place.get("code") or "").strip()
    return '<li><span class="where">%s</span>%s</li>' % (
        escape(where), ' <code class="src">%s</code>' % escape(code) if code else "")


def diagnostics_section(document: Dict[str, Any]) -> str:
    """Each diagnostic in full: code (linked to its rule page), severity, message, source lines, help."""
    found = all_diagnostics(document)
    if not found:
        return ""
    cards = []
    for diagnostic in found:
        lines = blamed_lines(document, diagnostic)
        message, advice = message_and_help(document, diagnostic)
        cards.append(
            '<article class="diagnostic %s"><h3>%s <span class="sev %s">%s</span>%s</h3><p class="message">%s</p>'
            '%s%s</article>' % (
                escape(diagnostic["severity"]), _code_link(diagnostic["code"]), escape(diagnostic["severity"]),
                escape(diagnostic["severity"]), " across sessions" if diagnostic.get("across_sessions") else "",
                escape(message),
                '<ul class="sources">%s</ul>' % "".join(_source(p) for p in lines) if lines else "",
                '<p class="help"><b>help:</b> %s</p>' % escape(advice) if advice else ""))
    return '<section id="diagnostics"><h2>Diagnostics</h2>%s</section>' % "".join(cards)
