"""Guard the TensorFlow sessions of one pytest test: those it creates, and those it hands to ``tfguard_guard``.

Sessions are watched as ``tfguard run`` watches them (the runtime's SessionWatcher, installed from the test's
set-up to the end of its call), so a session made by a function-scoped fixture or a ``tf.test.TestCase``'s
``self.session()`` is covered. Each guarded session also notes the graph size after its warm-up runs, which
the reports do not keep per run, so that a budget of new ops counts only what was built after warm-up.
"""

from __future__ import annotations

import functools
import os
import statistics
import sys
from dataclasses import replace
from typing import Any, Dict, List, Optional, Tuple

from tfguard.runtime.document import display_path
from tfguard.runtime.judge.judgement import judge_run
from tfguard.runtime.verdict import Diagnostic, FunctionsVerdict, RunVerdict

#: Default of the marker's ``warmup_runs``: what the first run builds (lazily made ops) is set-up.
DEFAULT_WARMUP_RUNS = 1


class WarmupMark:
    """Counts one session's runs and keeps its graph size right after the ``warmup_runs``-th run."""

    __slots__ = ("graph", "warmup_runs", "runs", "nodes_after_warmup")

    def __init__(self, graph: Any, warmup_runs: int) -> None:
        self.graph = graph
        self.warmup_runs = warmup_runs
        self.runs = 0
        self.nodes_after_warmup: Optional[int] = graph.version if warmup_runs == 0 else None

    def count_run(self) -> None:
        """Note one finished run."""
        self.runs += 1
        if self.runs == self.warmup_runs:
            self.nodes_after_warmup = self.graph.version

    def new_ops(self, nodes_end: int) -> Optional[int]:
        """Ops added after warm-up, None when the session never finished its warm-up runs."""
        if self.nodes_after_warmup is None:
            return None
        return max(0, nodes_end - self.nodes_after_warmup)


class GuardedSession:
    """One guarded session of a test: where it came from, its final report and its warm-up mark."""

    def __init__(self, origin: str, report: Any, mark: WarmupMark) -> None:
        #: ``"created at tests/test_x.py:12"`` or ``"tfguard_guard at tests/test_x.py:20"``.
        self.origin = origin
        self.report = report
        self.mark = mark

    @property
    def new_ops_after_warmup(self) -> Optional[int]:
        """Ops added to the graph after the warm-up runs (None: warm-up not finished)."""
        return self.mark.new_ops(self.report.nodes_end)


def _watcher_class() -> type:
    """The SessionWatcher that also counts each watched session's runs (imported on first use: TensorFlow's
    patches are only ever installed for a guarded test)."""
    from tfguard.runtime.run.autowatch import SessionWatcher

    class TestSessionWatcher(SessionWatcher):
        """`tfguard run`'s watcher, with a warm-up mark per session and the session's identity kept."""

        def __init__(self, warmup_runs: int, test_file: Optional[str]) -> None:
            super().__init__()
            self.warmup_runs = warmup_runs
            self.test_file = test_file
            self.marks: Dict[int, WarmupMark] = {}
            self.session_ids: Dict[int, int] = {}

        def _begin(self, session: Any) -> None:
            super()._begin(session)
            watched = self.sessions[-1]
            if watched.guard is None:  # tfguard failed on it (safety.py): no budgets to mark
                return
            # The line `tfguard run` names (the user's frame: a project helper's when one made the session), so that
            # both report the same place; the test's own line only where that frame is the standard library's
            # (tf.test.TestCase.session is a contextlib context manager) or unknown.
            test_line = _line_in(self.test_file)
            if test_line is not None and not _project_site(watched.created_at):
                watched.created_at = test_line
            self.marks[watched.number] = WarmupMark(session.graph, self.warmup_runs)
            self.session_ids[watched.number] = id(session)

        def _after_run(self, watched: Any) -> None:
            try:
                mark = self.marks.get(watched.number)
                if mark is not None:
                    mark.count_run()
            except Exception as exc:  # tfguard's error, never the test's
                from tfguard.runtime.safety import internal_error

                self._give_up(watched, internal_error("the test's warm-up count", exc))
            super()._after_run(watched)

    return TestSessionWatcher


def tf2_facts(program: Dict[str, Any], functions: List[Any], loop: Optional[Dict[str, Any]] = None
              ) -> Dict[str, Any]:
    """What a TF2 test's row and budgets read: its steps (calls of its most called step function, the one series
    of run/step_watch.py, or Keras train batches when more; where neither ran, the training loop's eager steps:
    `loop`, run/step_watch.py's figures), the tf.functions it called or traced (`functions`: FunctionRecords) and
    their traces, the most host syncs one line made per step, the largest share of a batch one callback took, the
    most small-input predict/evaluate calls one line made (from the program's figures, run/program_watch.py)."""
    from tfguard.runtime.judge.predict_in_loop import SMALL_ROWS

    steps = program["steps"]
    if not steps["count"] and loop and loop.get("mode") == "eager" and loop.get("steps"):
        # An eager loop calls no tf.function: its steps are its apply_gradients calls.
        intervals = loop.get("intervals") or [loop["wall_seconds"] / loop["steps"]]
        steps = {"name": "eager", "count": loop["steps"], "seconds": statistics.median(intervals)}
    per_line: Dict[Any, int] = {}
    for site in program["host_syncs"]:
        per_line[(site["path"], site["line"])] = per_line.get((site["path"], site["line"]), 0) + site["count"]
    batch = program.get("batch_median_seconds") or 0.0
    batches = program.get("train_batches") or 0
    return {
        "steps": steps["count"], "step_name": steps["name"], "step_s": steps["seconds"] if steps["count"] else None,
        "functions": len(functions), "traces": sum(f.traced_call_count for f in functions),
        "syncs_per_step": max(per_line.values()) / steps["count"] if per_line and steps["count"] else 0.0,
        "callback_share": max((c["seconds"] / batches / batch for c in program["callbacks"]), default=0.0)
        if batches and batch > 0 else 0.0,
        "predict_calls": max((c["calls"] for c in program["model_calls"]
                              if c["median_rows"] is not None and c["median_rows"] <= SMALL_ROWS), default=0),
    }


class TestGuard:
    """Everything tfguard guards in one test; ``finish()`` returns the guarded sessions."""

    __test__ = False  # not a test class, whatever pytest's python_classes say

    def __init__(self, warmup_runs: int = DEFAULT_WARMUP_RUNS, watch_sessions: bool = True,
                 test_file: Optional[str] = None) -> None:
        self.warmup_runs = warmup_runs
        self._watcher: Any = _watcher_class()(warmup_runs, test_file) if watch_sessions else None
        self._explicit: List[Any] = []  # (block, mark, session id) of tfguard_guard blocks
        self.sessions: Optional[List[GuardedSession]] = None
        self.setup_error: Optional[str] = None
        #: The test's tf.function watch (TFG908) and, once finished, its functions judged.
        self._functions: Any = None
        self._functions_judged: Optional[Tuple[FunctionsVerdict, List[Diagnostic]]] = None
        #: The test's watch of Keras calls, callbacks and host syncs (TFG910-TFG912), once finished its figures and
        #: diagnostics, and the TF2 facts its row and budgets read (`tf2_facts`).
        self._program: Any = None
        self._program_judged: Optional[Tuple[Dict[str, Any], List[Diagnostic]]] = None
        #: The test's watch of its training loop (TFG909, TFG902-TFG905's TF2 cases), once finished its steps'
        #: figures and diagnostics (None when it saw no training).
        self._steps: Any = None
        self._steps_judged: Optional[Tuple[Dict[str, Any], List[Diagnostic]]] = None
        self.tf2: Optional[Dict[str, Any]] = None

    def start(self) -> None:
        """Watch every session created from now on (patches TensorFlow when the test imports it), and every
        tf.function call and trace."""
        if self._watcher is not None:
            self._watcher.install()
            from tfguard.runtime.run.function_watch import FunctionWatch

            self._functions = FunctionWatch(alerts_through_warnings=False)  # as its sessions: alerts on stderr
            self._functions.start()
            from tfguard.runtime.run.program_watch import ProgramWatch
            from tfguard.runtime.run.step_watch import StepWatch

            # the test's one step series (the calls of the function that applies gradients), which its row reads
            self._steps = StepWatch()
            self._steps.start()
            self._program = ProgramWatch(self._steps)
            self._program.start()

    def guard(self, session: Any, frozen: bool = False, **options: Any) -> "ExplicitGuard":
        """A ``with`` block guarding `session` (``tfguard.watch``, or ``tfguard.frozen`` with frozen=True)."""
        block = ExplicitGuard(session, frozen, self.warmup_runs, options)
        self._explicit.append(block)
        return block

    def finish(self) -> List[GuardedSession]:
        """End the watch (idempotent) and return the guarded sessions, explicit blocks first."""
        if self.sessions is not None:
            return self.sessions
        functions, self._functions = self._functions, None
        program, self._program = self._program, None
        steps, self._steps = self._steps, None
        called: List[Any] = []
        if functions is not None:
            functions.stop()
            if functions.available and not functions.failed:
                self._functions_judged = functions.judged()
                called = [record for record in functions.records if record.calls or record.traces]
        if steps is not None:  # before the program's watch, which reads its step series (run/program_watch.py)
            steps.stop()
            if steps.saw_training:
                self._steps_judged = steps.judged()
        if program is not None:
            program.stop()
            self._program_judged = program.judged()
            if self._program_judged is not None:
                self.tf2 = tf2_facts(self._program_judged[0], called,
                                     self._steps_judged[0] if self._steps_judged is not None else None)
        found = []
        explicit_ids = set()
        for block in self._explicit:
            if block.guard is not None and block.entered:
                block.close_if_open()
                if block.guard.failed:
                    continue
                explicit_ids.add(block.session_id)
                found.append(GuardedSession("tfguard_guard at %s" % block.site, block.guard.report, block.mark))
        if self._watcher is not None:
            watcher = self._watcher
            for watched in watcher.finish():
                if watched.report is None:  # tfguard failed internally on it: said on stderr, not judged
                    continue
                if watcher.session_ids.get(watched.number) in explicit_ids:
                    continue  # the test guarded this one itself: its own block's report stands for it
                found.append(GuardedSession("created at %s" % watched.created_at, watched.report,
                                            watcher.marks[watched.number]))
            self.setup_error = watcher.setup_error
        self.sessions = found
        return found

    def run_verdict(self) -> RunVerdict:
        """The test's run verdict (after `finish`): its guarded sessions (numbered from 1 in `finish`'s order,
        created where their origin says), the growth across them and its tf.functions, judged once."""
        sessions = [(replace(guarded.report.session, number=number, created_at=guarded.origin), guarded.report.findings)
                    for number, guarded in enumerate(self.finish(), 1)]
        verdict = judge_run({}, sessions, self._functions_judged, self._program_judged)
        if self._steps_judged is not None:  # as runner.run_verdict: the steps' figures and their diagnostics
            verdict.facts["steps"] = self._steps_judged[0]
            verdict.diagnostics += self._steps_judged[1]
        return verdict


class ExplicitGuard:
    """``with tfguard_guard(sess) as g:``: a tfguard guard whose warm-up is marked for the test's budgets.

    ``as g`` gives the tfguard Guard itself (``g.report``), as ``with tfguard.watch(sess) as g`` would.
    """

    def __init__(self, session: Any, frozen: bool, warmup_runs: int, options: Dict[str, Any]) -> None:
        import tfguard

        self.guard = (tfguard.frozen if frozen else tfguard.watch)(session, **options)
        self.session_id = id(session)
        self.mark = WarmupMark(session.graph, warmup_runs)
        self.entered = False
        self._open = False
        self._session = session
        self._tapped_run: Any = None
        self.site = _caller_site()

    def __enter__(self) -> Any:
        guard = self.guard.__enter__()
        self.entered = self._open = True
        tapped_run, mark = self._session.run, self.mark

        @functools.wraps(tapped_run)
        def run(*args: Any, **kwargs: Any) -> Any:
            result = tapped_run(*args, **kwargs)
            mark.count_run()
            return result

        self._tapped_run = tapped_run
        self._session.run = run
        return guard

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        self._open = False
        self._session.run = self._tapped_run  # the guard then restores what it found
        return self.guard.__exit__(exc_type, exc, tb)

    def close_if_open(self) -> None:
        """End a block the test left open (an exception between ``__enter__`` and ``__exit__``)."""
        if self._open:
            self.__exit__(None, None, None)


def _caller_site() -> str:
    """``path:line`` of the test code that called ``tfguard_guard(...)``."""
    frame = sys._getframe(1)
    here = os.path.dirname(os.path.abspath(__file__))
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == here:
        frame = frame.f_back
    return "<unknown>" if frame is None else _site(frame)


def _line_in(test_file: Optional[str]) -> Optional[str]:
    """``path:line`` of the innermost frame of the stack running in `test_file`, None when none is."""
    if test_file is None:
        return None
    frame = sys._getframe(1)
    while frame is not None:
        if os.path.abspath(frame.f_code.co_filename) == test_file:
            return _site(frame)
        frame = frame.f_back
    return None


def _project_site(site: str) -> bool:
    """Whether ``path:line`` names a file of the project: not ``<unknown>``, not the standard library's."""
    import sysconfig

    path = site.rsplit(":", 1)[0]
    if path.startswith("<") or not path:
        return False
    absolute = os.path.realpath(os.path.abspath(path))
    library = [os.path.realpath(sysconfig.get_paths()[key]) for key in ("stdlib", "platstdlib")]
    return not any(absolute.startswith(folder + os.sep) for folder in library)


def _site(frame: Any) -> str:
    return "%s:%d" % (display_path(frame.f_code.co_filename), frame.f_lineno)
