"""The ``tfguard check`` options for adopting tfguard: ``--statistics``, ``--baseline``, ``--write-baseline``.

Kept apart from :mod:`tfguard.cli` so that the main command stays short: the
CLI adds these options with :func:`add_options` and calls the steps below.
"""

from __future__ import annotations

import argparse
import sys
from typing import Counter, Optional, Sequence, Tuple

from tfguard.static.baseline import BaselineKey, apply_baseline, load_baseline, write_baseline
from tfguard.static.config import Settings
from tfguard.static.finding import CheckResult
from tfguard.static.reporters import statistics


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


def render_statistics(args: argparse.Namespace, result: CheckResult) -> str:
    """Return the ``--statistics`` report: JSON with ``--format json``, else a plain table."""
    return statistics.render_json(result) if args.format == "json" else statistics.render(result)
