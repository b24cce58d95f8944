"""``tfguard check --add-noqa``: write ``# noqa: CODE`` on the line of every finding, so that the next check passes.

As ruff's ``--add-noqa``: the comment goes at the end of the finding's line, two spaces after the code; a line that
already has a ``# noqa: CODES`` comment gets the new codes added to it, and one with another comment gets the noqa
after that comment (``x = f()  # why  # noqa: TFG102``; the suppression reader finds it inside the comment). A line
that cannot take a comment (it ends inside a string that goes on to the next line, or in a backslash) is left as it
is and reported, never broken.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Set, Tuple

from tfguard.static.atomic import FileChanged, read_only_reason, write_in_place
from tfguard.static.finding import Finding
from tfguard.static.suppression import ALL_CODES, parse_noqa_comment

_CODES_IN_NOQA = re.compile(r"#\s*noqa:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)", re.IGNORECASE)


@dataclass
class NoqaEdit:
    """What ``--add-noqa`` did to one file."""

    path: str
    added: int = 0
    left: List[Tuple[int, str]] = field(default_factory=list)  # (line, why no comment could go there)
    #: Why the file was not written ("" when it was, or needed nothing); `added` is then 0.
    skipped: str = ""


def _comments_and_open_lines(text: str) -> Tuple[Optional[Dict[int, int]], Set[int]]:
    """Return the column of each line's comment, and the lines that end inside a token going on to the next line
    (a multi-line string); None for the comments when the file does not tokenize."""
    comments: Dict[int, int] = {}
    open_lines: Set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                comments[tok.start[0]] = tok.start[1]
            elif tok.start[0] != tok.end[0]:
                open_lines.update(range(tok.start[0], tok.end[0]))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None, open_lines
    return comments, open_lines


def _with_codes(line: str, column: Optional[int], codes: Iterable[str]) -> Tuple[str, int]:
    """Return ``line`` (without its newline) with ``codes`` in its noqa comment, and how many codes were added."""
    if column is None:
        wanted = sorted(set(codes))
        return line.rstrip() + "  # noqa: " + ", ".join(wanted), len(wanted)
    comment = line[column:]
    named = parse_noqa_comment(comment)
    if named is ALL_CODES:
        return line, 0
    wanted = sorted(set(codes) - set(named or ()))
    if not wanted:
        return line, 0
    match = _CODES_IN_NOQA.search(comment)
    if match is None:  # another comment: the noqa goes after it
        return line.rstrip() + "  # noqa: " + ", ".join(wanted), len(wanted)
    end = column + match.end("codes")
    return line[:end] + ", " + ", ".join(wanted) + line[end:], len(wanted)


def add_noqa(path: str, findings: Iterable[Finding]) -> NoqaEdit:
    """Add ``# noqa: CODE`` for each of ``findings`` (all of the file ``path``) to its line; write the file once."""
    edit = NoqaEdit(path)
    by_line: Dict[int, Set[str]] = {}
    for finding in findings:
        by_line.setdefault(finding.line, set()).add(finding.code)
    with open(path, "rb") as stream:
        data = stream.read()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)  # only what Python counts as line ends
    comments, open_lines = _comments_and_open_lines(text)
    for number, codes in sorted(by_line.items()):
        if not 1 <= number <= len(lines):
            continue
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        newline = line[len(body):]
        if number in open_lines:
            edit.left.append((number, "the line ends inside a string that goes on to the next line"))
            continue
        if body.rstrip().endswith("\\"):
            edit.left.append((number, "the line ends in a backslash"))
            continue
        if comments is None and "#" in body:  # not Python 3 (a Python 2 file): where a comment starts is unknown
            edit.left.append((number, "the file does not tokenize as Python 3 and the line holds a '#'"))
            continue
        changed, added = _with_codes(body, (comments or {}).get(number), codes)
        lines[number - 1] = changed + newline
        edit.added += added
    if edit.added:  # utf-8-sig writes the byte-order mark back
        # Into the user's file (links, owner and mode stay), as --fix does (fix_files.py).
        edit.skipped = read_only_reason(path)
        try:
            if not edit.skipped:
                write_in_place(path, "".join(lines).encode(encoding), data, prefix=".tfguard-noqa-")
        except FileChanged:
            edit.skipped = "it changed while tfguard was writing it"
        except OSError as exc:
            edit.skipped = "cannot write: %s" % (exc.strerror or exc)
        if edit.skipped:
            edit.added = 0
    return edit
