"""Fixing files: plan, apply, re-check, repeat; then write into the file if it did not change meanwhile.

Each pass applies every chosen fix that does not conflict with another and checks the new text
again (fixes are planned on the text they apply to, so a fix that depends on another comes in a
later pass).  A pass is kept only when the text still compiles and no finding appears that was
not there before; otherwise its fixes are tried one at a time and those that fail are forbidden.
"""

from __future__ import annotations

import codecs
import difflib
import io
import os
import tokenize
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

from tfguard.static.atomic import FileChanged, read_only_reason, write_in_place
from tfguard.static.config import Settings
from tfguard.static.engine import check_bytes, read_file
from tfguard.static.finding import Finding, Fix
from tfguard.static.fixes.edits import apply_fixes
from tfguard.static.quiet import checked_code
from tfguard.static.registry import PARSE_ERROR_CODE

#: Passes over one file at most; each pass applies at least one fix or ends the loop.
MAX_PASSES = 50

Choose = Callable[[Finding], bool]


@dataclass
class FileFix:
    """What fixing one file did (or would do)."""

    path: str
    original: str = ""
    fixed: str = ""
    #: Findings of the file before and after, by code.
    before: Counter = field(default_factory=Counter)
    after: Counter = field(default_factory=Counter)
    #: Why the file was left alone ("" when it was fixed or needed nothing).
    skipped: str = ""
    #: Fixes that were not applied because the result failed to compile or reported something new.
    forbidden: List[str] = field(default_factory=list)
    encoded: bytes = b""
    data: bytes = b""

    @property
    def changed(self) -> bool:
        """Whether fixing changes the file."""
        return not self.skipped and self.fixed != self.original

    @property
    def fixed_count(self) -> int:
        """How many findings the fix removes."""
        return sum(max(0, count - self.after[code]) for code, count in self.before.items())

    def diff(self, label: str = "") -> str:
        """Return the unified diff from the file to its fixed text, the file named ``label`` (default: its path)."""
        name = label or self.path
        return "".join(difflib.unified_diff(
            self.original.splitlines(keepends=True), self.fixed.splitlines(keepends=True), fromfile=name, tofile=name,
        ))


def _identity(finding: Finding, lines: Sequence[bytes]) -> Tuple[str, str]:
    """What a finding is about, wherever a fix moved it or whatever it did to the arguments: its code and the code
    it points at with every call's arguments left out (``("TFG203", "sess.run()")``). A build hoisted from an
    inner loop into an outer one is the same finding (built less often, not anew), and so is a ``sess.run`` whose
    fetch a fix replaced by the hoisted tensor."""
    # Rules report UTF-8 byte columns, the rules about suppression comments characters: either way the same
    # slicing on both sides of a pass gives the same text for the same code.
    if not 1 <= finding.line <= finding.end_line <= len(lines):
        return finding.code, ""
    first, last = finding.line - 1, finding.end_line - 1
    if first == last:
        span = lines[first][finding.column - 1:finding.end_column - 1]
    else:
        span = b"".join([lines[first][finding.column - 1:], *lines[first + 1:last],
                         lines[last][:finding.end_column - 1]])
    return finding.code, _without_arguments(" ".join(span.decode("utf-8", "replace").split()))


def _without_arguments(code: str) -> str:
    """``code`` with the inside of every outermost pair of parentheses left out: ``f(g(x), 1) * y`` -> ``f() * y``."""
    kept, depth = [], 0
    for char in code:
        if char == ")":
            depth = max(0, depth - 1)
        if depth == 0:
            kept.append(char)
        if char == "(":
            depth += 1
    return "".join(kept)


def _nothing_new(before: Sequence[Finding], before_text: str, after: Sequence[Finding], after_text: str) -> bool:
    """Every finding after a pass was there before it (line numbers aside)."""
    old_lines = before_text.encode("utf-8", "surrogatepass").splitlines(keepends=True)
    new_lines = after_text.encode("utf-8", "surrogatepass").splitlines(keepends=True)
    old = Counter(_identity(f, old_lines) for f in before)
    new = Counter(_identity(f, new_lines) for f in after)
    return all(count <= old[key] for key, count in new.items())


def _fix_key(fix: Fix) -> Tuple[str, Tuple[str, ...]]:
    """What a fix does, wherever it applies: a fix forbidden in one pass is not tried again in the next."""
    return fix.applicability, tuple(edit.content for edit in fix.edits)


def _encode(text: str, data: bytes) -> Optional[bytes]:
    """Encode ``text`` as ``data`` was (PEP 263 encoding, BOM); None when that cannot be done exactly."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        bom = codecs.BOM_UTF8 if data.startswith(codecs.BOM_UTF8) else b""
        if encoding == "utf-8-sig":
            encoding = "utf-8"
        return bom + text.encode(encoding)
    except (SyntaxError, LookupError, UnicodeError):
        return None


class Fixer:
    """Fixes files one at a time with one project analysis (calls into other files are followed)."""

    def __init__(self, settings: Settings, choose: Choose, project=None) -> None:
        self.settings = settings
        self.choose = choose
        self.project = project
        #: The files written so far, by (device, inode), and the path they were written through.
        self._written: Dict[Tuple[int, int], str] = {}

    def _check(self, path: str, text: str, data: bytes) -> Optional[List[Finding]]:
        encoded = _encode(text, data)
        if encoded is None:
            return None
        return list(check_bytes(encoded, path, self.settings, self.project).findings)

    def plan_file(self, path: str) -> FileFix:
        """Work out the fixed text of ``path`` without writing it."""
        try:
            data = read_file(path)
        except OSError as exc:
            outcome = FileFix(path)
            outcome.skipped = f"cannot read: {exc.strerror or exc}"
            return outcome
        return self.plan_bytes(path, data)

    def plan_bytes(self, path: str, data: bytes) -> FileFix:
        """Work out the fixed text of ``data``, the source of ``path`` (read from stdin, say)."""
        from tfguard.static.parsing import ParseFailure, decode_source

        outcome = FileFix(path)
        try:
            text = decode_source(data)
        except ParseFailure:
            outcome.skipped = "cannot be decoded"
            return outcome
        outcome.data, outcome.original, outcome.fixed = data, text, text
        if _encode(text, data) != data:
            outcome.skipped = "its bytes would not survive decoding and encoding again"
            return outcome
        findings = list(check_bytes(data, path, self.settings, self.project).findings)
        outcome.before = outcome.after = Counter(f.code for f in findings)
        if any(f.code == PARSE_ERROR_CODE for f in findings):
            outcome.skipped = "it does not parse (TFG000)"
            return outcome
        forbidden: Set[Tuple[str, Tuple[str, ...]]] = set()
        for _ in range(MAX_PASSES):
            fixes = [f.fix for f in findings
                     if f.fix is not None and self.choose(f) and _fix_key(f.fix) not in forbidden]
            if not fixes:
                break
            new_text, applied = apply_fixes(text, fixes)
            new_findings = self._valid(path, text, new_text, data, findings)
            if new_findings is None:
                new_text, new_findings = self._one_at_a_time(path, text, data, findings, applied, forbidden, outcome)
                if new_findings is None:
                    break
            text, findings = new_text, new_findings
        outcome.fixed = text
        outcome.after = Counter(f.code for f in findings)
        outcome.encoded = _encode(text, data) or b""
        return outcome

    def _valid(self, path: str, old_text: str, text: str, data: bytes,
               before: List[Finding]) -> Optional[List[Finding]]:
        try:
            with checked_code():
                compile(text, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return None
        after = self._check(path, text, data)
        if after is None or not _nothing_new(before, old_text, after, text):
            return None
        return after

    def _one_at_a_time(self, path, text, data, findings, applied, forbidden, outcome):
        for fix in applied:
            new_text, _ = apply_fixes(text, [fix])
            new_findings = self._valid(path, text, new_text, data, findings)
            if new_findings is not None:
                return new_text, new_findings
            forbidden.add(_fix_key(fix))
            outcome.forbidden.append(fix.message)
        return text, None

    def write(self, outcome: FileFix) -> None:
        """Write the fixed bytes into the file (the same file: links, owner and mode stay), unless it changed
        since it was read or the user cannot (or did not mean to let anyone) write it."""
        if not outcome.changed:
            return
        same = self._written.get(_file_identity(outcome.path))
        if same is not None:
            outcome.skipped = f"it is the same file as {same} (a link), fixed there"
            return
        outcome.skipped = read_only_reason(outcome.path)
        if outcome.skipped:
            return
        try:
            write_in_place(outcome.path, outcome.encoded, outcome.data, prefix=".tfguard-fix-")
        except FileChanged:
            outcome.skipped = "it changed while tfguard was fixing it"
        except OSError as exc:
            outcome.skipped = f"cannot write: {exc.strerror or exc}"
        else:
            self._written[_file_identity(outcome.path)] = outcome.path


def _file_identity(path: str) -> Tuple[int, int]:
    """The file behind `path` (device, inode): a symlink or a hard link and its target are one file."""
    try:
        info = os.stat(path)
    except OSError:
        return (-1, -1)
    return (info.st_dev, info.st_ino)
