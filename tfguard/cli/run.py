"""``tfguard run``: run a script or module as Python would, with every session watched."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import Any, Dict, List, Optional, Tuple

from tfguard.cli.errors import UsageError
from tfguard.cli.html_page import check_html_path, write_html
from tfguard.cli.progress import Progress
from tfguard.cli.progress import wanted as progress_wanted
from tfguard.runtime.judge import fail_on_codes, fail_on_name

#: --fail-on names and the runtime diagnostics they stand for, as each diagnostic declares them (runtime/judge/).
FAIL_ON = fail_on_codes()
#: Seconds a program runs before the progress line appears.
PROGRESS_DELAY_S = 5
#: The run `--placement` traces when no N is given (`--placement=N`).
DEFAULT_PLACEMENT_AT = 5


def add_parser(commands: Any) -> None:
    """Register ``tfguard run`` on the CLI's subcommand parsers."""
    run = commands.add_parser(
        "run", help="run a script (or -m module) under the guard: TF 1 sessions and TF 2 tf.functions watched",
        usage="tfguard run [options] SCRIPT [ARGS...] | tfguard run [options] -m MODULE [ARGS...]",
        description="Run SCRIPT as `python SCRIPT ARGS...` would, guarding every tf.compat.v1 "
                    "Session/InteractiveSession/MonitoredSession it creates (watch mode) and following every "
                    "tf.function it calls (TensorFlow 2.13+: retracing, TFG908), and print the "
                    "runtime report to stderr when it ends. Options go before SCRIPT; everything after it "
                    "is the script's.")
    run.add_argument("-m", dest="module", action="store_true", help="run the library module named first, "
                     "as `python -m MODULE` would")
    run.add_argument("--freeze-after", metavar="N", help="finalize each session's graph after its N-th run "
                     "(a later op creation raises GraphFrozenError naming the line)")
    run.add_argument("--max-steps", metavar="N", help="stop the program after N runs of its dominant fetch "
                     "signature, or N steps of a TF2 training loop (exit status 0, report still printed)")
    run.add_argument("--fail-on", metavar="NAMES", help="exit 1 when these diagnostics fire as errors or "
                     "warnings; information, such as one-time graph growth, never fails (comma-separated: %s)"
                     % ", ".join("%s=%s" % item for item in FAIL_ON.items()))
    run.add_argument("--json", metavar="FILE", help="also write the report as JSON to FILE")
    run.add_argument("--html", metavar="FILE", help="also write the report as one self-contained HTML page to FILE "
                     "(verdict, diagnostics with their lines, charts of step time, graph size, host share and "
                     "costs; opens offline)")
    run.add_argument("--json-dir", metavar="DIR", help="also write the report as JSON into DIR, named "
                     "<job>-<task>.json by the cluster task (TF_CONFIG, or the tf.distribute.Server the script "
                     "creates), else <host>-<pid>.json; `tfguard report DIR` puts the tasks side by side")
    run.add_argument("--tensorboard", metavar="LOGDIR", help="write tfguard/step_interval, tfguard/graph_ops and "
                     "tfguard/host_fraction as TensorBoard scalars to LOGDIR")
    run.add_argument("--tensorboard-every", metavar="N", help="with --tensorboard: also write every N runs, "
                     "from a background thread (default: once at the end)")
    run.add_argument("--placement", metavar="N", nargs="?", const=str(DEFAULT_PLACEMENT_AT),
                     help="trace the N-th run of the busiest fetch signature (--placement=N, default %d) and "
                     "report where its ops ran, ops pinned to a GPU that ran on a CPU (TFG906) and tensors "
                     "crossing devices (TFG907)" % DEFAULT_PLACEMENT_AT)
    _attach_placement_value(run)
    run.add_argument("-q", "--quiet", action="store_true", help="do not print the report table")
    run.add_argument("--wide", action="store_true", help="print the report's lines and cells in full (by default "
                                                          "they fit 80 columns, or COLUMNS; the JSON has it all)")
    run.add_argument("--progress", type=str.lower, choices=("auto", "always", "never"), default="auto",
                     help="a one-line count of the runs watched, redrawn on stderr while the program runs: auto "
                          "(default: when stderr is a terminal, after %d s), always, never" % PROGRESS_DELAY_S)
    run.add_argument("target", nargs=argparse.REMAINDER, metavar="SCRIPT [ARGS...]",
                     help="the script (or module with -m) and its arguments")


def _attach_placement_value(parser: argparse.ArgumentParser) -> None:
    """Make a bare `--placement` take no value, so that `--placement train.py` keeps the script.

    argparse would read the next word as N (`nargs="?"`); a bare `--placement` before the script is
    rewritten to `--placement=DEFAULT` before parsing, unless the next word is a whole number (and the script
    comes after it): `--placement 3 train.py` is `--placement=3 train.py`. So the script is never taken for N.
    """
    plain = parser.parse_known_args

    def parse_known_args(args: Any = None, namespace: Any = None) -> Any:
        args = list(sys.argv[1:] if args is None else args)
        takes_value = {option for action in parser._actions if action.option_strings and action.nargs is None
                       for option in action.option_strings}
        index = 0
        while index < len(args) and args[index].startswith("-"):
            if args[index] == "--placement":
                given = args[index + 1] if index + 2 < len(args) else ""
                if given.isdigit():
                    args[index:index + 2] = ["--placement=" + given]
                else:
                    args[index] = "--placement=%d" % DEFAULT_PLACEMENT_AT
            index += 2 if args[index] in takes_value else 1
        return plain(args, namespace)

    parser.parse_known_args = parse_known_args


def _count(value: Optional[str], option: str) -> Optional[int]:
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise UsageError("%s needs a positive whole number, got %r" % (option, value))
    return number


def _fail_on_codes(value: Optional[str]) -> Dict[str, str]:
    """Read ``--fail-on``: names (``growth``) or their codes (``TFG901``), in any case."""
    if value is None:
        return {}
    names = [fail_on_name(name) for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name not in FAIL_ON]
    if unknown or not names:
        raise UsageError("--fail-on: unknown name %r (choose from %s, or their codes %s)" % (
            (unknown or [value])[0], ", ".join(FAIL_ON), ", ".join(FAIL_ON.values())))
    return {name: FAIL_ON[name] for name in names}


def module_exists(name: str) -> bool:
    """Return whether ``python -m name`` would find the module, searching as it does: the working folder first.

    Nothing is imported: a dotted name is looked up part by part in the folders of its parent packages, so a
    package's ``__init__`` runs only once the program starts, under the watch. The console script's
    ``sys.path[0]`` is its own ``bin`` folder, not the working folder, hence the explicit search path.
    """
    from importlib.machinery import PathFinder

    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        return False
    search: List[str] = [os.getcwd()] + [entry for entry in sys.path[1:] if entry]
    try:
        spec = _top_level_spec(parts[0], search)
        for part in parts[1:]:
            if spec is None or not spec.submodule_search_locations:
                return False
            spec = PathFinder.find_spec(part, list(spec.submodule_search_locations))
    except (ImportError, ValueError):
        return False
    return spec is not None


def _top_level_spec(name: str, search: List[str]) -> Any:
    """The spec of a top-level module: built-in and frozen ones first, then the folders of ``search``."""
    from importlib.machinery import BuiltinImporter, FrozenImporter, PathFinder

    return (BuiltinImporter.find_spec(name) or FrozenImporter.find_spec(name)
            or PathFinder.find_spec(name, search))


def _check_paths(args: argparse.Namespace) -> None:
    if not args.target:
        raise UsageError("tfguard run needs a script (or -m MODULE) to run")
    if args.module:
        if not module_exists(args.target[0]):
            raise UsageError("no module named %s" % args.target[0])
    elif not os.path.exists(args.target[0]):
        raise UsageError("script not found: %s" % args.target[0])
    elif os.path.isdir(args.target[0]) and not any(
            os.path.isfile(os.path.join(args.target[0], name)) for name in ("__main__.py", "__main__.pyc")):
        raise UsageError("can't find '__main__' module in %s (a folder runs its __main__.py, as python does)"
                         % args.target[0])
    if args.json:
        folder = os.path.dirname(os.path.abspath(args.json))
        if not os.path.isdir(folder) or os.path.isdir(args.json):
            raise UsageError("cannot write --json %s: no such folder" % args.json)
    if args.html:
        check_html_path(args.html)
    if args.json_dir and os.path.exists(args.json_dir) and not os.path.isdir(args.json_dir):
        raise UsageError("--json-dir %s is a file, not a folder" % args.json_dir)
    if args.tensorboard and os.path.isfile(args.tensorboard):
        raise UsageError("--tensorboard %s is a file, not a folder" % args.tensorboard)
    if args.tensorboard_every and not args.tensorboard:
        raise UsageError("--tensorboard-every needs --tensorboard")


def _runs_of(watched: Any) -> int:
    recorder = getattr(watched.guard, "_recorder", None) if watched.guard is not None else None
    if recorder is not None:
        return recorder.runs
    return watched.report.runs if watched.report is not None else 0


def _progress_text(watcher: Any) -> str:
    """The progress line of `tfguard run`: the runs watched so far, in how many sessions."""
    sessions = len(watcher.sessions)
    if not sessions:
        return ""
    runs = sum(_runs_of(watched) for watched in list(watcher.sessions))
    return "tfguard: %d run%s watched in %d session%s" % (runs, "" if runs == 1 else "s", sessions,
                                                         "" if sessions == 1 else "s")


def run_command(args: argparse.Namespace) -> int:
    """Run ``tfguard run``; return the program's exit status (or 1 for --fail-on, 2 for usage, 70 when
    tfguard failed internally under --fail-on).

    Everything but the program is tfguard's and shielded (runtime/safety.py): an internal error is one line
    on stderr, and the program runs (on, or unguarded) with its own output, files and exit status.
    """
    freeze_after = _count(args.freeze_after, "--freeze-after")
    max_steps = _count(args.max_steps, "--max-steps")
    every = _count(args.tensorboard_every, "--tensorboard-every")
    placement_at = _count(args.placement, "--placement")
    fail_on = _fail_on_codes(args.fail_on)
    _check_paths(args)
    from tfguard.runtime import safety
    from tfguard.runtime.run.autowatch import MaxStepsReached, SessionWatcher
    from tfguard.runtime.run.runner import execute

    failures_before = len(safety.failures)
    watcher = tasks = None
    try:
        watcher = SessionWatcher(freeze_after=freeze_after, max_steps=max_steps, logdir=args.tensorboard,
                                 tensorboard_every=every, placement_at=placement_at)
        watcher.install()
        watcher.functions = _watch_functions()
        watcher.steps = _watch_steps(max_steps, MaxStepsReached)
        watcher.program = _watch_program(watcher.steps)
        if args.json_dir:
            from tfguard.views.task_files import TaskNaming

            tasks = TaskNaming(args.json_dir)
            tasks.install()
    except Exception as exc:
        safety.internal_error("tfguard run's set-up", exc, "watching")
        watcher, tasks = _undo_setup(watcher, tasks)
    indicator: Any = contextlib.nullcontext()
    try:
        if watcher is not None:
            from tfguard.runtime.output import alerts

            watched = watcher
            indicator = Progress(sys.stderr, lambda: _progress_text(watched), delay_s=PROGRESS_DELAY_S,
                                 enabled=progress_wanted(sys.stderr, None if args.progress == "auto"
                                                         else args.progress == "always"))
            alerts.before_write = indicator.clear  # a live alert starts on a clean line
            alerts.width = 0 if args.wide else None
    except Exception as exc:
        safety.internal_error("tfguard run's progress line", exc, "showing progress")
    try:
        indicator.__enter__()
    except Exception as exc:
        safety.internal_error("tfguard run's progress line", exc, "showing progress")
        indicator = contextlib.nullcontext()
    try:
        status = execute(args.target, args.module, MaxStepsReached)
    finally:
        try:
            indicator.__exit__(None, None, None)
        except Exception as exc:
            safety.internal_error("tfguard run's progress line", exc, "showing progress")
        try:
            sessions = _finish(watcher, tasks)
        except Exception as exc:
            safety.internal_error("the end of tfguard run", exc, "watching")
            sessions = []
            _undo_setup(watcher, tasks)  # nothing of the guard stays patched in this process
    sys.stdout.flush()
    if watcher is not None:
        try:
            failed = _report(args, watcher, sessions, status, max_steps, fail_on, tasks)
        except Exception as exc:
            safety.internal_error("tfguard run's report", exc, "reporting")
            failed = None
        try:
            _end_stopped_tf2_run(watcher, status if failed is None else failed)
        except Exception as exc:  # the process then ends the ordinary way, with the program's status
            safety.internal_error("the end of a stopped TF2 run", exc, "watching")
        if failed is not None:
            return failed
    if status == 0 and fail_on and safety.failed_since(failures_before):
        print("tfguard: failing (--fail-on): tfguard itself failed, not the program (exit status %d)"
              % safety.GUARD_FAILED_STATUS, file=sys.stderr)
        return safety.GUARD_FAILED_STATUS
    return status


def _started(watch: Any, what: str, doing: str) -> Any:
    """`watch` started, or None (stopped again, one line on stderr) when it could not start: the program then runs
    without it."""
    from tfguard.runtime import safety

    try:
        watch.start()
    except Exception as exc:
        safety.internal_error("tfguard run's %s" % what, exc, doing)
        watch.stop()
        return None
    return watch


def _watch_functions() -> Any:
    """The watch of the program's tf.functions (TFG908), alerts on stderr; None when it could not start."""
    from tfguard.runtime.run.function_watch import FunctionWatch

    # alerts as plain lines, not through `warnings`: the program's behaviour must not change
    return _started(FunctionWatch(alerts_through_warnings=False), "tf.function watch", "following tf.functions")


def _end_stopped_tf2_run(watcher: Any, status: int) -> None:
    """End the process now when `--max-steps` stopped a TF2 training loop, its report written and its output
    flushed. The stop leaves the program's input pipeline alive in reference cycles (the tf.data iterator of a Keras
    `fit` whose map runs a `numpy_function` registered with TensorFlow): freed at interpreter exit, its destructor
    waits for ever on a thread that can no longer run Python. The program's own atexit handlers do not run then:
    it was stopped mid-run, as the option says."""
    steps = getattr(watcher, "steps", None)
    if steps is None or not steps.stopped_by_max_steps:
        return
    import os

    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def _watch_steps(max_steps: Optional[int], stop_type: type) -> Any:
    """The watch of a TF2 program's training loop (steps, input, checkpoints, summaries); None when it could not
    start."""
    from tfguard.runtime.run.step_watch import StepWatch

    return _started(StepWatch(max_steps=max_steps, stop_type=stop_type), "training-loop watch",
                    "following the training loop")


def _watch_program(steps: Any) -> Any:
    """The watch of the program's Keras calls, callbacks and host syncs (TFG910-TFG912), its steps read from the
    step watch `steps`; None when it could not start."""
    from tfguard.runtime.run.program_watch import ProgramWatch

    return _started(ProgramWatch(steps), "Keras watch", "following Keras calls and host syncs")


def _undo_setup(watcher: Any, tasks: Any) -> Tuple[None, None]:
    """Take back what a failed set-up installed: the program then runs unguarded."""
    for part in (tasks, getattr(watcher, "steps", None), getattr(watcher, "functions", None),
                 getattr(watcher, "program", None), watcher):
        try:
            if part is not None:
                (part.stop if hasattr(part, "stop") else part.uninstall)()
        except Exception:
            pass
    return None, None


def _finish(watcher: Any, tasks: Any) -> List[Any]:
    """End the watch once the program has ended (shielded: the program's status is already known)."""
    from tfguard.runtime import safety
    from tfguard.runtime.output import alerts

    alerts.before_write = None
    alerts.width = None
    sessions: List[Any] = []
    try:
        if getattr(watcher, "functions", None) is not None:
            watcher.functions.stop()
        if getattr(watcher, "steps", None) is not None:
            watcher.steps.stop()
        if getattr(watcher, "program", None) is not None:
            watcher.program.stop()
        if watcher is not None:
            sessions = watcher.finish()
        if tasks is not None:
            tasks.uninstall()
    except Exception as exc:
        safety.internal_error("the end of tfguard run", exc, "watching")
    return sessions


def _report(args: argparse.Namespace, watcher: Any, sessions: List[Any], status: int, max_steps: Optional[int],
            fail_on: Dict[str, str], tasks: Any) -> Optional[int]:
    """Print and write the run's report; the exit status it decides (None: the program's)."""
    from tfguard.runtime.output.formats import FORMATS, deliver
    from tfguard.runtime.run.runner import run_verdict

    command = (["-m"] if args.module else []) + list(args.target)
    steps = getattr(watcher, "steps", None)
    if steps is not None and steps.stopped_by_max_steps:
        watcher.stopped_by_max_steps = True
    if watcher.stopped_by_max_steps:
        print("tfguard: stopped after %d steps (--max-steps)" % max_steps, file=sys.stderr)
    if watcher.setup_error:
        print("tfguard: could not watch sessions: %s" % watcher.setup_error, file=sys.stderr)
    # TF 2.13+: the tf.functions too (TFG908), a TF2 training loop's steps, and the Keras calls, callbacks and host
    # syncs (TFG910-TFG912); on TF 1.15 the verdict has none of them
    verdict = run_verdict(command, watcher, sessions, status, getattr(watcher, "functions", None), steps,
                          getattr(watcher, "program", None))
    if not args.quiet:
        print(FORMATS["text"].render(verdict, 0 if args.wide else None), file=sys.stderr)
    if args.json:
        try:
            deliver("json", verdict, args.json)
        except OSError as exc:
            print("tfguard: error: cannot write %s: %s" % (args.json, exc.strerror or exc), file=sys.stderr)
            return status or 2
    if args.html:
        try:
            write_html(args.html, lambda: deliver("html", verdict, args.html), quiet=args.quiet)
        except UsageError as exc:
            print("tfguard: error: %s" % exc, file=sys.stderr)
            return status or 2
    if tasks is not None and not tasks.write(verdict, quiet=args.quiet):
        return status or 2
    if status == 0 and fail_on and watcher.setup_error:  # the gate could not look: never pass it unseen
        return 2
    if status == 0 and fail_on:
        fired = verdict.fired_codes()
        failing = [name for name, code in fail_on.items() if code in fired]
        if failing:
            print("tfguard: failing (--fail-on): %s" % ", ".join(
                "%s (%s)" % (name, fail_on[name]) for name in failing), file=sys.stderr)
            return 1
    return None
