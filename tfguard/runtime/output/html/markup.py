"""The one escape function of the HTML page: every value the page writes (text from the program, paths, figures,
numbers) goes through `esc`, so that nothing the run recorded is written into the page raw."""

from __future__ import annotations

from html import escape
from typing import Any


def esc(value: Any) -> str:
    """`value` as HTML text (attributes included): ``str(value)`` escaped, ``""`` for None."""
    return "" if value is None else escape(str(value), quote=True)
