"""Baselines: record today's findings so that only new ones are reported (adopting tfguard on legacy code).

An entry identifies a finding by its file (relative to the baseline file's
folder, POSIX), its code, and a fingerprint of the offending line's text
(whitespace-normalised) and of the function or class around it.  Line numbers
are left out, so edits elsewhere in the file keep the entry matching.  The same
fingerprint can occur several times in a file; entries carry a count.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, replace
from typing import Iterable, List, Optional, Sequence, Tuple

from tfguard.static.config import ConfigError
from tfguard.static.finding import CheckResult, Finding
from tfguard.static.fingerprints import SourceLines, finding_fingerprint
from tfguard.static.registry import PARSE_ERROR_CODE

#: Bumped when the file layout or the fingerprint changes.
BASELINE_VERSION = 1


class BaselineError(ConfigError):
    """A baseline file that cannot be read or written; the message is one line."""


@dataclass(frozen=True)
class BaselineKey:
    """What identifies a finding in a baseline."""

    path: str
    code: str
    fingerprint: str


@dataclass
class BaselineOutcome:
    """The findings a baseline does not cover, and how the baseline fared."""

    result: CheckResult
    baselined: int = 0
    fixed: int = 0

    def note(self) -> str:
        """Return the one-line report of how many findings were baselined and entries fixed."""
        entries = "entry no longer matches" if self.fixed == 1 else "entries no longer match"
        found = "finding" if self.baselined == 1 else "findings"
        return f"Baseline: {self.baselined} {found} baselined; {self.fixed} baseline {entries} (fixed)."


def _relative_path(path: str, base_dir: str) -> str:
    return os.path.relpath(os.path.abspath(path), base_dir).replace(os.sep, "/")


def finding_keys(findings: Iterable[Finding], base_dir: str) -> List[Tuple[Finding, BaselineKey]]:
    """Pair every finding with its baseline key; paths become relative to ``base_dir``."""
    sources = SourceLines()
    return [(finding, BaselineKey(_relative_path(finding.path, base_dir), finding.code,
                                  finding_fingerprint(finding, sources)))
            for finding in findings]


def _base_dir(baseline_file: str) -> str:
    return os.path.dirname(os.path.abspath(baseline_file))


def write_baseline(baseline_file: str, findings: Sequence[Finding]) -> int:
    """Write the baseline of ``findings`` to ``baseline_file``; return the number of entries written."""
    counts = Counter(key for _, key in finding_keys(findings, _base_dir(baseline_file)))
    entries = [
        {"path": key.path, "code": key.code, "fingerprint": key.fingerprint, "count": count}
        for key, count in sorted(counts.items(), key=lambda item: (item[0].path, item[0].code, item[0].fingerprint))
    ]
    document = {"tool": "tfguard", "version": BASELINE_VERSION, "entries": entries}
    try:
        with open(baseline_file, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(document, indent=2) + "\n")
    except OSError as exc:
        raise BaselineError(f"cannot write baseline {baseline_file}: {exc.strerror or exc}") from None
    return len(entries)


def _entry_key(entry: object) -> Optional[Tuple[BaselineKey, int]]:
    if not isinstance(entry, dict):
        return None
    path, code, print_, count = (entry.get(k) for k in ("path", "code", "fingerprint", "count"))
    if not all(isinstance(v, str) and v for v in (path, code, print_)):
        return None
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        return None
    return BaselineKey(path, code, print_), count


def _shown(path: str) -> str:
    """Return ``path`` relative to the working folder when it lies inside it, as given otherwise."""
    relative = os.path.relpath(os.path.abspath(path))
    return path if relative.startswith(os.pardir) else relative


def load_baseline(baseline_file: str) -> "Counter[BaselineKey]":
    """Read a baseline file; raise BaselineError with a one-line message when it is missing or malformed."""
    shown = _shown(baseline_file)
    try:
        with open(baseline_file, encoding="utf-8") as handle:
            document = json.load(handle)
    except FileNotFoundError:
        raise BaselineError(f"baseline file not found: {shown}") from None
    except OSError as exc:
        raise BaselineError(f"cannot read baseline {shown}: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise BaselineError(f"{shown}: not a tfguard baseline (invalid JSON: {exc})") from None
    if not isinstance(document, dict) or document.get("tool") != "tfguard" or not isinstance(
            document.get("entries"), list):
        raise BaselineError(f"{shown}: not a tfguard baseline (write one with --write-baseline)")
    if document.get("version") != BASELINE_VERSION:
        raise BaselineError(f"{shown}: baseline version {document.get('version')!r} is not supported "
                            f"(expected {BASELINE_VERSION}; write it again with --write-baseline)")
    counts: "Counter[BaselineKey]" = Counter()
    for number, entry in enumerate(document["entries"], start=1):
        parsed = _entry_key(entry)
        if parsed is None:
            raise BaselineError(f"{shown}: entry {number} is malformed "
                                "(needs path, code, fingerprint and a positive count)")
        counts[parsed[0]] += parsed[1]
    return counts


def apply_baseline(result: CheckResult, baseline: "Counter[BaselineKey]", baseline_file: str,
                   checked_files: Iterable[str]) -> BaselineOutcome:
    """Drop the findings the baseline covers.

    ``fixed`` counts the entries left unmatched whose file was checked in this
    run or no longer exists: entries for files outside the run, or of a file that
    does not parse now (TFG000) or could not be read, are not judged.
    """
    base_dir = _base_dir(baseline_file)
    remaining = Counter(baseline)
    new: List[Finding] = []
    baselined = 0
    for finding, key in finding_keys(sorted(result.findings, key=Finding.sort_key), base_dir):
        if remaining[key] > 0:
            remaining[key] -= 1
            baselined += 1
        else:
            new.append(finding)
    checked = {_relative_path(path, base_dir) for path in checked_files}
    # A file that does not parse now was not checked for its old findings: its entries are not fixed.
    checked -= {_relative_path(f.path, base_dir) for f in result.findings if f.code == PARSE_ERROR_CODE}
    checked -= {_relative_path(error.path, base_dir) for error in result.errors}
    fixed = sum(n for key, n in remaining.items()
                if n > 0 and (key.path in checked or not os.path.exists(os.path.join(base_dir, key.path))))
    return BaselineOutcome(replace(result, findings=new), baselined, fixed)
