"""The result cache: one pack file per run key, reused while nothing a file's findings depend on changed.

A run key is the tfguard code and version (:func:`ruleset_fingerprint`) plus
the settings that change findings (:func:`settings_fingerprint`); the pack of a
run key is ``<cache dir>/<hash of the run key>.json``::

    {"format": 2, "entries": {<absolute path>: {"path", "content", "dependencies", "findings"}}}

An entry holds the path as the run spelled it, the content hash of the file
when it was checked, the other files the analysis read with their content
hashes, and the findings.  It is used only while the file and every one of
those dependencies still hash the same, so editing a helper module re-checks
its callers.

The pack is read once, on the first lookup.  :meth:`ResultCache.store` only
records in memory; :meth:`ResultCache.flush`, called once at the end of a run,
reads the pack on disk again, merges the new entries into it (concurrent runs
lose at most each other's newest entries), drops entries of files that no
longer exist, and replaces the pack atomically (temporary file, then
``os.replace``), so no run ever sees half a pack.  Entry folders of the
per-file layout of earlier versions (``<2 hex digits>/`` holding nothing but
entry files) are removed on flush; nothing else in the folder is touched.

The cache is an optimisation and never a reason to fail: an unreadable or
corrupt pack, or a corrupt entry in it, is a miss (and is rewritten), and a
folder that cannot be written leaves one warning in :attr:`ResultCache.warning`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import time
from importlib.util import find_spec
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from tfguard.static.atomic import write_atomically
from tfguard.static.config import Settings
from tfguard.static.finding import ChainLink, Finding, Fix
from tfguard.static.project_root import find_project_root

#: Name of the cache folder in the project root.
CACHE_DIR_NAME = ".tfguard_cache"
#: Bumped whenever the layout of a pack or of an entry changes.
PACK_FORMAT = 4

_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by tfguard.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)
#: Entry folders of the per-file layout (format 1) and the files in them, removed on flush.
_OLD_ENTRY_FOLDER = re.compile(r"[0-9a-f]{2}")
_OLD_ENTRY_FILE = re.compile(r"[0-9a-f]{40}\.json|\.tmp-.*\.part")

#: A dependency: absolute path and content hash ("" when it could not be read).
Dependency = Tuple[str, str]


def content_hash(data: bytes) -> str:
    """Return the hash that identifies a file's content."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def file_hash(path: str) -> str:
    """Return the content hash of the file at ``path``, or "" when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return content_hash(handle.read())
    except OSError:
        return ""


def hash_dependencies(paths: Iterable[str]) -> Tuple[Dependency, ...]:
    """Return (absolute path, content hash) for each dependency path, sorted and without repeats."""
    absolute = sorted({os.path.abspath(path) for path in paths})
    return tuple((path, file_hash(path)) for path in absolute)


def default_cache_dir(first_path: str) -> str:
    """Return ``.tfguard_cache`` in the project root of ``first_path`` (the working folder without one)."""
    return os.path.join(find_project_root(first_path, fallback=os.getcwd()), CACHE_DIR_NAME)


def settings_fingerprint(settings: Settings) -> str:
    """Hash the settings that change the findings of a checked file (not the file selection)."""
    relevant = (settings.select, settings.extend_select, settings.ignore, settings.per_file_ignores, settings.root,
                settings.python2)
    return hashlib.blake2b(repr(relevant).encode("utf-8"), digest_size=16).hexdigest()


def source_stamps(folder: str) -> List[str]:
    """Return ``relative path:size:mtime`` of every ``.py`` file under ``folder``, in a stable order."""
    stamps = []
    for current, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py"):
                full = os.path.join(current, name)
                try:
                    stat = os.stat(full)
                except OSError:
                    continue
                stamps.append(f"{os.path.relpath(full, folder)}:{stat.st_size}:{stat.st_mtime_ns}")
    return stamps


def _astroid_stamp() -> str:
    # The installed astroid, identified without importing it (that alone costs
    # more than a whole warm run): its version file's size and mtime change
    # with every install.
    spec = find_spec("astroid")
    if spec is None or not spec.submodule_search_locations:
        return "astroid=missing"
    stamps = []
    for folder in spec.submodule_search_locations:
        for name in ("__pkginfo__.py", "__init__.py"):
            try:
                stat = os.stat(os.path.join(folder, name))
            except OSError:
                continue
            stamps.append(f"{name}:{stat.st_size}:{stat.st_mtime_ns}")
    return "astroid=" + ",".join(stamps)


def ruleset_fingerprint() -> str:
    """Hash what decides the findings besides the file and the settings.

    That is the pack format, the tfguard version, the name, size and
    modification time of every tfguard source file (the rules, the analysis and
    the engine, so a changed or added rule is noticed even without a version
    bump), the installed astroid and the Python version.  Nothing here imports
    the rules or astroid: a fully cached run never needs them.
    """
    import tfguard

    package = os.path.dirname(os.path.abspath(tfguard.__file__))
    parts = [f"format={PACK_FORMAT}", f"tfguard={tfguard.__version__}", _astroid_stamp(),
             f"python={sys.version_info[:2]}", *source_stamps(package)]
    return hashlib.blake2b("\n".join(parts).encode("utf-8"), digest_size=16).hexdigest()


def finding_from_dict(data: Dict[str, Any]) -> Finding:
    """Rebuild a Finding from :meth:`Finding.to_dict` output; raises on a malformed dict."""
    fields = dict(data)
    fields.pop("message", None)  # the one-line form, made from the headline and the help
    chain = tuple(ChainLink(**link) for link in fields.pop("chain"))
    fix = fields.pop("fix", None)
    no_fix = fields.pop("no_fix", None) or ""
    if not isinstance(no_fix, str):
        raise ValueError("finding has a no_fix of the wrong type")
    finding = Finding(**fields, chain=chain, fix=Fix.from_dict(fix) if fix is not None else None, no_fix=no_fix)
    if not all(isinstance(getattr(finding, name), kind) for name, kind in _FIELD_TYPES) or not all(
        isinstance(link.path, str) and isinstance(link.line, int) and isinstance(link.function, str)
        for link in chain
    ):
        raise ValueError("finding has a field of the wrong type")
    return finding


_FIELD_TYPES = (
    ("path", str), ("line", int), ("column", int), ("end_line", int), ("end_column", int),
    ("code", str), ("name", str), ("severity", str), ("headline", str), ("help", str),
)


#: A time stamp this close to now (seconds) may still change within its clock tick.
_RACY_SECONDS = 2.0


def _stat_key(stat: os.stat_result) -> Optional[List[int]]:
    """Return [size, mtime_ns, ctime_ns, inode, device] of a file, or None while a time stamp is too recent to trust.

    Size and modification time alone miss an edit that keeps both (``cp -p``,
    ``rsync -t``, ``touch -r``); such an edit still sets the status-change time
    (ctime), which no user command sets back, and replacing the file changes
    its inode.
    """
    if time.time() - max(stat.st_mtime, stat.st_ctime) < _RACY_SECONDS:
        return None
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_dev]


def read_pack(pack_path: str) -> Dict[str, Any]:
    """Return the entries of the pack at ``pack_path``; empty when it is missing, unreadable or corrupt.

    Entries are returned as stored; each is validated when it is looked up.
    """
    try:
        with open(pack_path, "rb") as handle:
            pack = json.loads(handle.read())
    except (OSError, ValueError):
        return {}
    if not isinstance(pack, dict) or pack.get("format") != PACK_FORMAT or not isinstance(pack.get("entries"), dict):
        return {}
    return {key: entry for key, entry in pack["entries"].items() if isinstance(entry, dict)}


class ResultCache:
    """Findings of earlier runs, stored under ``directory``, for one set of settings."""

    def __init__(self, directory: str, settings: Settings) -> None:
        self.directory = os.path.abspath(directory)
        self.warning: Optional[str] = None
        run_key = f"{ruleset_fingerprint()}:{settings_fingerprint(settings)}"
        digest = hashlib.blake2b(run_key.encode("utf-8"), digest_size=16).hexdigest()
        #: The pack file of this run key.
        self.pack_path = os.path.join(self.directory, digest + ".json")
        self._entries: Optional[Dict[str, Any]] = None
        self._new: Dict[str, Dict[str, Any]] = {}
        self._seen: Set[str] = set()
        self._hashes: Dict[str, str] = {}

    def _loaded(self) -> Dict[str, Any]:
        if self._entries is None:
            self._entries = read_pack(self.pack_path)
        return self._entries

    def _current_hash(self, path: str) -> str:
        if path not in self._hashes:
            self._hashes[path] = file_hash(path)
        return self._hashes[path]

    def lookup(self, path: str, digest: str, stat: Optional[os.stat_result] = None) -> Optional[Tuple[Finding, ...]]:
        """Return the cached findings of ``path`` with content ``digest``, or None on a miss.

        With ``stat``, a hit also records the file's size, time stamps and inode,
        so that the next run can use :meth:`lookup_unchanged` without reading it.
        """
        entry = self._entry(path)
        try:
            if entry is None or entry["content"] != digest:
                return None
            findings = self._findings(entry)
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        if findings is not None and stat is not None and entry.get("stat") != _stat_key(stat):
            self._new[os.path.abspath(path)] = dict(entry, stat=_stat_key(stat))
        return findings

    def lookup_unchanged(self, path: str, stat: os.stat_result) -> Optional[Tuple[Finding, ...]]:
        """Return the cached findings of ``path`` if its size, time stamps and inode are those recorded.

        The file is not read: the fast path of a warm run, as in ruff and mypy.
        Files modified too recently to trust their time stamp never get one recorded.
        """
        entry = self._entry(path)
        try:
            if entry is None or entry.get("stat") is None or entry["stat"] != _stat_key(stat):
                return None
            return self._findings(entry)
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    def _entry(self, path: str) -> Optional[Dict[str, Any]]:
        key = os.path.abspath(path)
        self._seen.add(key)
        entry = self._new.get(key) or self._loaded().get(key)
        if entry is None or entry.get("path") != path:
            return None
        return entry

    def _findings(self, entry: Dict[str, Any]) -> Optional[Tuple[Finding, ...]]:
        for dep_path, dep_hash in entry["dependencies"]:
            if not dep_hash or self._current_hash(dep_path) != dep_hash:
                return None
        return tuple(finding_from_dict(item) for item in entry["findings"])

    def store(
        self,
        path: str,
        digest: str,
        findings: Sequence[Finding],
        dependencies: Sequence[Dependency],
        stat: Optional[os.stat_result] = None,
        python2: bool = False,
    ) -> None:
        """Record the findings of ``path`` (content ``digest``) and their dependencies; :meth:`flush` saves them.

        ``stat`` is the file's status taken before it was read (see :meth:`lookup_unchanged`);
        ``python2`` records that the file was checked as Python 2 (see :meth:`was_python2`).
        """
        key = os.path.abspath(path)
        self._seen.add(key)
        self._new[key] = {
            "path": path,
            "content": digest,
            "stat": _stat_key(stat) if stat is not None else None,
            "dependencies": [list(dep) for dep in dependencies],
            "findings": [finding.to_dict() for finding in findings],
        }
        if python2:
            self._new[key]["python2"] = True

    def was_python2(self, path: str) -> bool:
        """Return whether the cached result of ``path`` (just looked up) was checked as Python 2."""
        entry = self._new.get(os.path.abspath(path)) or self._loaded().get(os.path.abspath(path))
        return isinstance(entry, dict) and entry.get("python2") is True

    def flush(self) -> None:
        """Merge the stored entries into the pack on disk and replace it atomically.

        Entries of files that no longer exist are dropped.  Nothing is written
        when nothing changed.  A failure to write sets :attr:`warning` instead
        of raising.
        """
        on_disk = read_pack(self.pack_path)
        merged = dict(on_disk)
        merged.update(self._new)
        # Files looked up or checked in this run exist; only the others are looked at.
        gone = [key for key in merged if key not in self._seen and not os.path.exists(key)]
        for key in gone:
            del merged[key]
        self._entries = merged
        if not self._new and not gone:
            return
        pack = {"format": PACK_FORMAT, "entries": merged}
        try:
            self._prepare()
            write_atomically(self.pack_path, json.dumps(pack, separators=(",", ":")).encode("utf-8"))
        except OSError as exc:
            self.warning = f"cannot write the cache in {self.directory}: {exc.strerror or exc}; continuing without it"
            return
        self._new = {}
        self._remove_old_layout()

    def _prepare(self) -> None:
        os.makedirs(self.directory, exist_ok=True)
        for name, text in (("CACHEDIR.TAG", _CACHEDIR_TAG), (".gitignore", "*\n")):
            marker = os.path.join(self.directory, name)
            if not os.path.exists(marker):
                write_atomically(marker, text.encode("ascii"))

    def _remove_old_layout(self) -> None:
        try:
            names = os.listdir(self.directory)
        except OSError:
            return
        for name in names:
            folder = os.path.join(self.directory, name)
            if _OLD_ENTRY_FOLDER.fullmatch(name) and _holds_only_old_entries(folder):
                shutil.rmtree(folder, ignore_errors=True)


def _holds_only_old_entries(folder: str) -> bool:
    # Only a folder tfguard itself filled is removed, never one a user keeps in a --cache-dir.
    if os.path.islink(folder) or not os.path.isdir(folder):
        return False
    try:
        with os.scandir(folder) as entries:
            return all(entry.is_file(follow_symlinks=False) and _OLD_ENTRY_FILE.fullmatch(entry.name)
                       for entry in entries)
    except OSError:
        return False
