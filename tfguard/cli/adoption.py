"""The ``tfguard check`` options for adopting tfguard: ``--statistics``, ``--baseline``, ``--write-baseline``,
``--add-noqa``.

Kept apart from :mod:`tfguard.cli` so that the main command stays short: the
CLI adds these options with :func:`add_options` and calls the steps below.
"""

from __future__ import annotations

import argparse
import sys
from typing import Counter, Dict, List, Optional, Sequence, Tuple

from tfguard.cli.errors import EXIT_CLEAN, EXIT_ERROR, PROG
from tfguard.static.baseline import BaselineKey, apply_baseline, load_baseline, write_baseline
from tfguard.static.config import Settings
from tfguard.static.finding import CheckResult, Finding
from tfguard.static.formats import statistics


def add_options(check: argparse.ArgumentParser) -> None:
    """Add the statistics and baseline options to the ``check`` subcommand."""
    group = check.add_argument_group("statistics and baseline")
    group.add_argument("--statistics", action="store_true",
                       help="print the number of findings per code instead of the findings")
    files = group.add_mutually_exclusive_group()
    files.add_argument("--baseline", metavar="FILE",
                       help="report only findings not recorded in FILE (default: the configured baseline)")
    files.add_argument("--write-baseline", metavar="FILE",
                       help="record every current finding in FILE and exit 0 (the configured baseline is ignored)")
    group.add_argument("--add-noqa", action="store_true",
                       help="add `# noqa: CODE` to the line of every finding (merged into a noqa comment already "
                            "there), so that the next check passes; exit 0")


def baseline_file(args: argparse.Namespace, settings: Settings) -> Optional[str]:
    """Return the baseline in effect: ``--baseline``, else the configured one; none when writing one."""
    if args.write_baseline:
        return None
    return args.baseline or settings.baseline or None


def read_baseline(args: argparse.Namespace, settings: Settings) -> Optional[Tuple[str, "Counter[BaselineKey]"]]:
    """Load the baseline in effect before the run, so that a bad file fails at once (BaselineError)."""
    path = baseline_file(args, settings)
    return (path, load_baseline(path)) if path else None


def record_baseline(path: str, result: CheckResult) -> bool:
    """Write the baseline of ``result``; report on stderr; return False when some files could not be checked."""
    entries = write_baseline(path, result.findings)
    for error in sorted(result.errors, key=lambda e: e.path):
        print(f"{error.path}: error: {error.message}", file=sys.stderr)
    findings = f"{len(result.findings)} finding{'' if len(result.findings) == 1 else 's'}"
    print(f"Wrote {entries} baseline entr{'y' if entries == 1 else 'ies'} ({findings}) to {path}.", file=sys.stderr)
    return not result.errors


def filter_baseline(baseline: Optional[Tuple[str, "Counter[BaselineKey]"]], result: CheckResult,
                    files: Sequence[str]) -> Tuple[CheckResult, str]:
    """Drop the baselined findings; return the new result and the note for stderr (empty without a baseline).

    ``files`` are the files the run checked (a baselined finding of one of them that is gone counts as fixed).
    """
    if baseline is None:
        return result, ""
    path, entries = baseline
    outcome = apply_baseline(result, entries, path, files)
    return outcome.result, outcome.note()


def add_noqa_comments(result: CheckResult) -> int:
    """``--add-noqa``: write the comments, say how many on stderr (and each line that could take none); return the
    exit status (2 when some file could not be checked)."""
    from tfguard.static.add_noqa import add_noqa
    from tfguard.static.registry import PARSE_ERROR_CODE

    by_path: Dict[str, List[Finding]] = {}
    for finding in result.findings:
        if finding.code == PARSE_ERROR_CODE:  # the file does not parse: a comment would not silence that
            print(f"{PROG}: warning: {finding.path}:{finding.line}: no noqa added: {finding.message}",
                  file=sys.stderr)
            continue
        by_path.setdefault(finding.path, []).append(finding)
    added = 0
    for path in sorted(by_path):
        edit = add_noqa(path, by_path[path])
        added += edit.added
        for line, why in edit.left:
            print(f"{PROG}: warning: {path}:{line}: no noqa added: {why}", file=sys.stderr)
        if edit.skipped:
            print(f"{PROG}: warning: {path}: no noqa added: {edit.skipped}", file=sys.stderr)
    for error in sorted(result.errors, key=lambda e: e.path):
        print(f"{error.path}: error: {error.message}", file=sys.stderr)
    print(f"Added {added} noqa directive{'' if added == 1 else 's'}.", file=sys.stderr)
    return EXIT_ERROR if result.errors else EXIT_CLEAN


def render_statistics(args: argparse.Namespace, result: CheckResult) -> str:
    """Return the ``--statistics`` report: JSON with ``--format json``, else a plain table."""
    unsafe = bool(getattr(args, "unsafe_fixes", False))
    return statistics.render_json(result, unsafe) if args.format == "json" else statistics.render(result, unsafe)
