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
from tfguard.static.catalog import DEFAULT_DOCS_URL
from tfguard.static.config import Settings, docs_url, load_settings, override, validate_selectors
from tfguard.static.engine import CheckResult, FileError, check_paths
from tfguard.static.reporters import REPORTERS, sarif, text
from tfguard.static.reporters.text import fixable_summary, summary
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
    files.add_argument("--stdin-filename", metavar="PATH",
                       help="with - as the path: the file name of the source read from stdin (for "
                            "configuration, per-file-ignores and the report), as editors pass it")
    files.add_argument("--respect-gitignore", dest="respect_gitignore", action="store_true", default=None,
                       help="skip what .gitignore files ignore while walking folders (the default)")
    files.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false",
                       help="check files that .gitignore files ignore too")
    output = check.add_argument_group("output")
    output.add_argument("--output-format", "--format", dest="format", type=str.lower, default="text",
                        choices=list(REPORTERS), metavar="FORMAT",
                        help="report format: %s (default: text; full: text with the source line under each "
                             "finding; --format is an alias)" % ", ".join(REPORTERS))
    output.add_argument("--show-source", action="store_true", help="show the source line under each finding "
                        "(the same as --output-format full)")
    output.add_argument("-q", "--quiet", action="store_true",
                        help="print the findings and nothing else (no summary lines)")
    output.add_argument("--color", type=str.lower, choices=("auto", "always", "never"), default="auto",
                        help="colour the text report: auto (default: on a terminal, unless NO_COLOR is set), "
                             "always, never")
    output.add_argument("--output-file", metavar="FILE", help="write the report to FILE instead of stdout")
    output.add_argument("--docs-url", metavar="URL",
                        help="base address of the docs site the SARIF report links each rule to (default: "
                             f"{DEFAULT_DOCS_URL}, or docs-url in [tool.tfguard])")
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
    settings = override(
        settings,
        select=select,
        ignore=ignore,
        extend_select=extend_select,
        exclude=flatten(args.exclude),
        extend_exclude=flatten(args.extend_exclude) or [],
        python2=None if args.py2 is None else args.py2 == "on",
        respect_gitignore=args.respect_gitignore,
        docs_url=None if args.docs_url is None else docs_url(args.docs_url, "--docs-url"),
    )
    args.docs_url = settings.docs_url  # what render_report links SARIF rules to: the flag, else the file's key
    return settings


def with_missing(result: CheckResult, missing: Sequence[str]) -> CheckResult:
    """Add a file error for each path of the command line that does not exist."""
    result.errors.extend(FileError(path, "cannot read: No such file or directory") for path in missing)
    result.errors.sort(key=lambda error: error.path)
    return result


def _reject_combinations(args: argparse.Namespace) -> None:
    """Refuse option combinations one of which would be silently ignored."""
    if args.show_source:
        if args.format not in ("text", "full"):
            raise UsageError(f"--show-source cannot be combined with --output-format {args.format}")
        args.format = "full"
    for option, given in (("--diff", args.diff), ("--fix-only", args.fix_only), ("--write-baseline",
                                                                                   args.write_baseline)):
        if given and args.statistics:
            raise UsageError(f"--statistics cannot be combined with {option}: it prints no findings")
    if args.statistics and args.format not in ("text", "json"):
        raise UsageError(f"--statistics prints text or json, not --output-format {args.format}")
    if args.write_baseline and (args.fix or args.diff or args.fix_only):
        raise UsageError("--write-baseline cannot be combined with --fix, --diff or --fix-only: "
                         "record the baseline first, then fix")
    if args.diff and args.output_file:
        raise UsageError("--diff prints the diff on stdout; it cannot be combined with --output-file")


def use_color(choice: str, stream: Any) -> bool:
    """Return whether to colour the report: ``always``/``never``, or on a terminal (``auto``).

    ``auto`` honours ``NO_COLOR`` (no colour) and ``FORCE_COLOR`` (colour), as most tools do.
    """
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def render_report(args: argparse.Namespace, result: CheckResult) -> str:
    """Return the report in the chosen format (the statistics with ``--statistics``)."""
    if args.statistics:
        return adoption.render_statistics(args, result)
    if args.format in ("text", "full"):
        color = use_color(args.color, None if args.output_file else sys.stdout)
        return text.render(result, show_source=args.format == "full", color=color,
                           show_fixes=args.show_fixes)
    if args.format == "sarif":
        return sarif.render(result, docs_url=args.docs_url or "")
    return REPORTERS[args.format](result)


def _check_stdin(args: argparse.Namespace) -> CheckResult:
    """Check the source on stdin (``tfguard check --stdin-filename path.py -``)."""
    if args.paths != ["-"]:
        raise UsageError("- (read stdin) cannot be combined with other paths")
    if fixing.wanted(args) or args.write_baseline:
        raise UsageError("--fix, --diff, --fix-only and --write-baseline need files, not stdin")
    path = args.stdin_filename or "-"
    settings = _settings_for(args, [path if path != "-" else "."])
    data = sys.stdin.buffer.read()
    if args.force_exclude and path != "-":
        from tfguard.static.discovery import DEFAULT_EXCLUDE, is_excluded_with_parents

        exclude = tuple(settings.exclude or DEFAULT_EXCLUDE) + tuple(settings.extend_exclude)
        if is_excluded_with_parents(path, exclude, settings.root or None):
            return CheckResult()
    from tfguard.static.engine import check_stdin

    return fixing.allowed_fixes(check_stdin(data, path, settings), settings)


def _report_stdin(args: argparse.Namespace, result: CheckResult) -> int:
    sys.stdout.write(render_report(args, result))
    sys.stdout.flush()
    if not args.quiet:
        print(summary(result), file=sys.stderr)
    if result.errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if result.findings and not args.exit_zero else EXIT_CLEAN


def run_command(args: argparse.Namespace) -> int:
    """Run ``tfguard check``; return the exit status."""
    _reject_combinations(args)
    if "-" in args.paths:
        return _report_stdin(args, _check_stdin(args))
    if args.stdin_filename:
        raise UsageError("--stdin-filename needs - (read stdin) as the path")
    paths = args.paths or ["."]
    # A broken symbolic link exists: checking it reports why it cannot be read. A missing path is reported
    # as a file error and the others are checked, as ruff does; when none exists there is nothing to check.
    missing = [path for path in paths if not os.path.lexists(path)]
    paths = [path for path in paths if path not in missing]
    if not paths:
        raise UsageError(f"path not found: {missing[0]}")
    settings = _settings_for(args, paths)
    baseline = adoption.read_baseline(args, settings)
    cache = None
    if not args.no_cache:
        cache = ResultCache(args.cache_dir or default_cache_dir(paths[0]), settings)
    result = with_missing(check_paths(paths, settings, force_exclude=args.force_exclude, jobs=args.jobs,
                                      cache=cache), missing)
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
            result = fixing.allowed_fixes(with_missing(
                check_paths(paths, settings, force_exclude=args.force_exclude, jobs=args.jobs, cache=cache),
                missing), settings)
        if args.fix_only:
            fixing.report(args, fix_run)
            return EXIT_ERROR if result.errors else EXIT_CLEAN
    result, baseline_note = adoption.filter_baseline(baseline, result, paths, settings, args.force_exclude)
    report = render_report(args, result)
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
    if not result.files_checked and not result.errors:
        print(f"{PROG}: warning: no Python files found under {', '.join(paths)}", file=sys.stderr)
    if not args.quiet:
        print(summary(result), file=sys.stderr)
    if fix_run is not None:
        fixing.report(args, fix_run)
    elif fixable_summary(result) and not args.quiet:
        print(fixable_summary(result), file=sys.stderr)
    if baseline_note and not args.quiet:
        print(baseline_note, file=sys.stderr)
    if result.errors:
        return EXIT_ERROR
    if result.findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN
