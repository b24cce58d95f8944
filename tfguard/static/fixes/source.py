"""A module's source text as fixes see it: lines with their own endings, character columns, indentation."""

from __future__ import annotations

import re
from collections import Counter
from typing import List, Tuple

from astroid import nodes

#: The line breaks Python's tokenizer knows (``str.splitlines`` knows more, form feed among them).
_LINE_BREAK = re.compile(r"\r\n|\r|\n")

Position = Tuple[int, int]  # 1-based line, 1-based character column


class SourceText:
    """One decoded source text, split into lines without losing a character."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines: List[str] = []
        self.endings: List[str] = []
        self.starts: List[int] = []
        start = 0
        for match in _LINE_BREAK.finditer(text):
            self.starts.append(start)
            self.lines.append(text[start:match.start()])
            self.endings.append(match.group())
            start = match.end()
        if start < len(text) or not self.lines:
            self.starts.append(start)
            self.lines.append(text[start:])
            self.endings.append("")
        self.starts.append(len(text))
        counts = Counter(ending for ending in self.endings if ending)
        #: The file's dominant line ending, used for the lines a fix adds.
        self.newline = counts.most_common(1)[0][0] if counts else "\n"

    def line(self, lineno: int) -> str:
        """Return line ``lineno`` (1-based) without its ending."""
        return self.lines[lineno - 1]

    def offset(self, position: Position) -> int:
        """Return the offset in :attr:`text` of a (line, column) position."""
        line, column = position
        return self.starts[line - 1] + column - 1

    def char_column(self, lineno: int, byte_offset: int) -> int:
        """Return the 1-based character column of a UTF-8 byte offset in a line (the parser counts bytes)."""
        text = self.line(lineno)
        if text.isascii():
            return byte_offset + 1
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace")) + 1

    def start(self, node: nodes.NodeNG) -> Position:
        """Return where ``node`` starts."""
        return node.lineno, self.char_column(node.lineno, node.col_offset)

    def end(self, node: nodes.NodeNG) -> Position:
        """Return where ``node`` ends (exclusive)."""
        return node.end_lineno, self.char_column(node.end_lineno, node.end_col_offset)

    def segment(self, start: Position, end: Position) -> str:
        """Return the text between two positions."""
        return self.text[self.offset(start):self.offset(end)]

    def node_text(self, node: nodes.NodeNG) -> str:
        """Return the source text of ``node`` as written."""
        return self.segment(self.start(node), self.end(node))

    def indent(self, lineno: int) -> str:
        """Return the leading whitespace of a line."""
        text = self.line(lineno)
        return text[: len(text) - len(text.lstrip(" \t\f"))]

    def starts_line(self, node: nodes.NodeNG) -> bool:
        """Return whether only whitespace precedes ``node`` on its first line."""
        line, column = self.start(node)
        return not self.line(line)[: column - 1].strip()

    def ends_line(self, node: nodes.NodeNG) -> bool:
        """Return whether only whitespace or a comment follows ``node`` on its last line."""
        line, column = self.end(node)
        rest = self.line(line)[column - 1:].strip()
        return not rest or rest.startswith("#")

    def next_line_start(self, lineno: int) -> Position:
        """Return the position just past a line's ending (the start of the next line, or the end of text)."""
        if lineno < len(self.lines):
            return lineno + 1, 1
        return lineno, len(self.lines[lineno - 1]) + 1 + len(self.endings[lineno - 1])

    def line_length(self) -> int:
        """The file's line length: the smallest usual limit (79, 80, 88, 100, 120) that 99% of its lines keep, else
        that 99th-percentile length (a file of 2-space Google style keeps 80; one long URL does not widen it)."""
        lengths = sorted(len(line) for line in self.lines if line.strip())
        if not lengths:
            return 79
        usual = lengths[int(0.99 * (len(lengths) - 1))]
        return next((limit for limit in (79, 80, 88, 100, 120) if usual <= limit), usual)

