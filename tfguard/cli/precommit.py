"""``tfguard pre-commit-config``: print the ``.pre-commit-config.yaml`` hook that installs this tfguard.

tfguard is not on a package index, so pre-commit installs it from its git repository at a fixed commit. pip
takes only URLs with a scheme there (``git+https://``, ``git+ssh://``, ``git+file://``), not the ``git@host:path``
or plain-path origins git accepts; this command writes the line pip takes from what git knows.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
from typing import Any, Optional

from tfguard.cli.errors import EXIT_CLEAN, UsageError

#: The snippet printed; README's recipe is this text with the two placeholders.
SNIPPET = """\
repos:
  - repo: local
    hooks:
      - id: tfguard
        name: tfguard
        entry: tfguard check --force-exclude
        language: python
        types: [python]
        additional_dependencies: ["tfguard @ git+{url}@{rev}"]
        # args: [--extend-select, TFG001]   # extra options for `tfguard check`
"""
_SCHEMES = ("https://", "http://", "ssh://", "git://", "file://")
_SCP_LIKE = re.compile(r"^(?:(?P<user>[^@/:]+)@)?(?P<host>[^/:]+):(?P<path>.*)$")
_SHA = re.compile(r"^[0-9a-f]{40}$")


def add_parser(commands: Any) -> None:
    """Register ``tfguard pre-commit-config`` on the CLI's subcommand parsers."""
    parser = commands.add_parser(
        "pre-commit-config", help="print a ready .pre-commit-config.yaml hook that installs this tfguard",
        description="Print a `repo: local` hook for .pre-commit-config.yaml whose additional_dependencies line "
                    "installs tfguard from its git repository at one commit. The repository and commit default to "
                    "the origin and HEAD of the checkout tfguard runs from; https, SSH (git@host:path) and local "
                    "paths are all written as URLs pip accepts.")
    parser.add_argument("--repo", metavar="URL", help="tfguard's repository: an https or ssh URL, git@host:path, "
                        "or a local path (default: the checkout's origin, else the checkout itself)")
    parser.add_argument("--rev", metavar="SHA", help="the full commit SHA to install (default: the checkout's HEAD)")


def pip_git_url(origin: str, base: str = ".") -> str:
    """Return ``origin`` (what ``git remote get-url`` prints) as the URL pip takes after ``git+``.

    ``https://…``/``ssh://…``/``file://…`` stay as they are; ``git@host:owner/repo.git`` becomes
    ``ssh://git@host/owner/repo.git``; a local path, absolute or relative to ``base``, becomes ``file:///abs/path``.
    """
    origin = origin.strip()
    if origin.startswith(_SCHEMES):
        return origin
    scp = _SCP_LIKE.match(origin)
    if scp and not os.path.exists(origin) and not re.match(r"^[A-Za-z]:[\\/]", origin):
        user = scp.group("user") + "@" if scp.group("user") else ""
        path = scp.group("path")
        return "ssh://%s%s/%s" % (user, scp.group("host"), path[1:] if path.startswith("/") else path)
    absolute = os.path.abspath(os.path.join(base, os.path.expanduser(origin)))
    return "file://" + absolute.replace(os.sep, "/") if absolute.startswith("/") else "file:///" + absolute


def _git(folder: str, *args: str) -> Optional[str]:
    try:
        done = subprocess.run(["git", "-C", folder, *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


def checkout_folder() -> Optional[str]:
    """Return the root of the git checkout tfguard is imported from, or None (installed from a wheel)."""
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return _git(package, "rev-parse", "--show-toplevel")


def run_command(args: argparse.Namespace) -> int:
    """Run ``tfguard pre-commit-config``: print the hook; a one-line error when the repository is unknown."""
    checkout = checkout_folder()
    origin = args.repo
    if origin is None and checkout is not None:
        origin = _git(checkout, "remote", "get-url", "origin") or checkout
    if origin is None:
        raise UsageError("tfguard is not running from a git checkout: give --repo URL and --rev SHA")
    rev = args.rev
    if rev is None:
        source = checkout if args.repo is None else args.repo if os.path.isdir(args.repo) else None
        rev = _git(source, "rev-parse", "HEAD") if source is not None else None
        if rev is None:
            raise UsageError("give --rev SHA: the full commit of tfguard's repository to install")
    if not _SHA.match(rev):
        raise UsageError("--rev needs a full 40-character commit SHA (pre-commit caches by it), got %r" % rev)
    base = "." if args.repo is not None else checkout or "."  # a relative --repo is relative to the working folder
    print(SNIPPET.format(url=pip_git_url(origin, base), rev=rev), end="")
    return EXIT_CLEAN
