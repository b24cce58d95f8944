"""``tfguard check``: lint files and folders and report the findings."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from typing import Any, List, Optional, Sequence

from tfguard.cli import adoption, callers, fixing
from tfguard.cli.errors import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, PROG, UsageError
from tfguard.cli.options import comma_list, flatten, jobs
from tfguard.printable import printable
from tfguard.static.cache import CACHE_DIR_NAME, default_cache_dir
from tfguard.static.config import Settings, docs_url, normalize_codes, override, validate_selectors
from tfguard.static.configured import ConfiguredRun, check_configured, exclusions
from tfguard.static.discovery import is_excluded_with_parents
from tfguard.static.finding import CheckResult, FileError
from tfguard.static.formats import REPORTERS, RenderOptions
from tfguard.static.formats.text import fixable_summary, summary
from tfguard.static.settings_resolver import SettingsResolver, describe
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
    files.add_argument("--callers", action="store_true",
                       help="check the whole project (the folder the command runs in) and report, besides the "
                            "findings of the named files, those of other files whose chain of calls goes through "
                            "a named file (the pre-commit hook: a staged change that makes a caller's loop build "
                            "ops is reported at the caller)")
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
    output.add_argument("-o", "--output-file", metavar="FILE", help="write the report to FILE instead of stdout")
    output.add_argument("--docs-url", metavar="URL",
                        help="base address of a docs site (mkdocs build) the SARIF report links each rule to "
                             "(default: docs-url in [tool.tfguard], else the file:// address of the rule's page "
                             "that ships with tfguard)")
    output.add_argument("-e", "--exit-zero", action="store_true",
                        help="exit 0 even when there are findings (2 still signals errors)")
    output.add_argument("--exit-non-zero-on-fix", action="store_true",
                        help="with --fix or --fix-only, exit 1 when files were changed, even when no finding is left")
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
                        help="read the settings of every file from FILE instead of each file's closest "
                             "configuration file (pyproject.toml [tool.tfguard], tfguard.toml or .tfguard.toml)")
    config.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    output.add_argument("-v", "--verbose", action="store_true",
                        help="also say on stderr which files were checked, with which configuration, and how long "
                             "it took")
    output.add_argument("-w", "--watch", action="store_true",
                        help="check again whenever a checked file or a configuration file changes (Ctrl-C stops)")
    check.add_argument("--show-settings", action="store_true",
                       help="print which configuration file configures each PATH and the settings it gets "
                            "(the options applied), then exit")


def explain_runtime_code(selector: str) -> Optional[str]:
    """Say where a runtime diagnostic's code is chosen when one is given to the checker (``--select TFG901``)."""
    from tfguard.runtime.judge import all_diagnostics  # only on this error: importing the runtime costs time

    runtime_codes = all_diagnostics()
    codes = [code for code in runtime_codes if code.startswith(selector)]
    if not codes:
        return None
    names = [runtime_codes[code].fail_on for code in codes if runtime_codes[code].fail_on]
    choose = (" (--fail-on %s)" % ",".join(names)) if names else ""
    what = f"{selector} is a runtime diagnostic" if codes == [selector] else \
        f"{selector} names runtime diagnostics ({', '.join(codes)})"
    it = "it" if codes == [selector] else "them"
    return (f"{what}, not a rule of the checker: `tfguard run` reports {it}, and "
            f"`tfguard run --fail-on NAMES` chooses which fail the run{choose}")


def _selectors(groups: Optional[Sequence[Sequence[str]]], option: str) -> Optional[List[str]]:
    """Return an option's codes, upper-cased (codes are case-insensitive) and checked; None when not given."""
    given = flatten(groups)
    if given is None:
        return None
    validate_selectors(given, option, explain_runtime_code)
    return list(normalize_codes(given))


def resolver_for(args: argparse.Namespace) -> SettingsResolver:
    """Return the resolver of each file's settings: its closest configuration file, the options over it."""
    select = _selectors(args.select, "--select")
    ignore = _selectors(args.ignore, "--ignore")
    extend_select = _selectors(args.extend_select, "--extend-select") or []
    if select is not None and not select:
        raise UsageError("--select names no rule; leave it out for the default rules")
    exclude, extend_exclude = flatten(args.exclude), flatten(args.extend_exclude) or []
    python2 = None if args.py2 is None else args.py2 == "on"
    docs = None if args.docs_url is None else docs_url(args.docs_url, "--docs-url")

    def adjust(settings: Settings) -> Settings:
        return override(settings, select=select, ignore=ignore, extend_select=extend_select, exclude=exclude,
                        extend_exclude=extend_exclude, python2=python2, respect_gitignore=args.respect_gitignore,
                        docs_url=docs)

    return SettingsResolver(args.config, args.isolated, adjust, explain_runtime_code)


def _common_folder(paths: Sequence[str]) -> str:
    """The folder that holds every path (the baseline comes from its settings, whatever the order)."""
    try:
        return os.path.commonpath([os.path.abspath(path) for path in paths])
    except ValueError:  # different drives
        return os.getcwd()


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
    if args.add_noqa:
        for option, given in (("--fix", args.fix), ("--diff", args.diff), ("--fix-only", args.fix_only),
                              ("--statistics", args.statistics), ("--write-baseline", args.write_baseline),
                              ("--output-file", args.output_file), ("- (stdin)", "-" in args.paths)):
            if given:
                raise UsageError(f"--add-noqa cannot be combined with {option}: it edits the checked files "
                                 "and prints no report")
    if args.callers and (not args.paths or "-" in args.paths):
        raise UsageError("--callers needs the files to check by name (it reports what they cause in the project)")
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


def render_output(args: argparse.Namespace, result: CheckResult) -> str:
    """Return the output in the chosen format (the statistics with ``--statistics``)."""
    if args.statistics:
        return adoption.render_statistics(args, result)
    options = RenderOptions(color=use_color(args.color, None if args.output_file else sys.stdout),
                            show_fixes=args.show_fixes, docs_url=args.docs_url or "")
    output = REPORTERS[args.format](result, options)
    # text and full escape names and messages from the checked files themselves (before colour); the other
    # formats read by people (concise, grouped, pylint, table, github, junit) carry no colour and are escaped
    # whole here; JSON formats escape control characters themselves.
    return output if args.format in ("text", "full", "json", "gitlab", "sarif") else printable(output)


def _run_stdin(args: argparse.Namespace) -> int:
    """Check the source on stdin (``tfguard check -``, ``--stdin-filename`` naming it as editors do).

    With ``--fix`` the fixed source goes to stdout and what is left to stderr, as ruff does; ``--diff`` prints
    the diff of what ``--fix`` would change.
    """
    if args.paths != ["-"]:
        raise UsageError("- (read stdin) cannot be combined with other paths")
    if args.write_baseline:
        raise UsageError("--write-baseline needs files, not stdin")
    if args.output_file and fixing.wanted(args):
        raise UsageError("--fix on stdin prints the fixed source on stdout; it cannot be combined with --output-file")
    path = args.stdin_filename or "-"
    resolver = resolver_for(args)
    settings = resolver.settings_for(path if path != "-" else ".")
    args.docs_url = settings.docs_url
    data = sys.stdin.buffer.read()
    if args.force_exclude and path != "-" and is_excluded_with_parents(path, exclusions(settings),
                                                                        settings.root or None):
        if fixing.wanted(args) and not args.diff:
            _write_stdout_bytes(data)  # an excluded file passes through unchanged, as ruff does
        return EXIT_CLEAN
    from tfguard.static.engine import check_stdin

    result = fixing.allowed_fixes(check_stdin(data, path, settings), lambda _: settings)
    if not fixing.wanted(args):
        return _report_stdin(args, result, sys.stdout)
    fixed = fixing.fix_stdin(args, data, path, settings)
    if args.diff:
        sys.stdout.write(fixed.diff(path if path != "-" else "stdin") if fixed.changed else "")
        sys.stdout.flush()
        return EXIT_ERROR if result.errors else EXIT_FINDINGS if fixed.changed else EXIT_CLEAN
    _write_stdout_bytes(fixed.encoded if fixed.changed else data)
    if fixed.skipped:
        print(f"{PROG}: warning: {path}: not fixed: {fixed.skipped}", file=sys.stderr)
    if fixed.changed:
        result = fixing.allowed_fixes(check_stdin(fixed.encoded, path, settings), lambda _: settings)
    changed_and_asked = bool(args.exit_non_zero_on_fix and fixed.changed)
    if args.fix_only:
        return EXIT_ERROR if result.errors else EXIT_FINDINGS if changed_and_asked else EXIT_CLEAN
    status = _report_stdin(args, result, sys.stderr)
    return EXIT_FINDINGS if status == EXIT_CLEAN and changed_and_asked else status


def _write_stdout_bytes(data: bytes) -> None:
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def _report_stdin(args: argparse.Namespace, result: CheckResult, stream: Any) -> int:
    stream.write(render_output(args, result))
    stream.flush()
    if not args.quiet:
        print(summary(result), file=sys.stderr)
    if result.errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if result.findings and not args.exit_zero else EXIT_CLEAN


def _show_settings(args: argparse.Namespace) -> int:
    resolver = resolver_for(args)
    paths = [args.stdin_filename if path == "-" and args.stdin_filename else path for path in args.paths or ["."]]
    sys.stdout.write("\n".join(describe(path, resolver) for path in paths))
    return EXIT_CLEAN


def run_command(args: argparse.Namespace) -> int:
    """Run ``tfguard check``; return the exit status."""
    _reject_combinations(args)
    if args.show_settings:
        return _show_settings(args)
    if "-" in args.paths:
        if args.watch:
            raise UsageError("--watch needs files to watch, not - (stdin)")
        return _run_stdin(args)
    if args.stdin_filename:
        raise UsageError("--stdin-filename needs - (read stdin) as the path")
    if args.watch:
        for option, given in (("--add-noqa", args.add_noqa), ("--write-baseline", args.write_baseline),
                              ("--diff", args.diff)):
            if given:
                raise UsageError(f"--watch cannot be combined with {option}: it is done once")
        from tfguard.cli.watching import watch

        return watch(lambda: _check_once(args), args.paths or ["."])
    return _check_once(args)


def _verbose(args: argparse.Namespace, resolver: SettingsResolver, checked: ConfiguredRun, seconds: float,
             cache_dir: Optional[str]) -> None:
    """``-v``: the files checked, the configuration of each, the time and the cache, on stderr."""
    if not args.verbose:
        return
    for path in checked.files:
        source = resolver.source_for(path, is_file=True)
        print(f"{PROG}: verbose: checked {path} (settings: {source or 'the defaults'})", file=sys.stderr)
    print(f"{PROG}: verbose: {len(checked.files)} file{'' if len(checked.files) == 1 else 's'} in {seconds:.2f} s "
          f"(jobs: {args.jobs or 'auto'}; cache: {cache_dir or 'off'})", file=sys.stderr)


def _check_once(args: argparse.Namespace) -> int:
    """Check the paths of the command line once and report; return the exit status."""
    args = argparse.Namespace(**vars(args))  # a copy: the steps below set fields, and --watch calls this again
    paths = args.paths or ["."]
    # A broken symbolic link exists: checking it reports why it cannot be read. A missing path is reported
    # as a file error and the others are checked, as ruff does; when none exists there is nothing to check.
    missing = [path for path in paths if not os.path.lexists(path)]
    paths = [path for path in paths if path not in missing]
    if not paths:
        raise UsageError(f"path not found: {missing[0]}")
    resolver = resolver_for(args)
    run_settings = resolver.settings_for(_common_folder(paths))  # what is set once per run: baseline, docs-url
    args.docs_url = run_settings.docs_url  # what render_output links SARIF rules to: the flag, else the file's key
    baseline = adoption.read_baseline(args, run_settings)
    cache_dir = None if args.no_cache else (args.cache_dir or default_cache_dir(paths[0]))

    def check() -> ConfiguredRun:
        if args.callers:  # the whole project, then what the named files are in or cause
            run = check_configured(callers.project_paths(paths), resolver, force_exclude=args.force_exclude,
                                   jobs=args.jobs, cache_dir=cache_dir)
            return dataclasses.replace(run, result=callers.through_named(run.result, paths))
        return check_configured(paths, resolver, force_exclude=args.force_exclude, jobs=args.jobs,
                                cache_dir=cache_dir)

    started = time.monotonic()
    checked = check()
    _verbose(args, resolver, checked, time.monotonic() - started, cache_dir)
    result = with_missing(checked.result, missing)
    if args.write_baseline:
        return EXIT_CLEAN if adoption.record_baseline(args.write_baseline, result) else EXIT_ERROR
    result = fixing.allowed_fixes(result, resolver.settings_for)
    fix_run = None
    if fixing.wanted(args):
        fix_run = fixing.run_fixes(args, result, resolver.settings_for)
        if args.diff:
            sys.stdout.write("".join(fix_run.diffs))
            fixing.print_summary(args, fix_run)
            return EXIT_ERROR if result.errors else EXIT_FINDINGS if fix_run.diffs else EXIT_CLEAN
        if fix_run.files_changed:
            checked = check()
            result = fixing.allowed_fixes(with_missing(checked.result, missing), resolver.settings_for)
        if args.fix_only:
            fixing.print_summary(args, fix_run)
            return EXIT_ERROR if result.errors else EXIT_FINDINGS if _changed_and_asked(args, fix_run) else EXIT_CLEAN
    result, baseline_note = adoption.filter_baseline(baseline, result, checked.files)
    if args.add_noqa:
        return adoption.add_noqa_comments(result)
    output = render_output(args, result)
    if args.output_file:
        try:
            with open(args.output_file, "w", encoding="utf-8", errors="backslashreplace") as handle:
                handle.write(output)
        except OSError as exc:
            raise UsageError(f"cannot write {args.output_file}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(output)
        sys.stdout.flush()
    for skipped in result.skipped:
        print(f"{PROG}: warning: skipped {skipped.path}: {skipped.message}", file=sys.stderr)
    if checked.cache_warning:
        print(f"{PROG}: warning: {checked.cache_warning}", file=sys.stderr)
    if not result.files_checked and not result.errors:
        print(f"{PROG}: warning: no Python files found under {', '.join(paths)}", file=sys.stderr)
    if not args.quiet:
        print(summary(result), file=sys.stderr)
    if fix_run is not None:
        fixing.print_summary(args, fix_run)
    elif fixable_summary(result) and not args.quiet:
        print(fixable_summary(result), file=sys.stderr)
    if baseline_note and not args.quiet:
        print(baseline_note, file=sys.stderr)
    if result.errors:
        return EXIT_ERROR
    if result.findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_FINDINGS if _changed_and_asked(args, fix_run) else EXIT_CLEAN


def _changed_and_asked(args: argparse.Namespace, fix_run: Optional[fixing.FixRun]) -> bool:
    """``--exit-non-zero-on-fix`` and ``--fix`` changed files: exit 1 (as ruff: CI sees that the tree changed)."""
    return bool(args.exit_non_zero_on_fix and fix_run is not None and fix_run.files_changed)
