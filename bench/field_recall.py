"""Score tfguard's recall and false alarms on public TF1 repositories labelled by hand.

The labels (``bench/field_labels/*.csv``, one file per corpus wave) were written by reading each
repository's code **before** tfguard ran on it: every session loop, per-call function (builds and
runs a graph per call), device site and ``tf.data`` pipeline site, with the problem code a reader
expects there (``TFG203``; alternatives as ``TFG102|TFG109``) or ``healthy``.  Columns:

    repo, commit, path, line, end, category, verdict, tolerated, note

``line``..``end`` is the site's span.  A problem site is *found* when tfguard reports one of its
codes with the finding's line, or a line of its chain in the same file, inside the span.  A healthy
site has a *false alarm* when a finding's own line lies in its span and its code neither a problem site
overlapping it expects nor its ``tolerated`` column allows (codes whose finding there would be
right as well, e.g. TFG110's advice on a one-time copy).

This script fetches nothing.  Extract the labelled repositories first, one folder per repository
named ``owner+name`` under one root, each at the labelled commit.  With the session's ``fetch``
tool (``github:owner/name``), which gives a bare git directory, extract the Python files only
(snapshots may lack large blobs, so ``git archive`` can fail)::

    g=/work/.mirror/owner+name/repo; [ -d $g/.git ] && g=$g/.git
    mkdir -p /tmp/field/owner+name && git --git-dir=$g ls-tree -r --name-only COMMIT \\
      | grep '\\.py$' | while read p; do mkdir -p "/tmp/field/owner+name/$(dirname "$p")"; \\
        git --git-dir=$g show "COMMIT:$p" > "/tmp/field/owner+name/$p"; done

Then::

    python bench/field_recall.py /tmp/field                 # every wave
    python bench/field_recall.py /tmp/field --labels bench/field_labels/wave1.csv
    python bench/field_recall.py /tmp/field --json out.json  # the numbers, for comparing runs

The repositories are never committed; only the labels are.
"""

from __future__ import annotations

import argparse
import csv
import glob
import json
import os
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Set, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
LABELS = os.path.join(HERE, "field_labels")


@dataclass
class Site:
    """One labelled site: a span of one file and what a reader expects there."""

    repo: str
    path: str
    line: int
    end: int
    category: str
    expected: Tuple[str, ...]  # empty for a healthy site
    tolerated: Tuple[str, ...]
    note: str
    hits: List[dict] = field(default_factory=list)

    @property
    def folder(self) -> str:
        """The extracted repository's folder name under the root."""
        return self.repo.replace("/", "+")

    def covers(self, line: int) -> bool:
        """Whether ``line`` lies in this site's span."""
        return self.line <= line <= self.end


def read_labels(paths: Iterable[str]) -> List[Site]:
    """Read every label file; the note is the last column and may hold anything."""
    sites: List[Site] = []
    for path in paths:
        with open(path, newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                verdict = row["verdict"].strip()
                sites.append(Site(
                    repo=row["repo"].strip(), path=row["path"].strip(), line=int(row["line"]),
                    end=int(row["end"]), category=row["category"].strip(),
                    expected=() if verdict == "healthy" else tuple(verdict.split("|")),
                    tolerated=tuple(c for c in (row.get("tolerated") or "").split("|") if c),
                    note=(row.get("note") or "").strip()))
    return sites


def run_tfguard(root: str, folders: Iterable[str]) -> Dict[Tuple[str, str], List[dict]]:
    """Check each repository folder once; findings by (folder, path inside it)."""
    by_file: Dict[Tuple[str, str], List[dict]] = defaultdict(list)
    for folder in sorted(set(folders)):
        target = os.path.join(root, folder)
        if not os.path.isdir(target):
            sys.exit(f"field_recall: {target} is missing: extract the repository first (see --help)")
        done = subprocess.run(
            [sys.executable, "-m", "tfguard", "check", "--isolated", "--no-cache", "--exit-zero",
             "--output-format", "json", "."], cwd=target, capture_output=True, text=True)
        try:
            report = json.loads(done.stdout)
        except ValueError:
            sys.exit(f"field_recall: tfguard gave no JSON on {folder}: {done.stderr.strip()[:300]}")
        for finding in report["findings"]:
            by_file[(folder, os.path.normpath(finding["path"]))].append(finding)
    return by_file


def _lines_in(finding: dict, path: str) -> Set[int]:
    lines = {finding["line"]}
    lines.update(step["line"] for step in finding.get("chain") or ()
                 if os.path.normpath(step["path"]) == path)
    return lines


def score(sites: List[Site], by_file: Dict[Tuple[str, str], List[dict]]) -> dict:
    """Recall over problem sites, false alarms over healthy sites, and a per-rule table."""
    problems = [s for s in sites if s.expected]
    healthy = [s for s in sites if not s.expected]
    for site in sites:
        path = os.path.normpath(site.path)
        for finding in by_file.get((site.folder, path), ()):
            # a problem is found where the finding or its chain lands; a healthy site is blamed only for
            # findings reported on it (a chain passing through a healthy helper says nothing against it)
            lines = _lines_in(finding, path) if site.expected else {finding["line"]}
            if any(site.covers(line) for line in lines):
                site.hits.append(finding)
    found = [s for s in problems if any(f["code"] in s.expected for f in s.hits)]
    alarms = []
    for site in healthy:
        allowed = set(site.tolerated)
        for other in problems:
            if other.folder == site.folder and other.path == site.path and \
                    other.line <= site.end and site.line <= other.end:
                allowed.update(other.expected)
        wrong = sorted({f["code"] for f in site.hits if f["code"] not in allowed})
        if wrong:
            alarms.append((site, wrong))
    per_rule: Dict[str, List[int]] = defaultdict(lambda: [0, 0])
    for site in problems:
        key = "|".join(site.expected)
        per_rule[key][1] += 1
        per_rule[key][0] += site in found
    return {
        "problems": len(problems), "found": len(found),
        "recall": round(len(found) / len(problems), 3) if problems else None,
        "healthy": len(healthy), "false_alarms": len(alarms),
        "per_rule": {code: {"found": f, "real": n} for code, (f, n) in sorted(per_rule.items())},
        "misses": [f"{s.repo} {s.path}:{s.line}-{s.end} {'|'.join(s.expected)}: {s.note}"
                   for s in problems if s not in found],
        "alarms": [f"{s.repo} {s.path}:{s.line}-{s.end} {','.join(codes)}: {s.note}" for s, codes in alarms],
    }


def main(argv: List[str] = None) -> int:
    """Parse the arguments, run tfguard on each labelled repository and print the scores."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", help="folder holding one extracted folder per repository (owner+name)")
    parser.add_argument("--labels", action="append", help="label CSV (default: bench/field_labels/*.csv)")
    parser.add_argument("--json", help="also write the numbers to this file")
    args = parser.parse_args(argv)
    paths = args.labels or sorted(glob.glob(os.path.join(LABELS, "*.csv")))
    sites = read_labels(paths)
    result = score(sites, run_tfguard(args.root, (s.folder for s in sites)))
    print(f"recall {result['recall']} ({result['found']} of {result['problems']} real problems found)")
    rate = result["false_alarms"] / result["healthy"] if result["healthy"] else 0.0
    print(f"false alarms {result['false_alarms']} on {result['healthy']} healthy sites "
          f"({rate * 50:.2f} per 50)")
    print("per rule (found/real):")
    for code, row in result["per_rule"].items():
        print(f"  {code:<14} {row['found']}/{row['real']}")
    for title in ("misses", "alarms"):
        print(f"{title}:")
        for line in result[title] or ["  (none)"]:
            print(f"  {line}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
