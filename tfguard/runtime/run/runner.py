"""``tfguard run``'s machinery: run a program as Python would, and turn its watched sessions into a report."""

from __future__ import annotations

import os
import runpy
import sys
import traceback
import types
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
            # As python: the folder of the file the script is, symlinks followed (a folder or zip: itself).
            sys.path[0:1] = [os.path.dirname(os.path.realpath(script)) if os.path.isfile(script)
                             else os.path.abspath(script)]
            if os.path.isfile(script) and not _is_zip(script):
                run_script(script)
            else:
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


def run_script(script: str) -> None:
    """Run the file `script` as ``python script`` runs it (runpy.run_path differs): ``__file__`` and the code's
    filename absolute on Python 3.9+ (as given before), a SourceFileLoader as ``__loader__``, ``__package__`` and
    ``__spec__`` None, the module in ``sys.modules["__main__"]`` while it runs."""
    import builtins
    from importlib.machinery import SourceFileLoader

    path = os.path.abspath(script) if sys.version_info >= (3, 9) else script
    with open(script, "rb") as handle:
        source = handle.read()
    code = compile(source, path, "exec", dont_inherit=True)
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=path, __loader__=SourceFileLoader("__main__", path), __package__=None,
                           __spec__=None, __cached__=None, __builtins__=builtins)
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = module
    try:
        exec(code, module.__dict__)  # noqa: S102 - running the user's program is what `tfguard run` does
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def _is_zip(path: str) -> bool:
    import zipfile

    return zipfile.is_zipfile(path)


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
    if os.environ.get("TFGUARD_TRACEBACK") != "full":
        tb = without_guard_frames(tb)
        _filter_chain(exc)
    sys.stdout.flush()
    traceback.print_exception(type(exc), exc, tb, file=sys.stderr)
    sys.stderr.flush()


#: The guard's wrappers (tfguard/runtime/...): the frames hidden from the program's tracebacks.
_GUARD_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _guard_frame(tb: Any) -> bool:
    return _frame_file(tb.tb_frame.f_code.co_filename).startswith(_GUARD_DIR)


def without_guard_frames(tb: Any) -> Any:
    """The traceback ``tb`` without the guard's wrapper frames (``session.run`` and ``tf.function`` calls pass
    through them), as TensorFlow hides its own: a user's error reads as the user's. When the error was raised in
    the guard itself (its innermost frame is the guard's), every frame stays: that is tfguard's error, and its
    frames are what its report needs. ``TFGUARD_TRACEBACK=full`` keeps them all."""
    import types

    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    if not entries or _guard_frame(entries[-1]) or not any(_guard_frame(e) for e in entries):
        return entries[0] if entries else None
    rebuilt = None
    for entry in reversed([e for e in entries if not _guard_frame(e)]):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return rebuilt


def _filter_chain(exc: BaseException) -> None:
    """Hide the guard's frames from the exceptions chained to ``exc`` too (``raise ... from``, during handling)."""
    seen = {id(exc)}
    linked = [exc.__cause__, exc.__context__]
    while linked:
        chained = linked.pop()
        if chained is None or id(chained) in seen:
            continue
        seen.add(id(chained))
        chained.__traceback__ = without_guard_frames(chained.__traceback__)
        linked += [chained.__cause__, chained.__context__]


def _frame_file(filename: str) -> str:
    return filename if filename.startswith("<") else os.path.abspath(filename)


def run_verdict(command: List[str], watcher: Any, sessions: List[Any], status: int,
                functions: Any = None, steps: Any = None, program: Any = None) -> RunVerdict:
    """The verdict of a run: its facts, every watched session (`report`: its final SessionReport) as an equal, the
    growth across sessions and, when the tf.function watch could follow them (`functions`, TF 2.13+), the functions, and
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
    verdict = judge_run(facts, judged, traced, program.judged() if program is not None else None)
    if steps is not None and steps.saw_training:  # a TF2 training loop (run/step_watch.py): its steps, its findings
        figures, found = steps.judged()
        verdict.facts["steps"] = figures
        verdict.diagnostics += found
    return verdict
