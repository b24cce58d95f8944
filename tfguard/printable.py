"""Text from files anyone wrote (file names, function names, messages that quote code) made safe to print: a
terminal escape sequence or a bidirectional-override mark in a name would otherwise reach the terminal raw (clear
the screen, rewrite a line, reorder what the reader sees). Shared by the checker's text outputs and the runtime's
text report."""

from __future__ import annotations

import re

#: Control characters but tab and newline (ESC, CR, BEL, DEL, C1) and the Unicode marks that reorder or hide text:
#: bidirectional embeddings, overrides and isolates, the directional marks, zero-width and line/paragraph separators.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def _escaped(match: "re.Match[str]") -> str:
    code = ord(match.group())
    return "\\x%02x" % code if code < 0x100 else "\\u%04x" % code


def printable(text: str) -> str:
    """`text` with every control character (but tab and newline) and every bidi or invisible mark written as an
    escape (``\\x1b``, ``\\u202e``); printable text unchanged."""
    return _UNPRINTABLE.sub(_escaped, text)


def printable_line(text: str) -> str:
    """:func:`printable`, newlines and tabs escaped too: for one field on one line."""
    return printable(text).replace("\n", "\\n").replace("\t", "\\t")
