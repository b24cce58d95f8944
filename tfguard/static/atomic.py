"""Replace a file in one step: write a temporary file beside it, then rename it over the target."""

from __future__ import annotations

import os
import tempfile
from typing import Optional


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
