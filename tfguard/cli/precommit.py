"""``tfguard pre-commit-config``: print a ``.pre-commit-config.yaml`` hook for this tfguard.

Two hooks. The one that works for anyone who installed tfguard (``pip install .`` from a clone, or ``-e``)
runs the installed ``tfguard`` command (``language: system``): it is printed when tfguard does not run from
a git checkout, and with ``--system``. The other has pre-commit install tfguard itself from its git repository
at a fixed commit (tfguard is not on a package index): pip takes only URLs with a scheme there
(``git+https://``, ``git+ssh://``, ``git+file://``), not the ``git@host:path`` or plain-path origins git
accepts, so this command writes the line pip takes from what git knows.
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
        entry: tfguard check --force-exclude --callers
        language: python
        types: [python]
        additional_dependencies: ["tfguard @ git+{url}@{rev}"]
        # args: [--extend-select, TFG001]   # extra options for `tfguard check`
"""
#: The hook that runs the installed ``tfguard`` (the docs show this text; a test runs it with pre-commit).
SYSTEM_SNIPPET = """\
repos:
  - repo: local
    hooks:
      - id: tfguard
        name: tfguard
        entry: tfguard check --force-exclude --callers
        language: system
        types: [python]
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
    parser.add_argument("--system", action="store_true",
                        help="print the hook that runs the installed tfguard command (language: system; the "
                             "default when tfguard is installed, not run from a git checkout)")
    parser.add_argument("--repo", metavar="URL", help="tfguard's repository: an https or ssh URL, git@host:path, "
                        "or a local path (default: the checkout's origin, else the checkout itself)")
    parser.add_argument("--rev", metavar="SHA", help="the commit to install: a full SHA, or a name (HEAD, a branch, "
                        "a tag) resolved to one in the checkout or a local --repo (default: the checkout's HEAD)")


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
    """Return the root of the git checkout tfguard is imported from, or None (installed as a copy).

    A copy installed in a virtual environment that lies inside some other git repository (a project's
    ``.venv``) is no checkout of tfguard: the repository's root must be the folder that holds the package.
    """
    holder = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    top = _git(holder, "rev-parse", "--show-toplevel")
    if top is None or os.path.realpath(top) != os.path.realpath(holder):
        return None
    return top


def resolve_rev(rev: str, source: Optional[str], origin: str) -> str:
    """Return the full commit SHA ``rev`` names: as given, or resolved in the local clone ``source``."""
    if _SHA.match(rev):
        return rev
    resolved = _git(source, "rev-parse", "--verify", "--quiet", rev + "^{commit}") if source is not None else None
    if resolved is not None and _SHA.match(resolved):
        return resolved
    if source is not None:
        raise UsageError("--rev %r names no commit of %s" % (rev, source))
    raise UsageError("--rev needs a full 40-character commit SHA (pre-commit caches by it), got %r: %s is not a "
                     "local clone to resolve it in; `git ls-remote %s %s` prints the SHA" % (rev, origin, origin, rev))


def run_command(args: argparse.Namespace) -> int:
    """Run ``tfguard pre-commit-config``: print the hook; a one-line error when the repository is unknown."""
    checkout = checkout_folder()
    if args.system or (checkout is None and args.repo is None):
        if args.rev is not None and args.repo is None:
            raise UsageError("--rev goes with --repo: the hook that runs the installed tfguard installs nothing")
        print(SYSTEM_SNIPPET, end="")
        return EXIT_CLEAN
    origin = args.repo
    if origin is None:
        origin = _git(checkout, "remote", "get-url", "origin") or checkout
    if args.repo is None:
        source: Optional[str] = checkout
    else:
        source = args.repo if os.path.isdir(args.repo) else None
    rev = args.rev
    if rev is None:
        rev = _git(source, "rev-parse", "HEAD") if source is not None else None
        if rev is None:
            raise UsageError("give --rev SHA: the full commit of tfguard's repository to install")
    rev = resolve_rev(rev, source, origin)
    base = "." if args.repo is not None else checkout or "."  # a relative --repo is relative to the working folder
    print(SNIPPET.format(url=pip_git_url(origin, base), rev=rev), end="")
    return EXIT_CLEAN
