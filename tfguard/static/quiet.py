"""Compiling checked code without its warnings reaching the user's terminal.

Python warns while it compiles code (``SyntaxWarning: "is" with a literal``, invalid escape sequences);
those are the checked project's business, not tfguard's output, and they would otherwise be printed in the
middle of the report, once per worker process. Every place that parses or compiles checked code does it
inside :func:`checked_code`.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Iterator


@contextlib.contextmanager
def checked_code() -> Iterator[None]:
    """Ignore every warning raised inside the block (parsing or compiling checked code)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
