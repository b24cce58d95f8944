"""Reading and parsing checked files without importing or running them."""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass

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
    """Decode file bytes as Python does (PEP 263 cookie, BOM), or raise ParseFailure."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        return _raise_failure(f"cannot detect the encoding: {exc}", data, 0)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        return _raise_failure(f"invalid {exc.encoding} byte sequence: {exc.reason}", data, exc.start)
    except LookupError:
        return _raise_failure(f"unknown encoding {encoding!r}", data, 0)
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


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
