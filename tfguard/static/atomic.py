"""Writing files: replace one in one step (a temporary file beside it renamed over it: tfguard's own files), or
rewrite the user's file where it is, keeping what makes it theirs (links, owner, mode: ``--fix``, ``--add-noqa``)."""

from __future__ import annotations

import os
import stat
import tempfile
from typing import BinaryIO, Optional


def write_atomically(target: str, data: bytes, prefix: str = ".tmp-", mode: Optional[int] = None) -> None:
    """Write ``data`` to ``target`` through a temporary file in its folder (given ``mode`` bits, if any).

    Readers see the old content or the new one, never a part; the temporary file is removed on failure.
    """
    folder = os.path.dirname(os.path.abspath(target))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=prefix, suffix=".part")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


class FileChanged(Exception):
    """The file no longer holds what the caller read: it was left as it is."""


def read_only_reason(path: str) -> str:
    """Why the user's file at `path` must not be rewritten ("" when it may be): the user cannot write it, or its
    mode says read-only for everyone (root could write it anyway, but someone made it read-only on purpose)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return "cannot read: %s" % (exc.strerror or exc)
    if not os.access(path, os.W_OK):
        return "you cannot write it (permission denied)"
    if not mode & 0o222:
        return "it is read-only (mode %o)" % stat.S_IMODE(mode)
    return ""


def write_in_place(target: str, data: bytes, expected: bytes, prefix: str = ".tmp-") -> None:
    """Rewrite the user's file `target` with `data`, in the same file (its inode): a symlink is written through to
    its target, hard links stay linked, owner, group and mode stay the user's. Raises FileChanged (nothing written)
    when the file does not hold `expected` any more, OSError when it cannot be written.

    Nothing is lost: a copy of `expected` goes to a temporary file beside the target first; if writing the target
    fails part-way, `expected` is written back; if that fails too, the OSError names the copy, which is kept.
    """
    with open(target, "r+b") as stream:
        if stream.read() != expected:
            raise FileChanged(target)
        folder = os.path.dirname(os.path.realpath(target))
        handle, backup = tempfile.mkstemp(dir=folder, prefix=prefix, suffix=".orig")
        with os.fdopen(handle, "wb") as copy:
            copy.write(expected)
            copy.flush()
            os.fsync(copy.fileno())
        try:
            _overwrite(stream, data)
        except OSError as exc:
            try:
                _overwrite(stream, expected)
            except OSError:
                raise OSError(exc.errno, "%s; the original is kept in %s" % (exc.strerror or exc, backup)) from None
            os.unlink(backup)
            raise
    os.unlink(backup)


def _overwrite(stream: BinaryIO, data: bytes) -> None:
    stream.seek(0)
    stream.write(data)
    stream.truncate()
    stream.flush()
    os.fsync(stream.fileno())
