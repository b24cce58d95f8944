"""The top of a report page: the verdict lines (one per diagnostic of the run, every scope), then each diagnostic
with the source lines it names and its help, as the run verdict holds them (nothing is read out of its words)."""

from __future__ import annotations

from typing import Any, Dict, List

from tfguard.catalog import rule_page_url
from tfguard.runtime.document import display_path
from tfguard.runtime.output.html.markup import esc
from tfguard.runtime.verdict import ACROSS_SESSIONS, FUNCTION, PROGRAM, Diagnostic, RunVerdict

_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
#: A verdict line shows the headline up to this many characters (the card below has it whole).
_HEADLINE_CHARS = 160
_SCOPE_WORDS = {ACROSS_SESSIONS: "across sessions", FUNCTION: "tf.function", PROGRAM: "program"}


def ordered(verdict: RunVerdict) -> List[Diagnostic]:
    """The run's diagnostics, most severe first (the verdict's order among equals)."""
    return sorted(verdict.diagnostics, key=lambda d: _SEVERITY_ORDER.get(d.severity, 3))


def short(headline: str) -> str:
    """A headline cut to a verdict line's length."""
    return headline if len(headline) <= _HEADLINE_CHARS else headline[:_HEADLINE_CHARS - 1].rstrip() + "\u2026"


def scope_words(verdict: RunVerdict, diagnostic: Diagnostic) -> str:
    """Where a diagnostic was judged, when the page must say it: ``across sessions``, ``session 2`` (a run of
    several sessions), ``tf.function``, ``program``; "" for the session of a one-session run."""
    if diagnostic.scope in _SCOPE_WORDS:
        return _SCOPE_WORDS[diagnostic.scope]
    return "session %s" % diagnostic.session if len(verdict.sessions) > 1 else ""


def _code_link(code: str) -> str:
    href = rule_page_url(code)
    if href is None:
        return '<span class="code">%s</span>' % esc(code)
    return '<a class="code" href="%s">%s</a>' % (esc(href), esc(code))


def verdict_lines(verdict: RunVerdict) -> str:
    """One line per diagnostic (code, severity, headline, scope), or one line saying the run is clean."""
    found = ordered(verdict)
    steps = (verdict.facts.get("steps") or {}).get("steps") or 0
    if not found and not verdict.sessions and (verdict.traced_functions or steps):
        traced = len(verdict.traced_functions)
        said = ["%d training step%s watched" % (steps, "" if steps == 1 else "s")] if steps else []
        if traced:
            said.append("%d tf.function%s traced, none keeps retracing" % (traced, "" if traced == 1 else "s"))
        return '<p class="verdict ok"><span class="sev ok">ok</span> no diagnostics: %s</p>' % esc(", ".join(said))
    if not found and not verdict.sessions:
        return '<p class="verdict none">%s created no TensorFlow session: nothing to report</p>' % esc(
            verdict.command or "the program")
    if not found:
        figures = verdict.busiest.figures if verdict.busiest else {}
        grew = figures.get("nodes_added")
        return ('<p class="verdict ok"><span class="sev ok">ok</span> no diagnostics: %s runs watched, %s</p>'
                % (esc(figures.get("runs", 0)), esc("the graph grew by %d ops before the loop" % grew if grew
                                                    else "the graph did not grow (%s ops)" % figures.get("nodes_end"))))
    lines = []
    for d in found:
        where = scope_words(verdict, d)
        lines.append('<p class="verdict %s">%s <span class="sev %s">%s</span> %s%s</p>' % (
            esc(d.severity), _code_link(d.code), esc(d.severity), esc(d.severity), esc(short(d.headline)),
            esc(" (%s)" % where) if where else ""))
    return "\n".join(lines)


def _code_of_lines(verdict: RunVerdict) -> Dict[tuple, str]:
    """(path, line) -> the source text the sessions recorded for it (growth sites, blocked changes, host lines)."""
    known: Dict[tuple, str] = {}
    for session in verdict.sessions:
        places = list(session.get("growth_sites") or []) + list(session.get("frozen_violations") or [])
        places += list((session.get("host_time") or {}).get("lines") or [])
        for place in places:
            if place.get("code"):
                known.setdefault((display_path(place["path"]), place["line"]), place["code"])
    return known


def _source(path: str, line: int, code: Any) -> str:
    text = (code or "").strip()
    return '<li><span class="where">%s:%s</span>%s</li>' % (
        esc(display_path(path)), esc(line), ' <code class="src">%s</code>' % esc(text) if text else "")


def diagnostics_section(verdict: RunVerdict) -> str:
    """Each diagnostic in full: code (linked to its rule page), severity, scope, headline, its sites, help."""
    found = ordered(verdict)
    if not found:
        return ""
    known = _code_of_lines(verdict)
    cards = []
    for d in found:
        where = scope_words(verdict, d)
        sources = "".join(_source(s.path, s.line, known.get((display_path(s.path), s.line))) for s in d.sites)
        cards.append(
            '<article class="diagnostic %s"><h3>%s <span class="sev %s">%s</span>%s</h3><p class="message">%s</p>'
            '%s%s</article>' % (
                esc(d.severity), _code_link(d.code), esc(d.severity), esc(d.severity),
                esc(" " + where) if where else "", esc(d.headline),
                '<ul class="sources">%s</ul>' % sources if sources else "",
                '<p class="help"><b>help:</b> %s</p>' % esc(d.help) if d.help else ""))
    return '<section id="diagnostics"><h2>Diagnostics</h2>%s</section>' % "".join(cards)
