"""``tfguard run``'s machinery: run a program as Python would, and turn its watched sessions into a report."""

from __future__ import annotations

import os
import runpy
import sys
import traceback
from dataclasses import replace
from typing import Any, List, Sequence

from tfguard.runtime.judge.judgement import judge_run
from tfguard.runtime.verdict import RunVerdict

EXIT_INTERRUPTED = 130
# Frames of the runner itself, trimmed from the top of the program's traceback.
_RUNNER_FILES = {os.path.abspath(__file__), os.path.abspath(runpy.__file__), "<frozen runpy>"}


def execute(target: Sequence[str], as_module: bool, stop_type: type) -> int:
    """Run the program like `python` would and return its exit status; print its traceback."""
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    try:
        if as_module:
            sys.argv = [target[0]] + list(target[1:])
            sys.path[0:1] = [os.getcwd()]
            runpy.run_module(target[0], run_name="__main__", alter_sys=True)
        else:
            script = target[0]
            sys.argv = [script] + list(target[1:])
            sys.path[0:1] = [os.path.dirname(os.path.abspath(script))]
            runpy.run_path(script, run_name="__main__")
        return 0
    except SystemExit as exc:
        return _exit_status(exc.code)
    except stop_type:
        return 0
    except KeyboardInterrupt as exc:
        _print_program_traceback(exc)
        return EXIT_INTERRUPTED
    except BaseException as exc:  # noqa: BLE001 - the program's own error: report it as Python would
        _print_program_traceback(exc)
        return 1
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path


def _exit_status(code: Any) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF if code >= 0 else code % 256
    sys.stdout.flush()
    print(code, file=sys.stderr)
    return 1


def _print_program_traceback(exc: BaseException) -> None:
    tb = exc.__traceback__
    while tb is not None and _frame_file(tb.tb_frame.f_code.co_filename) in _RUNNER_FILES:
        tb = tb.tb_next
    sys.stdout.flush()
    traceback.print_exception(type(exc), exc, tb, file=sys.stderr)
    sys.stderr.flush()


def _frame_file(filename: str) -> str:
    return filename if filename.startswith("<") else os.path.abspath(filename)


def run_verdict(command: List[str], watcher: Any, sessions: List[Any], status: int,
                functions: Any = None, program: Any = None) -> RunVerdict:
    """The verdict of a run: its facts, every watched session (`report`: its final Report) as an equal, the growth
    across sessions and, when the tf.function watch could follow them (`functions`, TF 2.13+), the functions, and
    the program's Keras calls, callbacks and host syncs when its watch followed them (`program`, TF 2.x)."""
    failed = [s.failed for s in sessions if s.report is None and s.failed]
    sessions = [s for s in sessions if s.report is not None]  # tfguard failed on the others (safety.py)
    facts = {"command": command, "tensorflow_version": watcher.tensorflow_version, "exit_status": status,
             "stopped_by_max_steps": watcher.stopped_by_max_steps, "freeze_after": watcher.freeze_after,
             "unguarded_sessions": failed}
    judged = [(replace(s.report.session, number=s.number, created_at=s.created_at,
                       graph_number=getattr(s, "graph_number", 0),
                       graph_ran_before=getattr(s, "graph_ran_before", False)), s.report.findings)
              for s in sessions]
    traced = functions.judged() if functions is not None and functions.available else None
    return judge_run(facts, judged, traced, program.judged() if program is not None else None)
