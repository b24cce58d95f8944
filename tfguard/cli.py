"""The ``tfguard`` command line: ``check``, ``rules`` and ``rule``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import List, Optional, Sequence

from tfguard import __version__, cli_adoption, cli_demo, cli_report, cli_run
from tfguard.cache import CACHE_DIR_NAME, ResultCache, default_cache_dir
from tfguard.catalog import rule_readme
from tfguard.config import ConfigError, Settings, load_settings, override, validate_selectors
from tfguard.engine import check_paths
from tfguard.registry import PARSE_ERROR_CODE, PARSE_ERROR_NAME, PARSE_ERROR_SUMMARY, all_rules
from tfguard.reporters import REPORTERS
from tfguard.reporters.text import summary
from tfguard.workers import default_jobs

PROG = "tfguard"

#: Exit statuses.
EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130

_PARSE_ERROR_SUMMARY = PARSE_ERROR_SUMMARY


class UsageError(Exception):
    """A bad command line or input; the message is one line, printed after ``tfguard: error:``."""


def _comma_list(value: str) -> List[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _flatten(groups: Optional[Sequence[Sequence[str]]]) -> Optional[List[str]]:
    if groups is None:
        return None
    return [item for group in groups for item in group]


def _jobs(value: str) -> int:
    try:
        jobs = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {jobs}")
    return jobs


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``tfguard`` command."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="Find TensorFlow 1.x graph-building mistakes without running the code."
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    check = commands.add_parser("check", help="check Python files and folders (default: .)")
    check.add_argument("paths", nargs="*", metavar="PATH", help="files and folders to check (default: .)")
    selection = check.add_argument_group("rule selection (codes, prefixes such as TFG1, or ALL; comma-separated)")
    selection.add_argument("--select", action="append", type=_comma_list, metavar="CODES",
                           help="check only these rules (replaces the configured select)")
    selection.add_argument("--extend-select", action="append", type=_comma_list, metavar="CODES",
                           help="check these rules in addition to the selected ones")
    selection.add_argument("--ignore", action="append", type=_comma_list, metavar="CODES",
                           help="do not report these rules (replaces the configured ignore)")
    files = check.add_argument_group("file selection (globs, comma-separated)")
    files.add_argument("--exclude", action="append", type=_comma_list, metavar="GLOBS",
                       help="folders and files to skip (replaces the default and configured list)")
    files.add_argument("--extend-exclude", action="append", type=_comma_list, metavar="GLOBS",
                       help="folders and files to skip in addition to --exclude")
    files.add_argument("--force-exclude", action="store_true",
                       help="apply the exclusions to paths named on the command line too")
    output = check.add_argument_group("output")
    output.add_argument("--format", choices=sorted(REPORTERS, key=list(REPORTERS).index), default="text",
                        help="report format (default: text)")
    output.add_argument("--output-file", metavar="FILE", help="write the report to FILE instead of stdout")
    output.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even when there are findings (2 still signals errors)")
    cli_adoption.add_options(check)
    speed = check.add_argument_group("speed")
    speed.add_argument("-j", "--jobs", type=_jobs, default=None, metavar="N",
                       help="check files in N processes (default: the number of CPUs; 1: no extra process)")
    speed.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
    speed.add_argument("--cache-dir", metavar="DIR",
                       help=f"keep the result cache in DIR (default: {CACHE_DIR_NAME} in the project root)")
    config = check.add_mutually_exclusive_group()
    config.add_argument("--config", metavar="FILE",
                        help="read [tool.tfguard] from FILE instead of the nearest pyproject.toml")
    config.add_argument("--isolated", action="store_true", help="ignore every configuration file")

    rules = commands.add_parser("rules", help="list every rule")
    rules.add_argument("--format", choices=("text", "json", "markdown"), default="text",
                       help="list format (default: text; markdown is the README's rule table)")

    rule = commands.add_parser("rule", help="explain one rule (prints its catalog page)")
    rule.add_argument("code", metavar="CODE", help="rule code such as TFG101, or its name")

    cli_run.add_parser(commands)
    cli_report.add_parser(commands)
    cli_demo.add_parser(commands)
    return parser


def _settings_for(args: argparse.Namespace, paths: Sequence[str]) -> Settings:
    select, ignore = _flatten(args.select), _flatten(args.ignore)
    extend_select = _flatten(args.extend_select) or []
    for option, selectors in (("--select", select), ("--ignore", ignore), ("--extend-select", extend_select)):
        validate_selectors(selectors or (), option)
    if args.isolated:
        settings = Settings(root=os.getcwd())
    else:
        settings = load_settings(args.config, start=paths[0])
    return override(
        settings,
        select=select,
        ignore=ignore,
        extend_select=extend_select,
        exclude=_flatten(args.exclude),
        extend_exclude=_flatten(args.extend_exclude) or [],
    )


def run_check(args: argparse.Namespace) -> int:
    """Run ``tfguard check``; return the exit status."""
    paths = args.paths or ["."]
    for path in paths:
        if not os.path.exists(path):
            raise UsageError(f"path not found: {path}")
    settings = _settings_for(args, paths)
    baseline = cli_adoption.read_baseline(args, settings)
    cache = None
    if not args.no_cache:
        cache = ResultCache(args.cache_dir or default_cache_dir(paths[0]), settings)
    jobs = args.jobs if args.jobs is not None else default_jobs()
    result = check_paths(paths, settings, force_exclude=args.force_exclude, jobs=jobs, cache=cache)
    if args.write_baseline:
        return EXIT_CLEAN if cli_adoption.record_baseline(args.write_baseline, result) else EXIT_ERROR
    result, baseline_note = cli_adoption.filter_baseline(baseline, result, paths, settings, args.force_exclude)
    if args.statistics:
        report = cli_adoption.render_statistics(args, result)
    else:
        report = REPORTERS[args.format](result)
    if args.output_file:
        try:
            with open(args.output_file, "w", encoding="utf-8") as handle:
                handle.write(report)
        except OSError as exc:
            raise UsageError(f"cannot write {args.output_file}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(report)
        sys.stdout.flush()
    if cache is not None and cache.warning:
        print(f"{PROG}: warning: {cache.warning}", file=sys.stderr)
    print(summary(result), file=sys.stderr)
    if baseline_note:
        print(baseline_note, file=sys.stderr)
    if result.errors:
        return EXIT_ERROR
    if result.findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def rule_rows() -> List[dict]:
    """Return one row per rule, the built-in TFG000 first, for ``tfguard rules``."""
    rows = [dict(code=PARSE_ERROR_CODE, name=PARSE_ERROR_NAME, default_enabled=True, severity="error",
                 summary=_PARSE_ERROR_SUMMARY)]
    for code, rule in all_rules().items():
        rows.append(dict(code=code, name=rule.name, default_enabled=bool(rule.default_enabled),
                         severity=rule.severity, summary=rule.summary))
    return rows


def run_rules(args: argparse.Namespace) -> int:
    """Run ``tfguard rules``: a table, or JSON with ``--format json``."""
    rows = rule_rows()
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return EXIT_CLEAN
    if args.format == "markdown":
        print(rules_markdown(rows))
        return EXIT_CLEAN
    from tabulate import tabulate

    table = [[r["code"], r["name"], "on" if r["default_enabled"] else "off", r["severity"], r["summary"]]
             for r in rows]
    print(tabulate(table, headers=["code", "name", "default", "severity", "summary"]))
    return EXIT_CLEAN


def rules_markdown(rows: Sequence[dict]) -> str:
    """Return the rule table of README.md, each code linked to its catalog page."""
    lines = ["| code | name | default | severity | what it flags |", "|---|---|---|---|---|"]
    for row in rows:
        code = row["code"]
        rule = all_rules().get(code)
        link = f"[{code}](rules/{rule.catalog_slug()}/README.md)" if rule is not None else code
        default = "on" if row["default_enabled"] else "off"
        summary_text = row["summary"].replace("|", "\\|")
        lines.append(f"| {link} | {row['name']} | {default} | {row['severity']} | {summary_text} |")
    return "\n".join(lines)


def run_rule(args: argparse.Namespace) -> int:
    """Run ``tfguard rule CODE``: print the rule's catalog README."""
    wanted = args.code.strip()
    by_name = {rule.name: code for code, rule in all_rules().items()}
    code = by_name.get(wanted, wanted.upper())
    if code == PARSE_ERROR_CODE or wanted == PARSE_ERROR_NAME:
        text = rule_readme(PARSE_ERROR_CODE)
        print(text if text is not None else f"# {PARSE_ERROR_CODE} {PARSE_ERROR_NAME}\n\n{_PARSE_ERROR_SUMMARY}")
        return EXIT_CLEAN
    if code not in all_rules():
        raise UsageError(f"unknown rule: {args.code} (see 'tfguard rules')")
    text = rule_readme(code)
    if text is None:
        raise UsageError(f"rule {code} has no catalog page (rules/{all_rules()[code].catalog_slug()}/README.md)")
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return EXIT_CLEAN


_COMMANDS = {"check": run_check, "rules": run_rules, "rule": run_rule, "run": cli_run.run_command,
             "report": cli_report.run_command, "demo": cli_demo.run_command}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``) and return the exit status.

    Bad input ends in one ``tfguard: error:`` line and status 2, never a traceback.
    """
    try:
        args = build_parser().parse_args(argv)
        return _COMMANDS[args.command](args)
    except (UsageError, ConfigError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FINDINGS
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - the last guard against a traceback
        print(f"{PROG}: error: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_ERROR
