"""``tfguard check``: lint files and folders and report the findings."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Sequence

from tfguard.cli import adoption, fixing
from tfguard.cli.errors import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, PROG, UsageError
from tfguard.cli.options import comma_list, flatten, jobs
from tfguard.static.cache import CACHE_DIR_NAME, ResultCache, default_cache_dir
from tfguard.static.config import Settings, load_settings, override, validate_selectors
from tfguard.static.engine import check_paths
from tfguard.static.reporters import REPORTERS
from tfguard.static.reporters.text import fixable_summary, summary
from tfguard.static.reporters.text import render as render_text
from tfguard.static.workers import MIN_BYTES_PER_WORKER


def add_parser(commands: Any) -> None:
    """Register ``tfguard check`` on the CLI's subcommand parsers."""
    check = commands.add_parser("check", help="check Python files and folders (default: .)")
    check.add_argument("paths", nargs="*", metavar="PATH", help="files and folders to check (default: .)")
    selection = check.add_argument_group("rule selection (codes, prefixes such as TFG1, or ALL; comma-separated)")
    selection.add_argument("--select", action="append", type=comma_list, metavar="CODES",
                           help="check only these rules (replaces the configured select)")
    selection.add_argument("--extend-select", action="append", type=comma_list, metavar="CODES",
                           help="check these rules in addition to the selected ones")
    selection.add_argument("--ignore", action="append", type=comma_list, metavar="CODES",
                           help="do not report these rules (replaces the configured ignore)")
    files = check.add_argument_group("file selection (globs, comma-separated)")
    files.add_argument("--exclude", action="append", type=comma_list, metavar="GLOBS",
                       help="folders and files to skip (replaces the default and configured list)")
    files.add_argument("--extend-exclude", action="append", type=comma_list, metavar="GLOBS",
                       help="folders and files to skip in addition to --exclude")
    files.add_argument("--force-exclude", action="store_true",
                       help="apply the exclusions to paths named on the command line too")
    output = check.add_argument_group("output")
    output.add_argument("--format", choices=sorted(REPORTERS, key=list(REPORTERS).index), default="text",
                        help="report format (default: text)")
    output.add_argument("--output-file", metavar="FILE", help="write the report to FILE instead of stdout")
    output.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even when there are findings (2 still signals errors)")
    adoption.add_options(check)
    files.add_argument("--py2", choices=("on", "off"), default=None,
                       help="check files that are not Python 3 as Python 2, converted line for line "
                            "(default: on; off: they get TFG000)")
    fixing.add_options(check)
    speed = check.add_argument_group("speed")
    speed.add_argument("-j", "--jobs", type=jobs, default=None, metavar="N",
                       help="check files in N processes (default: the number of CPUs, but one per "
                            f"{MIN_BYTES_PER_WORKER // 1024} KiB of code at most; 1: no extra process)")
    speed.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
    speed.add_argument("--cache-dir", metavar="DIR",
                       help=f"keep the result cache in DIR (default: {CACHE_DIR_NAME} in the project root)")
    config = check.add_mutually_exclusive_group()
    config.add_argument("--config", metavar="FILE",
                        help="read [tool.tfguard] from FILE instead of the nearest pyproject.toml")
    config.add_argument("--isolated", action="store_true", help="ignore every configuration file")


def _settings_for(args: argparse.Namespace, paths: Sequence[str]) -> Settings:
    select, ignore = flatten(args.select), flatten(args.ignore)
    extend_select = flatten(args.extend_select) or []
    for option, selectors in (("--select", select), ("--ignore", ignore), ("--extend-select", extend_select)):
        validate_selectors(selectors or (), option)
    if select is not None and not select:
        raise UsageError("--select names no rule; leave it out for the default rules")
    if args.isolated:
        settings = Settings(root=os.getcwd())
    else:
        settings = load_settings(args.config, start=paths[0])
    return override(
        settings,
        select=select,
        ignore=ignore,
        extend_select=extend_select,
        exclude=flatten(args.exclude),
        extend_exclude=flatten(args.extend_exclude) or [],
        python2=None if args.py2 is None else args.py2 == "on",
    )


def run_command(args: argparse.Namespace) -> int:
    """Run ``tfguard check``; return the exit status."""
    paths = args.paths or ["."]
    for path in paths:
        if not os.path.lexists(path):  # a broken symbolic link exists: checking it reports why it cannot be read
            raise UsageError(f"path not found: {path}")
    settings = _settings_for(args, paths)
    baseline = adoption.read_baseline(args, settings)
    cache = None
    if not args.no_cache:
        cache = ResultCache(args.cache_dir or default_cache_dir(paths[0]), settings)
    result = check_paths(paths, settings, force_exclude=args.force_exclude, jobs=args.jobs, cache=cache)
    if args.write_baseline:
        return EXIT_CLEAN if adoption.record_baseline(args.write_baseline, result) else EXIT_ERROR
    result = fixing.allowed_fixes(result, settings)
    fix_run = None
    if fixing.wanted(args):
        fix_run = fixing.run_fixes(args, result, settings)
        if args.diff:
            sys.stdout.write("".join(fix_run.diffs))
            fixing.report(args, fix_run)
            return EXIT_ERROR if result.errors else EXIT_FINDINGS if fix_run.diffs else EXIT_CLEAN
        if fix_run.files_changed:
            result = fixing.allowed_fixes(
                check_paths(paths, settings, force_exclude=args.force_exclude, jobs=args.jobs, cache=cache), settings)
        if args.fix_only:
            fixing.report(args, fix_run)
            return EXIT_ERROR if result.errors else EXIT_CLEAN
    result, baseline_note = adoption.filter_baseline(baseline, result, paths, settings, args.force_exclude)
    if args.statistics:
        report = adoption.render_statistics(args, result)
    else:
        report = render_text(result, show_fixes=True) if args.show_fixes and args.format == "text" else \
            REPORTERS[args.format](result)
    if args.output_file:
        try:
            with open(args.output_file, "w", encoding="utf-8", errors="backslashreplace") as handle:
                handle.write(report)
        except OSError as exc:
            raise UsageError(f"cannot write {args.output_file}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(report)
        sys.stdout.flush()
    for skipped in result.skipped:
        print(f"{PROG}: warning: skipped {skipped.path}: {skipped.message}", file=sys.stderr)
    if cache is not None and cache.warning:
        print(f"{PROG}: warning: {cache.warning}", file=sys.stderr)
    print(summary(result), file=sys.stderr)
    if fix_run is not None:
        fixing.report(args, fix_run)
    elif fixable_summary(result):
        print(fixable_summary(result), file=sys.stderr)
    if baseline_note:
        print(baseline_note, file=sys.stderr)
    if result.errors:
        return EXIT_ERROR
    if result.findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN
