"""Fault injection for `tfguard run` (issue 30): make each tfguard function the guarded program reaches raise,
in turn, and compare the program's stdout, files and exit status with a plain run of it.

Run as ``python -m tests.run.fault_injection PROGRAM ARGS...`` from the repository root: one process (TensorFlow
loads once), the program run plainly once, once under `tfguard run` while a profiler lists every function of
tfguard it reaches, then once per function with that function raising. Writes a JSON summary on stdout's last line.

The functions are found, not listed: every function or method of a `tfguard` module that the guarded run called
from the moment the session watcher was made, except the frames that run the program itself (the runner and
`run_command` around it, which are Python's part: they cannot raise instead of running it) and
`tfguard.runtime.safety` (the shield itself). Inner functions (the session wrappers) are reached through the
functions they call.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import runpy
import shutil
import sys
import tempfile
import types
from typing import Any, Dict, List, Optional, Tuple

# A plain run and the injected runs must see the same TensorFlow state: import it first, as the program would.
import tensorflow.compat.v1 as tf  # noqa: E402  (tests of the guard need the real thing)

from tfguard.cli.main import main as tfguard_main  # noqa: E402
from tfguard.runtime import safety  # noqa: E402


class InjectedFault(Exception):
    """The error an injected tfguard function raises."""


def run_plain(argv: List[str]) -> Tuple[str, int]:
    """(stdout, exit status) of `python PROGRAM ARGS` in this process."""
    out = io.StringIO()
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    status = 0
    with contextlib.redirect_stdout(out):
        try:
            sys.argv = list(argv)
            runpy.run_path(argv[0], run_name="__main__")
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
    return out.getvalue(), status


def run_guarded(argv: List[str], options: List[str]) -> Tuple[str, int, str]:
    """(stdout, exit status, stderr) of `tfguard run OPTIONS PROGRAM ARGS` in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = tfguard_main(["run", "--progress", "never"] + options + list(argv))
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
    return out.getvalue(), status, err.getvalue()


def files_of(folder: str) -> Dict[str, Optional[str]]:
    """Every file under `folder`: its content, or None for event files (their names and bytes hold times)."""
    found: Dict[str, Optional[str]] = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            relative = os.path.relpath(path, folder)
            if "tfevents" in name:
                found[os.path.join(os.path.dirname(relative), "events")] = None
            else:
                with open(path, "rb") as handle:
                    found[relative] = handle.read().hex()
    return found


def _tfguard_code(code: types.CodeType) -> bool:
    path = code.co_filename.replace("\\", "/")
    return "/tfguard/" in path and "/tfguard/runtime/safety.py" not in path


def reached_functions(argv: List[str], workdir: str) -> Tuple[set, set]:
    """(code objects of tfguard reached once the watcher exists, those that run the program: on the stack
    around it, or called by the runner's `execute` only, which works out the status as Python would)."""
    reached: set = set()
    around: set = set()
    callers: Dict[types.CodeType, set] = {}
    program = os.path.abspath(argv[0])
    state = {"on": False, "program": False}

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        if not state["on"] and code.co_name == "__init__" and code.co_filename.endswith("autowatch.py"):
            state["on"] = True
        if not state["program"] and os.path.abspath(code.co_filename) == program:
            state["program"] = True
            outer = frame.f_back
            while outer is not None:
                around.add(outer.f_code)
                outer = outer.f_back
        if state["on"] and _tfguard_code(code):
            reached.add(code)
            callers.setdefault(code, set()).add(frame.f_back.f_code if frame.f_back is not None else None)

    fresh(workdir)
    sys.setprofile(profile)
    try:
        run_guarded(argv, [])
    finally:
        sys.setprofile(None)
    runner = {code for code in around if code.co_name == "execute"}
    around |= {code for code, by in callers.items() if by and by <= runner}
    return reached - around, around


def patch_points(codes: set) -> List[Tuple[str, Any, str, Any]]:
    """(name, owner, attribute, original) of each reached function that can be replaced by name: module
    functions (in every tfguard module that imported it) and methods, properties, static and class methods."""
    points = []
    modules = [m for name, m in sorted(sys.modules.items()) if name.startswith("tfguard") and m is not None]
    for module in modules:
        for attribute, value in sorted(vars(module).items()):
            own = getattr(value, "__module__", None) == module.__name__
            if isinstance(value, types.FunctionType) and value.__code__ in codes and own:
                points.append(("%s.%s" % (module.__name__, attribute), None, attribute, value))
            elif isinstance(value, type) and own:
                for name, member in sorted(vars(value).items()):
                    function = member
                    if isinstance(member, (staticmethod, classmethod)):
                        function = member.__func__
                    elif isinstance(member, property):
                        function = member.fget
                    if isinstance(function, types.FunctionType) and function.__code__ in codes:
                        points.append(("%s.%s.%s" % (module.__name__, value.__name__, name), value, name, member))
    return points


@contextlib.contextmanager
def injected(owner: Any, attribute: str, original: Any, fired: List[int]) -> Any:
    """`owner.attribute` (a class member, or a module function wherever it was imported) raising InjectedFault."""
    def raiser(*args: Any, **kwargs: Any) -> Any:
        fired[0] += 1
        raise InjectedFault("injected into %s" % attribute)

    replacements = []
    declared: List[Tuple[str, Any]] = []
    if owner is None:
        for module in [m for name, m in list(sys.modules.items()) if name.startswith("tfguard") and m is not None]:
            for name, value in list(vars(module).items()):
                if value is original:
                    replacements.append((module, name, value))
                    setattr(module, name, raiser)
        # A judge is called through its diagnostic's declaration (judge.all_diagnostics()), not by name.
        from tfguard.runtime.judge import all_diagnostics

        registry = all_diagnostics()
        for code, declaration in list(registry.items()):
            if declaration.judge is original:
                declared.append((code, declaration))
                registry[code] = declaration._replace(judge=raiser)
    else:
        if isinstance(original, property):
            fake: Any = property(raiser, original.fset)
        elif isinstance(original, staticmethod):
            fake = staticmethod(raiser)
        elif isinstance(original, classmethod):
            fake = classmethod(raiser)
        else:
            fake = raiser
        replacements.append((owner, attribute, original))
        setattr(owner, attribute, fake)
    try:
        yield
    finally:
        for target, name, value in replacements:
            setattr(target, name, value)
        for code, declaration in declared:
            all_diagnostics()[code] = declaration


def tensorflow_state() -> List[Tuple[Any, str, Any]]:
    """What tfguard patches at class level and in sys.meta_path: put back after each injected run, so that one
    injection's leftovers (a patch its failure kept in place) cannot change the next one's outcome."""
    from tensorflow.python.training import monitored_session

    saved = [(cls, name, cls.__dict__[name]) for cls, name in (
        (tf.Session, "__init__"), (tf.InteractiveSession, "__init__"), (tf.train.Saver, "save"),
        (monitored_session._HookedSession, "__init__"))]
    return saved + [(sys, "meta_path", list(sys.meta_path))]


def reset(saved: List[Tuple[Any, str, Any]]) -> None:
    """Put back `tensorflow_state()` and tfguard's registries of patched objects."""
    from tfguard.runtime.capture.graph_patch import GraphPatch
    from tfguard.runtime.capture.saver_patch import SaverPatch
    from tfguard.runtime.capture.session_tap import SessionTap

    for owner, name, value in saved:
        setattr(owner, name, value)
    _reset_capture_modules()
    SessionTap._taps.clear()
    GraphPatch._patches.clear()
    SaverPatch._count, SaverPatch._owner, SaverPatch._original = 0, None, None
    tf.reset_default_graph()


def _reset_capture_modules() -> None:
    """The TF2 capture modules' registries (sinks, import hooks, the patches' undo lists), as a new process has
    them: a sink an injected failure left attached would keep the next runs from patching anything."""
    from tfguard.runtime.capture import function_calls, keras_calls, step_hooks

    for module in (keras_calls, step_hooks, function_calls):
        del module._sinks[:]
        for hooks in (getattr(module, "_imports", []), getattr(module, "_hooks", [])):
            while hooks:
                with contextlib.suppress(Exception):
                    hooks.pop().remove()
        while module._undo:
            with contextlib.suppress(Exception):
                module._undo.pop()()


def fresh(workdir: str) -> None:
    """An empty working folder, and a default graph as a new process has."""
    for name in os.listdir(workdir):
        path = os.path.join(workdir, name)
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    tf.reset_default_graph()


def inject(program: List[str], points: List[Tuple[str, Any, str, Any]], options: List[str], saved: List[Any],
           workdir: str, expected_out: str, expected_files: Dict[str, Optional[str]]) -> List[Dict[str, Any]]:
    """Run the program under `tfguard run OPTIONS` once per point, that point raising; one result each."""
    results = []
    for name, owner, attribute, original in points:
        fired = [0]
        fresh(workdir)
        before = len(safety.failures)
        with injected(owner, attribute, original, fired):
            out, status, err = run_guarded(program, options)
        reset(saved)
        results.append({
            "point": name, "fired": fired[0], "stdout_same": out == expected_out,
            "files_same": files_of(workdir) == expected_files, "status": status,
            "warning_lines": len(safety.failures) - before,
            "traceback": "Traceback" in err, "stderr_tail": err[-600:] if out != expected_out or "Traceback" in err
            else ""})
    return results


def main(argv: Optional[List[str]] = None) -> int:
    """Run the injections on a program (and the second pass, with --also-fail-on); print one JSON line: points,
    failures (mismatches), not fired."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--fail-on", default=None)
    parser.add_argument("--only", default=None, help="inject only into names containing this")
    parser.add_argument("--also-fail-on", default=None, help="then a second pass under --fail-on this")
    parser.add_argument("--also-only", default="", help="the second pass injects only into names containing this")
    parser.add_argument("program", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    program = [os.path.abspath(args.program[0])] + args.program[1:]
    workdir = tempfile.mkdtemp(prefix="tfguard-faults-")
    os.chdir(workdir)
    fresh(workdir)
    expected_out, expected_status = run_plain(program)
    expected_files = files_of(workdir)
    saved = tensorflow_state()
    # One guarded run first, unprofiled: what tfguard does once per process (patching classes when TensorFlow's
    # modules load, filling caches) is done then, so the profiled run lists only what every guarded run reaches.
    fresh(workdir)
    run_guarded(program, [])
    reset(saved)
    reached, around = reached_functions(program, workdir)
    reset(saved)
    points = patch_points(reached)
    if args.only:
        points = [p for p in points if args.only in p[0]]
    results = inject(program, points, ["--fail-on", args.fail_on] if args.fail_on else [], saved, workdir,
                     expected_out, expected_files)
    # A second pass in the same process (TensorFlow loaded, the points found once) under other options: the
    # points of the first pass, those whose name holds --also-only, under --fail-on --also-fail-on.
    also = inject(program, [p for p in points if args.also_only in p[0]], ["--fail-on", args.also_fail_on], saved,
                  workdir, expected_out, expected_files) if args.also_fail_on else []
    summary = {"expected_status": expected_status, "expected_stdout": expected_out, "reached": len(reached),
               "around_program": sorted(c.co_name for c in around if _tfguard_code(c)), "results": results,
               "also_results": also}
    sys.stdout.write(json.dumps(summary) + "\n")
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
