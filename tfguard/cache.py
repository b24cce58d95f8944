"""The result cache: one JSON file per checked file, reused while nothing it depends on changed.

An entry is found by a key made of the file's path and content hash, the
tfguard code and rule set (:func:`ruleset_fingerprint`) and the settings that
change findings (:func:`settings_fingerprint`).  The entry also lists the other
files the analysis read, with their content hashes; it is used only while all
of them still hash the same, so editing a helper module re-checks its callers.

The cache is an optimisation and never a reason to fail: unreadable or corrupt
entries are misses (and are rewritten), and a folder that cannot be written
turns writing off for the run and leaves one warning in :attr:`ResultCache.warning`.
Entries are written to a temporary file and moved into place, so concurrent
runs never see half an entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from typing import Any, Dict, Iterable, Optional, Sequence, Tuple

from tfguard.analysis.project import find_project_root
from tfguard.config import Settings
from tfguard.finding import ChainLink, Finding

#: Name of the cache folder in the project root.
CACHE_DIR_NAME = ".tfguard_cache"
#: Files or folders that mark a project root.
#: Bumped whenever the layout of an entry changes.
ENTRY_FORMAT = 1

_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by tfguard.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)

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
    relevant = (settings.select, settings.extend_select, settings.ignore, settings.per_file_ignores, settings.root)
    return hashlib.blake2b(repr(relevant).encode("utf-8"), digest_size=16).hexdigest()


def ruleset_fingerprint() -> str:
    """Hash what decides the findings besides the file and the settings.

    That is the tfguard version, the registered rules (code and class), the size
    and modification time of every tfguard source file (so a changed rule in a
    development checkout is noticed without a version bump), and the astroid and
    Python versions.
    """
    import astroid

    import tfguard
    from tfguard.registry import all_rules

    parts = [f"format={ENTRY_FORMAT}", f"tfguard={tfguard.__version__}", f"astroid={astroid.__version__}",
             f"python={sys.version_info[:2]}"]
    for code, rule in all_rules().items():
        parts.append(f"rule={code}:{type(rule).__module__}.{type(rule).__qualname__}")
    package = os.path.dirname(os.path.abspath(tfguard.__file__))
    for folder, dirnames, filenames in os.walk(package):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py"):
                full = os.path.join(folder, name)
                try:
                    stat = os.stat(full)
                except OSError:
                    continue
                parts.append(f"src={os.path.relpath(full, package)}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.blake2b("\n".join(parts).encode("utf-8"), digest_size=16).hexdigest()


def finding_from_dict(data: Dict[str, Any]) -> Finding:
    """Rebuild a Finding from :meth:`Finding.to_dict` output; raises on a malformed dict."""
    fields = dict(data)
    chain = tuple(ChainLink(**link) for link in fields.pop("chain"))
    finding = Finding(**fields, chain=chain)
    if finding.to_dict() != data:
        raise ValueError("finding does not round-trip")
    return finding


class ResultCache:
    """Findings of earlier runs, stored under ``directory``, for one set of settings."""

    def __init__(self, directory: str, settings: Settings) -> None:
        self.directory = os.path.abspath(directory)
        self.warning: Optional[str] = None
        self._run_key = f"{ruleset_fingerprint()}:{settings_fingerprint(settings)}"
        self._writable = True
        self._prepared = False
        self._hashes: Dict[str, str] = {}

    def _entry_path(self, path: str, digest: str) -> str:
        key_text = "\0".join((self._run_key, os.path.abspath(path), path, digest))
        key = hashlib.blake2b(key_text.encode("utf-8", "surrogateescape"), digest_size=20).hexdigest()
        return os.path.join(self.directory, key[:2], key + ".json")

    def _current_hash(self, path: str) -> str:
        if path not in self._hashes:
            self._hashes[path] = file_hash(path)
        return self._hashes[path]

    def lookup(self, path: str, digest: str) -> Optional[Tuple[Finding, ...]]:
        """Return the cached findings of ``path`` with content ``digest``, or None on a miss."""
        try:
            with open(self._entry_path(path, digest), "rb") as handle:
                entry = json.loads(handle.read())
            if entry["path"] != path or entry["content"] != digest:
                return None
            for dep_path, dep_hash in entry["dependencies"]:
                if not dep_hash or self._current_hash(dep_path) != dep_hash:
                    return None
            return tuple(finding_from_dict(item) for item in entry["findings"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def store(self, path: str, digest: str, findings: Sequence[Finding], dependencies: Sequence[Dependency]) -> None:
        """Save the findings of ``path`` (content ``digest``) and the dependencies they came from."""
        if not self._writable:
            return
        entry = {
            "path": path,
            "content": digest,
            "dependencies": [list(dep) for dep in dependencies],
            "findings": [finding.to_dict() for finding in findings],
        }
        target = self._entry_path(path, digest)
        try:
            self._prepare()
            os.makedirs(os.path.dirname(target), exist_ok=True)
            _write_atomically(target, json.dumps(entry, separators=(",", ":")).encode("utf-8"))
        except OSError as exc:
            self._writable = False
            self.warning = f"cannot write the cache in {self.directory}: {exc.strerror or exc}; continuing without it"

    def _prepare(self) -> None:
        if self._prepared:
            return
        os.makedirs(self.directory, exist_ok=True)
        for name, text in (("CACHEDIR.TAG", _CACHEDIR_TAG), (".gitignore", "*\n")):
            marker = os.path.join(self.directory, name)
            if not os.path.exists(marker):
                _write_atomically(marker, text.encode("ascii"))
        self._prepared = True


def _write_atomically(target: str, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
