"""``tfguard run``'s machinery: run a program as Python would, and turn its watched sessions into a report."""

from __future__ import annotations

import os
import runpy
import sys
import traceback
from typing import Any, Dict, List, Optional, Sequence

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


def run_document(command: List[str], watcher: Any, sessions: List[Any], status: int) -> Dict[str, Any]:
    """The JSON document of a run: the busiest session's `report.to_dict()` plus the run's facts."""
    from tfguard.runtime.report import REPORT_VERSION

    failed = [s.failed for s in sessions if s.report is None and s.failed]
    sessions = [s for s in sessions if s.report is not None]  # tfguard failed on the others (safety.py)
    facts = {"command": command, "tensorflow_version": watcher.tensorflow_version, "exit_status": status,
             "stopped_by_max_steps": watcher.stopped_by_max_steps, "session_count": len(sessions),
             "freeze_after": watcher.freeze_after, "unguarded_sessions": failed}
    if not sessions:
        return dict(version=REPORT_VERSION, **facts)
    from tfguard.runtime.across_sessions import growth_across_sessions

    main = max(sessions, key=lambda s: s.report.runs)
    document = main.report.to_dict()
    document.update(facts)
    document.update(_session_facts(main))
    document["other_sessions"] = [dict(_session_facts(s), report=s.report.to_dict())
                                  for s in sessions if s is not main]
    document["across_sessions"] = growth_across_sessions(
        [_session_record(s.report.to_dict(), _session_facts(s)) for s in sessions])
    return document


def _session_facts(watched: Any) -> Dict[str, Any]:
    return {"created_at": watched.created_at, "session_number": watched.number,
            "graph_number": getattr(watched, "graph_number", 0),
            "graph_ran_before": getattr(watched, "graph_ran_before", False)}


def _session_record(report: Dict[str, Any], facts: Dict[str, Any]) -> Dict[str, Any]:
    """A session as across_sessions.py reads it."""
    return {"number": facts.get("session_number", 0), "created_at": facts.get("created_at"),
            "graph": facts.get("graph_number", 0), "ran_before": facts.get("graph_ran_before", False),
            "runs": report["runs"], "nodes_start": report["nodes_start"], "nodes_end": report["nodes_end"],
            "growth_sites": report["growth_sites"]}


#: More sessions than this on one graph are reported as one table (the busiest) and a line for the rest.
SESSIONS_SHOWN_PER_GRAPH = 2


def render_document(document: Dict[str, Any], width: Optional[int] = None) -> str:
    """Report tables of a run document (or of a bare `report.to_dict()`), fit to `width` columns (None: 80 or
    `COLUMNS`; 0: wide): its sessions, then its tf.functions (TFG908) when any traced."""
    functions = document.get("functions") or {}
    if not functions.get("functions"):
        return _render_sessions(document, width)
    from tfguard.runtime.function_watch import render

    traced = render(functions, width)
    if "mode" not in document and not document.get("unguarded_sessions"):
        return traced  # a TF2 program with no session: its functions are the report
    return _render_sessions(document, width) + "\n\n" + traced


def _render_sessions(document: Dict[str, Any], width: Optional[int] = None) -> str:
    from tfguard.runtime.report import Report

    command = " ".join(document.get("command") or [])
    unguarded = document.get("unguarded_sessions") or []
    if "mode" not in document and not unguarded:
        return "tfguard: %s created no TensorFlow session: nothing to report" % (command or "the program")
    parts = []
    count = document.get("session_count", 1)
    if unguarded:
        parts.append("tfguard: %d session%s not reported: tfguard failed internally on %s (see its line above)"
                     % (len(unguarded), "" if len(unguarded) == 1 else "s", "it" if len(unguarded) == 1 else "them"))
    if command:
        parts.append("tfguard run %s: %d session%s watched (TensorFlow %s)" % (
            command, count, "" if count == 1 else "s", document.get("tensorflow_version") or "?"))
    if "mode" not in document:
        return "\n\n".join(parts)
    from tfguard.runtime.across_sessions import folded_sessions
    from tfguard.runtime.fit import resolve_width, wrap_lines

    columns = resolve_width(width)
    for diagnostic in document.get("across_sessions", []):
        line = "%s %s (across sessions): %s" % (diagnostic["code"], diagnostic["severity"], diagnostic["message"])
        parts.append("\n".join(wrap_lines(line, columns, subsequent="    ")) if columns else line)
    sessions = [(document, document)] + [(other, other["report"]) for other in document.get("other_sessions", [])]
    records = [_session_record(data, facts) for facts, data in sessions]
    folded = folded_sessions(records, SESSIONS_SHOWN_PER_GRAPH) if all(r["number"] for r in records) else {}
    left_out = {r["number"] for rest in folded.values() for r in rest}
    for (facts, data), record in zip(sessions, records):
        if record["number"] in left_out:
            continue
        created_at = facts.get("created_at")
        table = Report.from_dict(data).table(width)
        if count > 1 or created_at:
            table = table.replace("tfguard runtime report", "tfguard runtime report: session created at %s" % (
                created_at,), 1)
        rest = folded.get(record["number"])
        if rest:
            places = sorted({r["created_at"] for r in rest})
            line = "%d more session%s on the same graph (created at %s), %d runs in all: tables left out " \
                "(--json has them)" % (len(rest), "" if len(rest) == 1 else "s", ", ".join(places[:3]) +
                                       (", ..." if len(places) > 3 else ""), sum(r["runs"] for r in rest))
            table += "\n\n" + "\n".join(wrap_lines(line, columns, subsequent="    "))
        parts.append(table)
    return "\n\n".join(parts)


def fired_codes(document: Dict[str, Any]) -> set:
    """Codes of the error and warning diagnostics of every session and tf.function in a run document (information,
    such as one-time graph growth, never fails a run)."""
    diagnostics = list(document.get("diagnostics", [])) + list(document.get("across_sessions", []))
    diagnostics += (document.get("functions") or {}).get("diagnostics", [])  # TFG908
    for other in document.get("other_sessions", []):
        diagnostics += other["report"]["diagnostics"]
    return {d["code"] for d in diagnostics if d["severity"] != "info"}
