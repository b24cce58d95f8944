"""What the command line tells every output format besides the result: colour, ``--show-fixes``, ``--docs-url``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RenderOptions:
    """How to render a result; each format reads the options that concern it and ignores the others."""

    #: ANSI colours (``text``/``full`` on a terminal, or ``--color always``).
    color: bool = False
    #: ``--show-fixes``: each finding's fix, or why it has none (``text``/``full``).
    show_fixes: bool = False
    #: The docs site's base address that SARIF's rules link to ("" for the bundled pages' public address).
    docs_url: str = ""


#: No colour, no fixes shown, the default docs address.
PLAIN = RenderOptions()
