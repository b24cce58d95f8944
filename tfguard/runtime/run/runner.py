"""``tfguard run``'s machinery: run a program as Python would, and turn its watched sessions into a report."""

from __future__ import annotations

import os
import runpy
import sys
import traceback
from typing import Any, Dict, List, Sequence

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


def run_document(command: List[str], watcher: Any, sessions: List[Any], status: int) -> Dict[str, Any]:
    """The JSON document of a run: the busiest session's `report.to_dict()` plus the run's facts."""
    from tfguard.runtime.document import REPORT_VERSION

    failed = [s.failed for s in sessions if s.report is None and s.failed]
    sessions = [s for s in sessions if s.report is not None]  # tfguard failed on the others (safety.py)
    facts = {"command": command, "tensorflow_version": watcher.tensorflow_version, "exit_status": status,
             "stopped_by_max_steps": watcher.stopped_by_max_steps, "session_count": len(sessions),
             "freeze_after": watcher.freeze_after, "unguarded_sessions": failed}
    if not sessions:
        return dict(version=REPORT_VERSION, **facts)
    from tfguard.runtime.judge.across_sessions import growth_across_sessions, session_record

    main = max(sessions, key=lambda s: s.report.runs)
    document = main.report.to_dict()
    document.update(facts)
    document.update(_session_facts(main))
    document["other_sessions"] = [dict(_session_facts(s), report=s.report.to_dict())
                                  for s in sessions if s is not main]
    document["across_sessions"] = growth_across_sessions(
        [session_record(s.report.to_dict(), _session_facts(s)) for s in sessions])
    return document


def _session_facts(watched: Any) -> Dict[str, Any]:
    return {"created_at": watched.created_at, "session_number": watched.number,
            "graph_number": getattr(watched, "graph_number", 0),
            "graph_ran_before": getattr(watched, "graph_ran_before", False)}


def fired_codes(document: Dict[str, Any]) -> set:
    """Codes of the error and warning diagnostics of every session and tf.function in a run document (information,
    such as one-time graph growth, never fails a run)."""
    diagnostics = list(document.get("diagnostics", [])) + list(document.get("across_sessions", []))
    diagnostics += (document.get("functions") or {}).get("diagnostics", [])  # TFG908
    for other in document.get("other_sessions", []):
        diagnostics += other["report"]["diagnostics"]
    return {d["code"] for d in diagnostics if d["severity"] != "info"}
