"""Checking one editor buffer with the checker's engine: diagnostics fast, fixes when asked.

Diagnostics as you type come from :func:`~tfguard.static.engine.check_bytes` without fix planning (planning and
validating fixes is about half of a check's time on a long file); when a code action asks, the same text is
checked again with fixes: the project still holds its analysis, so the rules' shared facts are not recomputed.
"""

from __future__ import annotations

import dataclasses
import io
import tokenize
from dataclasses import dataclass
from typing import Optional, Tuple

from tfguard.server.overlay import OverlayProject
from tfguard.static.config import Settings
from tfguard.static.engine import check_bytes
from tfguard.static.finding import SAFE, Finding

#: A buffer larger than this is not checked (the editor would wait seconds on every keystroke): no diagnostics.
MAX_TEXT_CHARS = 1024 * 1024


@dataclass(frozen=True)
class BufferCheck:
    """What the checker said about one version of one buffer."""

    path: str
    version: Optional[int]
    text: str
    findings: Tuple[Finding, ...] = ()
    #: Why the buffer was not checked ("" when it was): excluded, too large, a bad configuration...
    skipped: str = ""
    #: The settings it was checked under (None: a bad configuration).
    settings: Optional[Settings] = None


def buffer_bytes(text: str) -> Optional[bytes]:
    """Return the bytes the buffer would have on disk (its PEP 263 encoding), None when it cannot be encoded."""
    data = text.encode("utf-8", errors="surrogatepass")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # an unknown coding cookie: the checker reports it as TFG000 from the UTF-8 bytes
        return data
    if encoding in ("utf-8", "utf-8-sig"):
        return data
    try:
        return text.encode(encoding)
    except (UnicodeError, LookupError):
        return None


def check_buffer(path: str, text: str, settings: Settings, project: OverlayProject, plan_fixes: bool = False
                 ) -> Tuple[Finding, ...]:
    """Return the findings of the buffer ``text`` of the file at absolute ``path`` (fixes planned if asked)."""
    data = buffer_bytes(text)
    if data is None:
        return ()
    project.refresh()
    findings = check_bytes(data, path, settings, project, plan_fixes=plan_fixes).findings
    project.checked(path, text)
    return tuple(allowed(f, settings) for f in findings) if plan_fixes else findings


def allowed(finding: Finding, settings: Settings) -> Finding:
    """Drop a fix that ``fixable``/``unfixable`` exclude, or an unsafe one the settings do not allow."""
    fix = finding.fix
    if fix is None:
        return finding
    if not settings.may_fix(finding.code):
        return dataclasses.replace(finding, fix=None,
                                   no_fix=f"the configuration's `fixable`/`unfixable` keys exclude {finding.code}")
    if fix.applicability != SAFE and not settings.unsafe_fixes:
        return dataclasses.replace(finding, fix=None, no_fix="its fix is unsafe (`unsafe-fixes = true` offers it)")
    return finding


def fix_all_safe(path: str, text: str, settings: Settings, project: OverlayProject) -> Optional[str]:
    """Return the buffer's text after every safe fix, as ``tfguard check --fix`` would write it; None when
    nothing changes or the buffer cannot be fixed (it does not parse, its bytes would not round-trip)."""
    from tfguard.static.fixes.fix_files import Fixer

    data = buffer_bytes(text)
    if data is None:
        return None

    def choose(finding: Finding) -> bool:
        return finding.fix is not None and finding.fix.applicability == SAFE and settings.may_fix(finding.code)

    project.refresh()
    try:
        outcome = Fixer(settings, choose, project).plan_bytes(path, data)
    finally:
        project.forget_file(path)  # the project analysed the fixed texts under this path: not the buffer's
    if outcome.skipped or not outcome.changed:
        return None
    return outcome.fixed
