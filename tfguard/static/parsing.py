"""Reading and parsing checked files without importing or running them."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from typing import Optional, Tuple

from astroid import nodes
from astroid.builder import AstroidBuilder
from astroid.exceptions import AstroidSyntaxError
from astroid.manager import AstroidManager

from tfguard.static.quiet import checked_code


@dataclass(frozen=True)
class ParseFailure(Exception):
    """A file that cannot be parsed; ``line`` and ``column`` are 1-based."""

    line: int
    column: int
    reason: str

    def __str__(self) -> str:
        return self.reason


class SyntaxFailure(ParseFailure):
    """A file that is not valid Python 3 syntax (it may still be Python 2)."""


class _LocalOnlyBuilder(AstroidBuilder):
    """An AstroidBuilder that never looks outside the file it builds.

    astroid resolves ``from x import *`` and ``a.b.c = v`` by inference, which
    imports (parses) the modules named, TensorFlow included: slow, and not our
    business.  tfguard computes its own instance attributes in ``analysis``.
    """

    def add_from_names_to_locals(self, node, global_name):  # noqa: D102 - astroid hook
        for name, asname in node.names:
            if name == "*":
                continue
            local = asname or name
            target = node.root() if local in global_name else node.parent
            target.set_local(local, node)

    def delayed_assattr(self, node):  # noqa: D102 - astroid hook
        return None


def decode_source(data: bytes) -> str:
    """Decode file bytes as CPython reads source (PEP 263 cookie, BOM), or raise ParseFailure.

    The bytes CPython accepts are accepted and those it refuses refused: CPython decodes the tokens it
    uses, never a comment's text, so a file declaring utf-8 with GBK bytes in its comments compiles, and
    is read here with those bytes replaced (U+FFFD, in comments only). A file with a NUL byte is no
    source at all (CPython refuses it): "binary file".
    """
    nul = data.find(b"\0")
    if nul != -1:
        return _raise_failure("binary file, not Python source (it contains a NUL byte)", data, nul)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        # tokenize decodes the first two lines whole; CPython only their tokens and a cookie
        encoding = _cookie_cpython_accepts(data)
        if encoding is None:
            return _raise_failure(f"cannot detect the encoding: {exc}", data, 0)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        text = _decode_as_cpython(data, encoding, exc)
    except LookupError:
        return _raise_failure(f"unknown encoding {encoding!r}", data, 0)
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def _decode_as_cpython(data: bytes, encoding: str, error: UnicodeDecodeError) -> str:
    """The text of a file some of whose bytes do not decode, when CPython compiles it anyway (they sit in
    comments); ParseFailure at the first byte CPython refuses otherwise.

    Only this rare case pays for CPython's own parse: it is the one judge of what it accepts.
    """
    try:
        compile(data, "<tfguard>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as refused:
        line = refused.lineno or 1
        found = _first_error_at_or_after(data, encoding, _line_start(data, line))
        if found is not None and data.count(b"\n", 0, found[0]) + 1 == line:
            return _raise_failure(f"invalid {error.encoding} byte sequence: {found[1]}", data, found[0])
        # another syntax error (CPython read the bytes up to it): the parse reports it
    except (ValueError, MemoryError, RecursionError):
        # too deep for CPython's own parser: judged by the bytes alone
        return _raise_failure(f"invalid {error.encoding} byte sequence: {error.reason}", data, error.start)
    return data.decode(encoding, errors="replace")


_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def _cookie_cpython_accepts(data: bytes) -> Optional[str]:
    """The encoding of a file whose first two lines tokenize cannot decode (GBK bytes in a comment), when
    CPython compiles it: its cookie, or utf-8. None when CPython refuses it too."""
    try:
        compile(data, "<tfguard>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    for line in data.split(b"\n", 2)[:2]:
        match = _COOKIE.match(line)
        if match:
            return match.group(1).decode("ascii")
        if line.strip() and not line.lstrip().startswith(b"#"):
            break
    return "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8"


def _line_start(data: bytes, line: int) -> int:
    start = 0
    for _ in range(line - 1):
        found = data.find(b"\n", start)
        if found == -1:
            break
        start = found + 1
    return start


def _first_error_at_or_after(data: bytes, encoding: str, start: int) -> Optional[Tuple[int, str]]:
    """(offset, reason) of the first undecodable byte at or after ``start`` (a line start); None if none."""
    try:
        data[start:].decode(encoding)
    except UnicodeDecodeError as exc:
        return start + exc.start, exc.reason
    except LookupError:
        return None
    return None


def _raise_failure(reason: str, data: bytes, offset: int):
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    raise ParseFailure(line, column, reason)


def parse_module(source: str, path: str, python2: bool = False) -> nodes.Module:
    """Parse ``source`` into an astroid module without caching it, or raise ParseFailure.

    With ``python2``, a source that is not Python 3 is converted from Python 2 line for line
    (:mod:`tfguard.static.python2`) and parsed again; the module then carries the conversion as
    ``module.python2`` (None otherwise).  When that fails too, the Python 3 error is raised.
    """
    try:
        module = _parse(source, path)
    except ParseFailure as failure:
        if not python2 or not isinstance(failure, SyntaxFailure):
            raise
        module = _parse_python2(source, path, failure)
    else:
        module.python2 = None
    return module


def _parse_python2(source: str, path: str, failure: ParseFailure) -> nodes.Module:
    from tfguard.static.python2 import convert

    conversion = convert(source)
    if conversion is None:
        raise failure
    try:
        module = _parse(conversion.source, path)
    except ParseFailure:
        raise failure from None
    module.file_bytes = source.encode("utf-8")
    module.python2 = conversion
    return module


def _parse(source: str, path: str) -> nodes.Module:
    nul = source.find("\0")
    if nul != -1:
        line = source.count("\n", 0, nul) + 1
        column = nul - (source.rfind("\n", 0, nul) + 1) + 1
        raise ParseFailure(line, column, "source contains a NUL byte")
    manager = AstroidManager()
    builder = _LocalOnlyBuilder(manager, apply_transforms=False)
    modname = f"<tfguard:{path}>"
    try:
        with checked_code():
            module = builder.string_build(source, modname=modname, path=path)
    except AstroidSyntaxError as exc:
        error = exc.error
        line = getattr(error, "lineno", None) or 1
        column = getattr(error, "offset", None) or 1
        reason = getattr(error, "msg", None) or str(error)
        raise SyntaxFailure(line, column, reason) from None
    except (RecursionError, MemoryError) as exc:
        raise ParseFailure(1, 1, f"file too deeply nested to parse ({type(exc).__name__})") from None
    finally:
        manager.astroid_cache.pop(modname, None)
    return module
