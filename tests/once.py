"""Work that several tests read, done once per test session, also when pytest-xdist spreads them over workers.

A module or session fixture runs once per xdist worker (under ``--dist worksteal`` the tests of one module may land
on both workers), so an expensive run (a TensorFlow program, a fresh virtual environment) shared that way still
runs once per worker. ``once`` does it once per session: the first worker to ask does the work in a folder under
the session's temporary root (the folder the workers' own temporary folders share, as pytest-xdist's docs advise
for "run once" fixtures), under a file lock, and records its result; the others wait for the lock and read it.

Work that raises records nothing: the next test that asks does it again (and fails the same way, in its own test).
Without filelock (the TF 1.15 leg's environment has none) each worker does the work once, in its own folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any, Callable, Tuple


def session_root(tmp_path_factory) -> Path:
    """The temporary folder of the whole test session: under xdist the parent of the worker's own (which xdist
    makes inside the controller's), else the session's own."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once(tmp_path_factory, name: str, make: Callable[[Path], Any]) -> Tuple[Path, Any]:
    """Return (folder, value): ``make(folder)``'s value, from the one call of this session for ``name``.

    ``make`` writes what it makes into ``folder`` (empty, of this ``name`` alone) and returns a JSON value (read
    back by the tests of every worker as JSON gives it: lists, not tuples). ``name`` says what is made; the same
    name must mean the same work (a command line makes a good one).
    """
    try:
        from filelock import FileLock
    except ImportError:  # the TF 1.15 leg's environment (tools/tf1_leg_requirements.txt): each worker its own
        FileLock = None
    root = (session_root(tmp_path_factory) if FileLock else tmp_path_factory.getbasetemp()) / "once"
    root.mkdir(exist_ok=True)
    key = hashlib.sha256(name.encode("utf-8")).hexdigest()[:16]
    folder, record = root / key, root / (key + ".json")
    with FileLock(str(root / (key + ".lock"))) if FileLock else contextlib.nullcontext():
        if record.exists():
            return folder, json.loads(record.read_text(encoding="utf-8"))["value"]
        if folder.exists():  # left by a try that raised
            shutil.rmtree(folder)
        folder.mkdir()
        value = make(folder)
        record.write_text(json.dumps({"name": name, "value": value}), encoding="utf-8")
    return folder, value
