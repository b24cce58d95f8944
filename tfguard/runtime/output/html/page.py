"""Page assembly: one HTML file with its CSS, script and charts inline, and a Content-Security-Policy that lets it
load nothing from anywhere (opened from disk, mailed, attached to a CI run: it shows the same)."""

from __future__ import annotations

import base64
import hashlib
import os

from tfguard.printable import printable
from tfguard.runtime.output.html import evidence, steps
from tfguard.runtime.output.html.markup import esc
from tfguard.runtime.output.html.verdict import diagnostics_section, verdict_lines
from tfguard.runtime.verdict import RunVerdict

_HERE = os.path.dirname(os.path.abspath(__file__))
# Counts what the policy refused (the browser tests read it): set before anything else on the page loads.
_WATCH = ("document.addEventListener('securitypolicyviolation',function(e){var r=document.documentElement;"
          "r.setAttribute('data-refused',String(+(r.getAttribute('data-refused')||0)+1));"
          "r.setAttribute('data-refused-last',String(e.blockedURI||e.violatedDirective));});")


def script_hash(script: str) -> str:
    """The CSP source that allows exactly this inline script: ``'sha256-<base64 of its SHA-256>'``."""
    return "'sha256-%s'" % base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


def content_security_policy() -> str:
    """Nothing but the page's own inline style and its two scripts, named by hash: any image, font, frame or
    request is refused, and so is any script a report value could smuggle in (an inline ``<script>`` or an
    ``onerror=`` attribute), even if one slipped past the escaping."""
    return "default-src 'none'; style-src 'unsafe-inline'; script-src %s %s; img-src data:" % (
        script_hash(_WATCH), script_hash(_asset("page.js")))


def _asset(name: str) -> str:
    with open(os.path.join(_HERE, name), encoding="utf-8") as handle:
        return handle.read()


def html_page(title: str, subtitle: str, body: str) -> str:
    """The whole HTML document around `body` (already HTML)."""
    # "</" cannot end the inline script or style early: neither asset contains it (checked by a test). Control and
    # bidi characters (only a report value can hold one) are shown as escapes, as on the terminal: no reordered text.
    return printable('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta http-equiv="Content-Security-Policy" content="%s">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<meta name="generator" content="tfguard"><title>%s</title><script>%s</script><style>%s</style></head>'
            '<body><main><header><h1>%s</h1><p class="sub">%s</p></header>%s'
            '<footer>Written by tfguard from the run\'s JSON report; every figure on this page is in it.</footer>'
            '</main><script>%s</script></body></html>\n' % (
                content_security_policy(), esc(title), _WATCH, _asset("style.css"), esc(title), esc(subtitle),
                body, _asset("page.js")))


def report_body(verdict: RunVerdict) -> str:
    """One run's sections, from its verdict down to its sessions: the charts and tables are its busiest
    session's, the diagnostics and the tf.functions the whole run's."""
    parts = ['<section class="verdicts">%s</section>' % verdict_lines(verdict), diagnostics_section(verdict)]
    busiest = verdict.busiest
    if busiest is not None:
        figures = busiest.figures
        parts += [evidence.step_section(figures), evidence.host_section(figures), evidence.costs_section(figures)]
    parts += [steps.steps_section(verdict), evidence.traces_section(verdict, steps.traces_over_calls(verdict)),
              evidence.facts_section(verdict)]
    if busiest is not None:
        parts += [evidence.devices_section(busiest.figures), evidence.sessions_section(verdict)]
    return "".join(parts)


def title_of(verdict: RunVerdict) -> str:
    """``tfguard run train.py --steps 5`` for a run of ``tfguard run``, else ``tfguard runtime report``."""
    return "tfguard run " + verdict.command if verdict.command else "tfguard runtime report"


def render_report(verdict: RunVerdict) -> str:
    """The HTML page of one run verdict."""
    busiest = verdict.busiest
    steps = (verdict.facts.get("steps") or {}).get("steps")
    subtitle = "TensorFlow %s, %s" % (verdict.facts.get("tensorflow_version") or "?", "%d runs watched" % busiest[
        "runs"] if busiest is not None else "%d training steps watched" % steps if steps else "no session watched")
    return html_page(title_of(verdict), subtitle, report_body(verdict))


def write_page(path: str, html: str) -> None:
    """Write `html` to `path` (UTF-8); OSError when it cannot."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(html)
