"""The pytest plugin (entry point ``pytest11``): ``pytest --tfguard`` gives every test that uses a TensorFlow
session its own verdict.

- ``--tfguard`` guards every test; ``@pytest.mark.tfguard(...)`` guards one test (and sets its budgets).
  Without either, the plugin does nothing: no TensorFlow patch, no output, no verdict.
- A guarded test fails when its graph keeps growing after warm-up (TFG901 error) or a tf.function keeps
  retracing (TFG908 warning), or on the diagnostics ``--tfguard-fail-on`` names (the names of ``tfguard run
  --fail-on``; ``none`` to only report), or when it exceeds a marker budget: ``max_new_ops``/``warmup_runs``,
  ``max_step_ms``, ``max_input_bound``.
- ``tfguard_guard(sess)`` guards a session explicitly (``with tfguard_guard(sess) as g: ...``).
- The verdicts travel on the test reports (pytest-xdist workers included); the controller prints the table.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterator, List, Optional

import pytest

from tfguard.integrations.budgets import DEFAULT_FAIL_ON, Budget, BudgetError, session_record, verdict
from tfguard.integrations.guarded import DEFAULT_WARMUP_RUNS, TestGuard

MARKER = "tfguard"
#: The attribute of a test's "call" report that carries its verdict (plain data, so xdist serialises it).
REPORT_ATTRIBUTE = "tfguard"
_GUARD = pytest.StashKey[TestGuard]()
_BUDGET = pytest.StashKey[Optional[Budget]]()
_VERDICT = pytest.StashKey[Dict[str, Any]]()


def pytest_addoption(parser: Any) -> None:
    """``--tfguard`` and ``--tfguard-fail-on``."""
    group = parser.getgroup("tfguard", "tfguard: guard the TensorFlow sessions of each test")
    group.addoption("--tfguard", action="store_true", default=False,
                    help="guard every test's TensorFlow sessions: a verdict per test, a summary table at the "
                         "end, and a test whose graph keeps growing after warm-up (TFG901) fails")
    group.addoption("--tfguard-fail-on", metavar="NAMES", default=None,
                    help="fail a guarded test when these diagnostics fire as errors or warnings: "
                         "comma-separated names of `tfguard run --fail-on` (growth, slowdown, input-bound, "
                         "summaries, saves, cpu-fallback, retracing, predict-in-loop, slow-callback, "
                         "host-syncs), or `none` to only report (default: growth, "
                         "retracing)")


def fail_on_codes(value: Optional[str]) -> Dict[str, str]:
    """``--tfguard-fail-on`` as {name: code}; a bad value raises pytest.UsageError."""
    from tfguard.runtime.judge import fail_on_codes, fail_on_name

    FAIL_ON = fail_on_codes()  # noqa: N806 - the table the command line's --fail-on reads too

    if value is None:
        return dict(DEFAULT_FAIL_ON)
    names = [fail_on_name(name) for name in value.split(",") if name.strip()]  # names or codes, any case
    if names == ["none"]:
        return {}
    unknown = [name for name in names if name not in FAIL_ON]
    if unknown or not names:
        raise pytest.UsageError("--tfguard-fail-on: unknown name %r (choose from %s, or none)" % (
            (unknown or [value])[0], ", ".join(FAIL_ON)))
    return {name: FAIL_ON[name] for name in names}


def pytest_configure(config: Any) -> None:
    """Declare the marker and register the session's plugin object."""
    config.addinivalue_line("markers", "tfguard(max_new_ops=None, warmup_runs=%d, max_step_ms=None, "
                                       "max_input_bound=None): guard this test's TensorFlow sessions (tfguard) and "
                                       "fail it when it exceeds a budget" % DEFAULT_WARMUP_RUNS)
    given = config.getoption("tfguard_fail_on")
    plugin = TfguardPlugin(config.getoption("tfguard"), fail_on_codes(given), fail_on_given=given is not None)
    config.pluginmanager.register(plugin, "tfguard-session")


@pytest.fixture
def tfguard_guard(request: Any) -> Iterator[Any]:
    """``tfguard_guard(sess, frozen=False, **options)``: a ``with`` block guarding `sess` (``tfguard.watch``, or
    ``tfguard.frozen`` with frozen=True); ``as g`` gives the guard, ``g.report`` its report. In a guarded test
    (``--tfguard`` or the marker) the block's report is part of the test's verdict and budgets."""
    state = request.node.stash.get(_GUARD, None)
    if state is not None:
        yield state.guard
        return
    budget = _budget_of(request.node)
    local = TestGuard(budget.warmup_runs if budget else DEFAULT_WARMUP_RUNS, watch_sessions=False)
    try:
        yield local.guard
    finally:
        local.finish()


def _budget_of(item: Any) -> Optional[Budget]:
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        return None
    try:
        return Budget.from_marker(marker.args, marker.kwargs)
    except BudgetError as exc:
        raise pytest.UsageError("%s: @pytest.mark.tfguard %s" % (item.nodeid, exc)) from None


class TfguardPlugin:
    """The hooks of one pytest run: guard each guarded test, judge it, and print the table at the end."""

    def __init__(self, everywhere: bool, fail_on: Dict[str, str], fail_on_given: bool = False) -> None:
        self.everywhere = everywhere
        self.fail_on = fail_on
        self.fail_on_given = fail_on_given
        #: Verdicts of the tests of this run (from this process's tests, or from xdist workers' reports).
        self.verdicts: List[Dict[str, Any]] = []
        self.guardeds = 0

    def pytest_collection_modifyitems(self, items: List[Any]) -> None:
        """Check every marker's arguments before any test runs (a bad one is a usage error)."""
        for item in items:
            _budget_of(item)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item: Any) -> Iterator[None]:
        """Start watching before the fixtures run, so that a session a fixture creates is guarded too."""
        budget = _budget_of(item)
        if self.everywhere or budget is not None:
            try:
                state = TestGuard(budget.warmup_runs if budget else DEFAULT_WARMUP_RUNS,
                                  test_file=os.path.abspath(str(item.path)))
                item.stash[_GUARD] = state
                item.stash[_BUDGET] = budget
                state.start()
            except Exception as exc:  # the test runs unguarded
                _internal_error("the pytest plugin's set-up", exc, item)
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: Any) -> Iterator[None]:
        """Judge the test right after its body (and a TestCase's tearDown) ran."""
        yield
        self._judge(item)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: Any, nextitem: Any) -> Iterator[None]:
        """End the watch of a test whose set-up failed (its call never ran)."""
        state = item.stash.get(_GUARD, None)
        if state is not None:
            try:
                state.finish()
            except Exception as exc:
                _internal_error("the pytest plugin's teardown", exc, item)
        yield

    def _judge(self, item: Any) -> None:
        try:
            self._judge_test(item)
        except Exception as exc:  # no verdict: the test's own outcome stands
            item.stash[_VERDICT] = None
            _internal_error("the pytest plugin's verdict", exc, item)

    def _judge_test(self, item: Any) -> None:
        state = item.stash.get(_GUARD, None)
        if state is None:
            return
        self.guardeds += 1
        records = [session_record(guarded) for guarded in state.finish()]
        result = verdict(state.run_verdict(), records, item.stash.get(_BUDGET, None), self.fail_on,
                         self.fail_on_given, state.tf2)
        result["nodeid"] = item.nodeid
        result["budgets"] = item.stash[_BUDGET].asserted() if item.stash.get(_BUDGET, None) else []
        if state.setup_error:
            result["failures"].insert(0, "could not watch sessions: %s" % state.setup_error)
            result["causes"].insert(0, "tfguard could not watch sessions: %s" % state.setup_error)
            result["label"] = "FAILED"
        item.stash[_VERDICT] = result

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: Any, call: Any) -> Iterator[None]:
        """Put the verdict on the test's report, and fail a passing test whose verdict fails."""
        outcome = yield
        if call.when != "call":
            return
        result = item.stash.get(_VERDICT, None)
        if result is None:
            return
        report = outcome.get_result()
        setattr(report, REPORT_ATTRIBUTE, result)
        if result["failures"] and report.passed:
            report.outcome = "failed"
            report.longrepr = failure_text(result)

    def pytest_runtest_logreport(self, report: Any) -> None:
        """Collect verdicts (an xdist controller gets them on its workers' reports)."""
        result = getattr(report, REPORT_ATTRIBUTE, None)
        if report.when == "call" and isinstance(result, dict):
            self.verdicts.append(result)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """The per-test table, like pytest-benchmark's, when any test was guarded."""
        if not self.verdicts and not (self.everywhere or self.guardeds):
            return
        terminalreporter.write_sep("-", "tfguard")
        try:
            lines = summary_lines(self.verdicts)
        except Exception as exc:
            _internal_error("the pytest plugin's summary", exc, None)
            return
        for line in lines:
            terminalreporter.write_line(line)


def _internal_error(where: str, exc: BaseException, item: Any) -> None:
    """tfguard's own error in a hook: one warning line (safety.py), never the test's failure."""
    from tfguard.runtime.safety import internal_error

    internal_error(where, exc, "guarding %s" % (item.nodeid if item is not None else "the tests"))


def failure_text(result: Dict[str, Any]) -> str:
    """The failure shown for a test its guard failed: its cause and line first (the line pytest's short summary,
    ``-ra``, shows), then the test and one line per reason (with the sites)."""
    causes = result.get("causes") or []
    lines = []
    if causes:
        lines.append(causes[0] + ("; and %d more" % (len(causes) - 1) if len(causes) > 1 else ""))
    lines.append("tfguard: %s failed its guard:" % result["nodeid"])
    lines += ["  " + failure for failure in result["failures"]]
    return "\n".join(lines)


def summary_lines(verdicts: List[Dict[str, Any]]) -> List[str]:
    """The end-of-run table: one row per test that used a session, and a count of the others."""
    from tfguard.runtime.document import format_seconds
    from tfguard.runtime.output.fit import fit_records, terminal_width

    used = [v for v in verdicts if v["sessions"] or v.get("functions") or _ran_tf2(v)]
    tf2 = [v for v in used if not v["sessions"]]
    rows = []
    for v in sorted((v for v in used if v["sessions"]), key=lambda v: v["nodeid"]):
        new = v["new_ops_after_warmup"]
        rows.append([v["nodeid"], len(v["sessions"]), v["runs"], v["ops_added"], "-" if new is None else new,
                     format_seconds(v["step_s"]), "-" if v["host_fraction"] is None else "%.0f%%" % (
                         v["host_fraction"] * 100), "too short" if v["slowdown"] is None else "x%.2f" % v["slowdown"],
                     ", ".join(v["codes"]) or "-", v["label"]])
    failed = sum(1 for v in used if v["failures"])
    ran = ", %d ran TF2 steps or tf.functions" % len(tf2) if tf2 else ""
    lines = ["%d test%s guarded: %d used a TensorFlow session%s, %d failed its guard" % (
        len(verdicts), "" if len(verdicts) == 1 else "s", len(used) - len(tf2), ran, failed)]
    if rows:
        # 80 columns or COLUMNS, as the run report: too wide a table becomes one record per test
        lines += fit_records(rows, ["test", "sessions", "runs", "ops added", "after warm-up", "step median", "host",
                                    "slowdown", "diagnostics", "verdict"], terminal_width(),
                             disable_numparse=True).splitlines()
    if tf2:
        lines += fit_records([_tf2_row(v) for v in sorted(tf2, key=lambda v: v["nodeid"])],
                             ["test", "steps", "step median", "functions", "traces", "syncs/step", "diagnostics",
                              "verdict"], terminal_width(), disable_numparse=True).splitlines()
    return lines


def _ran_tf2(verdict: Dict[str, Any]) -> bool:
    """Whether a test ran TF2 steps or traced tf.functions (its row then speaks of those, not of sessions)."""
    facts = verdict.get("tf2") or {}
    return bool(facts.get("steps") or facts.get("functions") or verdict.get("codes"))


def _tf2_row(verdict: Dict[str, Any]) -> List[Any]:
    """A TF2 test's row: its steps (calls of its most called step function, or Keras train batches), their median
    time, its traced tf.functions and their traces, the most host syncs one line made per step."""
    from tfguard.runtime.document import format_seconds

    facts = verdict.get("tf2") or {}
    steps = facts.get("steps") or 0
    return [verdict["nodeid"], "%d (%s)" % (steps, facts.get("step_name")) if steps else "-",
            format_seconds(facts.get("step_s")), facts.get("functions", 0), facts.get("traces", 0),
            "%.1f" % facts["syncs_per_step"] if steps else "-", ", ".join(verdict["codes"]) or "-", verdict["label"]]
