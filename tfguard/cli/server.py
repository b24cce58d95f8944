"""``tfguard server``: the checker as a language server for editors, over stdin/stdout (LSP).

pygls, the LSP library it is built on, is an optional dependency: without it the command says in one line
what to install and exits 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tfguard.cli.errors import UsageError

#: What to install when pygls is missing.
INSTALL_HINT = "tfguard server needs pygls 2: pip install 'pygls>=2' (in a checkout: pip install '.[server]')"


def add_parser(commands: Any) -> None:
    """Register ``tfguard server`` on the CLI's subcommand parsers."""
    server = commands.add_parser(
        "server", help="run the language server for editors (LSP over stdin/stdout)",
        description="Serve the checker to an editor over the Language Server Protocol on stdin/stdout: "
                    "diagnostics as you type, quick fixes, fix all, noqa actions, hover on codes, and the last "
                    "`tfguard run --json` report's findings (the `runtime-report` setting). See "
                    "docs/integrations/editors.md for set-up in VS Code, Neovim, Helix and Emacs.")
    server.add_argument("--stdio", action="store_true",
                        help="talk over stdin/stdout (the default and only transport; accepted because "
                             "editors' LSP clients often pass it)")


def run_command(args: argparse.Namespace) -> int:
    """Serve until the client sends ``exit``; return 0 after a ``shutdown`` request, else 1."""
    if sys.version_info < (3, 9):
        raise UsageError("tfguard server needs Python 3.9 or newer (pygls 2 does); tfguard check works here")
    try:
        import lsprotocol  # noqa: F401 - imported to tell a missing dependency from a broken server
        import pygls  # noqa: F401
    except ImportError:
        raise UsageError(INSTALL_HINT) from None
    from tfguard import __version__
    from tfguard.server.protocol import serve

    return serve(__version__)
