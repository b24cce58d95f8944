"""The ``tfguard`` command line: one parser with a subcommand per module of this package."""

from __future__ import annotations

import argparse
import io
import os
import sys
from typing import Any, Optional, Sequence

from tfguard.cli import check, demo, precommit, report, rules, run, server
from tfguard.cli.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_INTERRUPTED, PROG, UsageError, checker_python_error
from tfguard.static.config import ConfigError
from tfguard.static.engine import caused_by_interrupt


class Parser(argparse.ArgumentParser):
    """An argument parser that suggests the nearest option for a misspelt one, as ruff and pytest do."""

    def parse_args(self, args: Any = None, namespace: Any = None) -> argparse.Namespace:  # type: ignore[override]
        """Parse like argparse; an unknown option gets "did you mean" the closest one of its subcommand."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self.error("unrecognized arguments: %s" % " ".join(extras) + _suggestion(self, parsed, extras))
        return parsed

    def error(self, message: str) -> Any:  # type: ignore[override]
        """Print one line (no usage block: ``--help`` has it) and exit 2, as every bad input does."""
        # PROG, not self.prog: a subcommand's parser would say `tfguard check: error:`; every error reads the same
        self.exit(EXIT_ERROR, "%s: error: %s\n" % (PROG, message))


def _suggestion(parser: argparse.ArgumentParser, parsed: argparse.Namespace, extras: Sequence[str]) -> str:
    import difflib

    options = [option for action in parser._actions for option in action.option_strings]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and getattr(parsed, "command", None) in action.choices:
            sub = action.choices[parsed.command]
            options += [option for sub_action in sub._actions for option in sub_action.option_strings]
    for extra in extras:
        if extra.startswith("--"):
            close = difflib.get_close_matches(extra.split("=", 1)[0], [o for o in options if o.startswith("--")],
                                              n=1, cutoff=0.6)
            if close:
                return " (did you mean %s?)" % close[0]
    return ""


def installed_version() -> str:
    """Return tfguard's version: the installed distribution's metadata, else ``tfguard.__version__`` (a plain
    checkout on ``sys.path``, or Python 3.7 without importlib.metadata)."""
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # Python 3.7
        PackageNotFoundError, version = None, None
    if version is not None:
        try:
            return version("tfguard")
        except PackageNotFoundError:
            pass
    from tfguard import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``tfguard`` command."""
    parser = Parser(
        prog=PROG,
        description="Find the costly mistakes of TensorFlow code, both halves: TF 1 graphs (ops, Savers, "
                    "summaries built in the session loop; a graph that grows) and TF 2 functions and costs "
                    "(tf.function retracing, steps never compiled, summaries, checkpoints and predict calls on "
                    "every step, slow tf.data input). `tfguard check` reads your source without running it, "
                    "`tfguard run` watches a training run.",
        epilog="Run `tfguard COMMAND -h` for a command's options; `tfguard rules` lists the codes by group (TF 1 "
               "graphs, training costs, TF 2 functions and costs, runtime); `tfguard demo` shows both halves.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"{PROG} {installed_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    check.add_parser(commands)
    rules.add_parsers(commands)
    run.add_parser(commands)
    report.add_parser(commands)
    demo.add_parser(commands)
    precommit.add_parser(commands)
    server.add_parser(commands)
    return parser


def escape_what_the_streams_cannot_carry() -> None:
    """Make stdout and stderr escape characters their encoding lacks instead of raising.

    An ASCII terminal (``PYTHONIOENCODING=ascii``, ``LC_ALL=C`` without UTF-8
    mode) cannot carry "…" or a file name that is not valid UTF-8; output is
    never worth a crash, so such characters become backslash escapes.
    """
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors in ("strict", "surrogateescape"):
            stream.reconfigure(errors="backslashreplace")


_COMMANDS = {"check": check.run_command, "rules": rules.run_rules, "rule": rules.run_rule,
             "run": run.run_command, "report": report.run_command, "demo": demo.run_command,
             "pre-commit-config": precommit.run_command, "server": server.run_command}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``) and return the exit status.

    Bad input ends in one ``tfguard: error:`` line and status 2, Ctrl-C in one
    ``tfguard: interrupted`` line and status 130, never a traceback.
    """
    swallowed: list = []
    previous_hook = getattr(sys, "unraisablehook", None)  # Python 3.8+; 3.7 (TF 1.15) has none
    interrupted = False
    try:
        status = _run(argv, swallowed)
    except KeyboardInterrupt:  # also when it comes while an error below is being reported
        interrupted = True
    finally:
        if previous_hook is not None:
            sys.unraisablehook = previous_hook
    if interrupted or swallowed:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return status


def _quiet_interrupts(swallowed: list) -> None:
    """Ctrl-C that lands in a callback Python cannot raise from (an import lock's or a weak reference's) is
    printed by Python as "Exception ignored ... KeyboardInterrupt" and lost; note it instead, so the run ends
    as an interrupted run (one line, status 130). Python 3.7 has no such hook: there Python prints it, as before."""
    previous_hook = getattr(sys, "unraisablehook", None)
    if previous_hook is None:
        return

    def hook(unraisable: Any) -> None:
        if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
            swallowed.append(True)
            return
        previous_hook(unraisable)

    sys.unraisablehook = hook


def _run(argv: Optional[Sequence[str]], swallowed: list) -> int:
    try:
        parser = build_parser()
        if not (sys.argv[1:] if argv is None else argv):  # bare `tfguard`: the help, on stderr, status 2 (as ruff)
            parser.print_help(sys.stderr)
            return EXIT_ERROR
        args = parser.parse_args(argv)
        if checker_python_error(args.command, sys.version_info):  # Python 3.7: the checker runs from a newer one
            from tfguard.cli import checker_python

            return checker_python.run_elsewhere(args.command, sys.argv[1:] if argv is None else list(argv))
        if args.command != "run":  # `tfguard run` leaves the streams and hooks to the script it runs, as python would
            escape_what_the_streams_cannot_carry()
            _quiet_interrupts(swallowed)
        return _COMMANDS[args.command](args)
    except (UsageError, ConfigError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FINDINGS
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - the last guard against a traceback
        if caused_by_interrupt(exc):
            raise KeyboardInterrupt from None
        print(f"{PROG}: error: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_ERROR
