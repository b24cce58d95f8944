"""The checker from a Python it cannot run on (3.7, beside TensorFlow 1.15): run it from a newer Python instead.

The checker needs astroid 3, hence Python 3.8 or newer, and never imports the checked code or TensorFlow, so it
loses nothing by running under another interpreter. On 3.7, ``tfguard check`` (``rules``, ``rule``) finds a
Python >= 3.8 on the machine (``TFGUARD_CHECKER_PYTHON``, ``python3.X`` on PATH, pyenv's versions, the ``py``
launcher on Windows), builds once a virtual environment for it under the user's cache folder holding this very
tfguard (its checkout put on ``sys.path`` by a ``.pth`` file, or a copy of the installed package: tfguard is not
on a package index) and its dependencies (from the user's package index, as pip is configured), and runs the
same command there, saying so in one line on stderr. Where no such Python exists, one line says what to install.

This module runs on Python 3.7: keep it 3.7-valid.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from typing import List, Optional, Sequence, Tuple

from tfguard.cli.errors import PROG, UsageError

#: The oldest Python the checker runs on, and the newest minor version looked for by name on PATH.
CHECKER_PYTHON = (3, 8)
_NEWEST_MINOR = 20
#: Set to a Python's path to choose it; set to ``0`` to turn the search off (the command is then refused).
ENV_PYTHON = "TFGUARD_CHECKER_PYTHON"
#: The dependencies the checker environment gets when the installed tfguard's metadata cannot be read.
_FALLBACK_REQUIREMENTS = ["astroid>=3.0", "tabulate>=0.9", "fissix>=21.6", 'tomli>=1.1; python_version < "3.11"']
_PROBE = "import sys; print('%d.%d.%d' % sys.version_info[:3])"
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tfguard/


def _version_of(command: Sequence[str]) -> Optional[Tuple[int, ...]]:
    """The version of the Python ``command`` starts, or None when it does not start (a pyenv shim of a version
    that is not selected, a broken link)."""
    try:
        done = subprocess.run(list(command) + ["-c", _PROBE], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              universal_newlines=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.match(r"^(\d+)\.(\d+)\.(\d+)$", done.stdout.strip()) if done.returncode == 0 else None
    return tuple(int(part) for part in match.groups()) if match else None


def _pyenv_roots() -> List[str]:
    roots = []
    try:
        done = subprocess.run(["pyenv", "root"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              universal_newlines=True, timeout=30)
        if done.returncode == 0 and done.stdout.strip():
            roots.append(done.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    roots += [os.environ.get("PYENV_ROOT", ""), os.path.join(os.path.expanduser("~"), ".pyenv")]
    unique = []
    for root in roots:
        if root and os.path.isdir(os.path.join(root, "versions")) and os.path.realpath(root) not in unique:
            unique.append(os.path.realpath(root))
    return unique


def candidates() -> List[List[str]]:
    """The commands that may start a newer Python, in the order they are tried."""
    found = []  # type: List[List[str]]
    for minor in range(_NEWEST_MINOR, CHECKER_PYTHON[1] - 1, -1):
        path = shutil.which("python3.%d" % minor)
        if path:
            found.append([path])
    for root in _pyenv_roots():
        versions = os.path.join(root, "versions")
        for name in sorted(os.listdir(versions), key=_version_key, reverse=True):
            python = os.path.join(versions, name, "bin", "python")
            if re.match(r"^3\.\d+", name) and os.access(python, os.X_OK):
                found.append([python])
    if shutil.which("py"):  # the Windows launcher: py -3.X
        found += [["py", "-3.%d" % minor] for minor in range(_NEWEST_MINOR, CHECKER_PYTHON[1] - 1, -1)]
    python3 = shutil.which("python3")
    if python3:
        found.append([python3])
    return found


def _version_key(name: str) -> Tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", name)[:3])


def find_checker_python() -> Optional[Tuple[List[str], Tuple[int, ...]]]:
    """Return the command and version of the newest Python >= 3.8 found, or None."""
    chosen = os.environ.get(ENV_PYTHON, "")
    if chosen:
        version = _version_of([chosen])
        if version is None or version[:2] < CHECKER_PYTHON:
            raise UsageError("%s=%s is not a Python 3.8 or newer that starts" % (ENV_PYTHON, chosen))
        return [chosen], version
    best = None
    for command in candidates():
        version = _version_of(command)
        if version is not None and version[:2] >= CHECKER_PYTHON and (best is None or version > best[1]):
            best = (command, version)
    return best


def _source() -> Tuple[str, Optional[str]]:
    """Where this tfguard lives: ``("checkout", root)`` when the package sits in a source tree (a clone, an
    editable install), else ``("copy", package folder)``."""
    root = os.path.dirname(_PACKAGE_DIR)
    project = os.path.join(root, "pyproject.toml")
    if os.path.isfile(project) and os.path.isdir(os.path.join(root, "rules")):
        with open(project, encoding="utf-8") as stream:
            if re.search(r'^name\s*=\s*"tfguard"', stream.read(), re.M):
                return "checkout", root
    return "copy", _PACKAGE_DIR


def requirements() -> List[str]:
    """The installed tfguard's dependencies (its metadata's Requires-Dist), else the known list."""
    try:
        from importlib.metadata import requires  # Python 3.8+
    except ImportError:
        requires = None
    if requires is None:
        try:
            from importlib_metadata import requires  # type: ignore[no-redef]  # the backport, when installed
        except ImportError:
            requires = None
    listed = None
    if requires is not None:
        try:
            listed = requires("tfguard")
        except Exception:  # noqa: BLE001 - no distribution metadata (a bare checkout on sys.path)
            listed = None
    if not listed:
        return list(_FALLBACK_REQUIREMENTS)
    return [line for line in listed if "extra ==" not in line]


def _fingerprint(folder: str) -> str:
    """A digest of the files under ``folder`` (paths, sizes, modification times): a changed copy rebuilds."""
    digest = hashlib.sha256()
    for base, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            path = os.path.join(base, name)
            stat = os.stat(path)
            digest.update(("%s %d %d\n" % (os.path.relpath(path, folder), stat.st_size, stat.st_mtime_ns)).encode())
    return digest.hexdigest()


def cache_root() -> str:
    """The folder that holds the checker environments (``XDG_CACHE_HOME`` or ``~/.cache``, ``LOCALAPPDATA`` on
    Windows)."""
    base = os.environ.get("XDG_CACHE_HOME") or (os.environ.get("LOCALAPPDATA") if os.name == "nt" else "")
    return os.path.join(base or os.path.join(os.path.expanduser("~"), ".cache"), "tfguard")


def environment_for(python: Sequence[str], version: Tuple[int, ...]) -> str:
    """The cached environment's folder for ``python`` and this tfguard (a new tfguard or Python, a new folder)."""
    kind, where = _source()
    key = json.dumps([list(python), list(version), kind, where, requirements(),
                      _fingerprint(where) if kind == "copy" else ""])
    return os.path.join(cache_root(), "checker-py%d.%d-%s" % (version[0], version[1],
                                                              hashlib.sha256(key.encode()).hexdigest()[:12]))


def _venv_python(venv: str) -> str:
    return os.path.join(venv, "Scripts", "python.exe") if os.name == "nt" else os.path.join(venv, "bin", "python")


def _child_environment() -> dict:
    """This process's environment without what points the other Python at this one's modules."""
    return {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "PYTHONHOME")}


def _run_quietly(command: Sequence[str], what: str) -> None:
    done = subprocess.run(list(command), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                          env=_child_environment())
    if done.returncode != 0:
        lines = [line for line in done.stdout.splitlines() if line.strip()]
        raise UsageError("could not %s (%s): %s" % (what, " ".join(command[:3]), lines[-1] if lines else
                                                    "exit status %d" % done.returncode))


def build(python: Sequence[str], venv: str) -> None:
    """Create ``venv`` with ``python``, install the dependencies with its pip, and put this tfguard in it."""
    shutil.rmtree(venv, ignore_errors=True)
    os.makedirs(os.path.dirname(venv), exist_ok=True)
    _run_quietly(list(python) + ["-m", "venv", venv], "create the checker's environment")
    inside = _venv_python(venv)
    _run_quietly([inside, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"] + requirements(),
                 "install the checker's dependencies")
    purelib = subprocess.run([inside, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             stdout=subprocess.PIPE, universal_newlines=True, check=True,
                             env=_child_environment()).stdout.strip()
    kind, where = _source()
    if kind == "checkout":  # the clone itself on sys.path: its edits are the checker's at once
        with open(os.path.join(purelib, "tfguard-checkout.pth"), "w", encoding="utf-8") as stream:
            stream.write(where + "\n")
    else:
        shutil.copytree(where, os.path.join(purelib, "tfguard"),
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    with open(os.path.join(venv, ".complete"), "w", encoding="utf-8") as stream:
        stream.write(" ".join(python) + "\n")


#: A checker environment not used for this many days is removed when another one is built (each tfguard install
#: or Python gets its own, about 20 MB).
UNUSED_DAYS = 30


def quiet(argv: Sequence[str]) -> bool:
    """Whether the command line asks for quiet output (``-q``, ``--quiet``, or ``-q`` among short flags)."""
    return any(arg == "--quiet" or (arg.startswith("-") and not arg.startswith("--") and "q" in arg[1:])
               for arg in argv if arg != "--")


def remove_unused(keep: str, days: float = UNUSED_DAYS) -> List[str]:
    """Remove the checker environments under :func:`cache_root` other than ``keep`` that were not used for ``days``
    days (their ``.complete`` marker's time, which each use renews); return those removed."""
    import time

    removed = []
    cutoff = time.time() - days * 86400
    for folder in sorted(glob.glob(os.path.join(cache_root(), "checker-py*"))):
        marker = os.path.join(folder, ".complete")
        if os.path.abspath(folder) == os.path.abspath(keep):
            continue
        try:
            used = os.path.getmtime(marker if os.path.exists(marker) else folder)
        except OSError:
            continue
        if used < cutoff:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _refusal(command: str) -> str:
    running = ".".join(str(part) for part in sys.version_info[:3])
    return ("tfguard %s needs Python 3.8 or newer (this is Python %s) and found none on this machine (python3.X on "
            "PATH, pyenv's versions, the py launcher): install one, e.g. `pyenv install 3.11` or your system's "
            "python3.11 package, and run it again (or set %s to its path)" % (command, running, ENV_PYTHON))


def run_elsewhere(command: str, argv: Sequence[str]) -> int:
    """Run ``tfguard ARGV`` (a checker command) under a Python >= 3.8 and return its exit status.

    Raises UsageError (one line) when no such Python exists or its environment cannot be built.
    """
    if os.environ.get(ENV_PYTHON) == "0":
        raise UsageError(_refusal(command).replace("found none on this machine", "the search is off (%s=0)"
                                                   % ENV_PYTHON, 1))
    found = find_checker_python()
    if found is None:
        raise UsageError(_refusal(command))
    python, version = found
    venv = environment_for(python, version)
    shown = ".".join(str(part) for part in version)
    needs = "%s: the checker needs Python 3.8+ (this is %d.%d): " % (PROG, sys.version_info[0], sys.version_info[1])
    complete = os.path.join(venv, ".complete")
    if not os.path.isfile(complete):
        # One line, once, when the environment is built (it takes a while); not on every check, nor with -q.
        if not quiet(argv):
            print(needs + "building its environment once with Python %s (%s) in %s" % (
                shown, " ".join(python), venv), file=sys.stderr)
            sys.stderr.flush()
        build(python, venv)
        remove_unused(venv)
    else:
        os.utime(complete)  # used now: remove_unused keeps it
    sys.stderr.flush()
    # Ctrl-C reaches the child too (one process group): it ends in its own one line and status 130.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return subprocess.call([_venv_python(venv), "-m", "tfguard"] + list(argv), env=_child_environment())
    finally:
        signal.signal(signal.SIGINT, previous)
