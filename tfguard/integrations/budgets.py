"""One test's verdict: the ``@pytest.mark.tfguard(...)`` budgets and ``--tfguard-fail-on`` checked on its run.

``--tfguard-fail-on`` reads the test's run verdict (runtime/verdict.py: its sessions, across them and its
tf.functions, judged once), so that a test fails on what the runtime's own report says; the budgets read each
session's figures. The test's verdict is plain JSON-ready data: it travels from an xdist worker to the controller
on the test's report.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence

from tfguard.integrations.guarded import DEFAULT_WARMUP_RUNS
from tfguard.integrations.tf2_budgets import TF2_BUDGETS, check_tf2_budgets, tf2_budget_value
from tfguard.runtime.document import display_path
from tfguard.runtime.judge import code_of
from tfguard.runtime.verdict import FUNCTION, SESSION, Diagnostic, RunVerdict

#: The marker's keyword arguments, all optional.
BUDGET_NAMES = ("max_new_ops", "warmup_runs", "max_step_ms", "max_input_bound") + TF2_BUDGETS
#: What a guarded test fails on without --tfguard-fail-on: the graph keeps growing (graph-growth errors), a
#: tf.function keeps retracing (function-retracing warnings).
DEFAULT_FAIL_ON = {"growth": code_of("growth"), "retracing": code_of("retracing")}


class BudgetError(ValueError):
    """A ``@pytest.mark.tfguard`` marker with a bad argument (one line, names the argument)."""


class Budget:
    """The budgets one test asserts (``None``: not asserted)."""

    def __init__(self, max_new_ops: Optional[int] = None, warmup_runs: int = DEFAULT_WARMUP_RUNS,
                 max_step_ms: Optional[float] = None, max_input_bound: Optional[float] = None) -> None:
        self.max_new_ops = max_new_ops
        self.warmup_runs = warmup_runs
        self.max_step_ms = max_step_ms
        self.max_input_bound = max_input_bound
        #: The TF2 budgets (tf2_budgets.TF2_BUDGETS) asserted, by name.
        self.tf2: Dict[str, float] = {}

    @classmethod
    def from_marker(cls, args: Sequence[Any], kwargs: Dict[str, Any]) -> "Budget":
        """Check a marker's arguments; a bad one raises BudgetError."""
        if args:
            raise BudgetError("takes keyword arguments only (%s)" % ", ".join(BUDGET_NAMES))
        unknown = sorted(set(kwargs) - set(BUDGET_NAMES))
        if unknown:
            raise BudgetError("unknown argument %s (known: %s)" % (unknown[0], ", ".join(BUDGET_NAMES)))
        budget = cls()
        for name in ("max_new_ops", "warmup_runs"):
            if kwargs.get(name) is not None:
                value = kwargs[name]
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise BudgetError("%s must be a whole number of at least 0, got %r" % (name, value))
                setattr(budget, name, value)
        if kwargs.get("max_step_ms") is not None:
            budget.max_step_ms = _number(kwargs["max_step_ms"], "max_step_ms", low=0.0, high=math.inf)
        if kwargs.get("max_input_bound") is not None:
            budget.max_input_bound = _number(kwargs["max_input_bound"], "max_input_bound", low=0.0, high=1.0)
        for name in TF2_BUDGETS:
            if kwargs.get(name) is not None:
                try:
                    budget.tf2[name] = tf2_budget_value(name, kwargs[name])
                except ValueError as exc:
                    raise BudgetError(str(exc)) from None
        return budget

    def asserted(self) -> List[str]:
        """``["max_new_ops=0", ...]``: the budgets this test asserts."""
        return ["%s=%s" % (name, getattr(self, name)) for name in ("max_new_ops", "max_step_ms", "max_input_bound")
                if getattr(self, name) is not None] + ["%s=%s" % item for item in self.tf2.items()]


def _number(value: Any, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low < value <= high:
        bound = "above 0" if high == math.inf else "above %g and at most %g" % (low, high)
        raise BudgetError("%s must be a number %s, got %r" % (name, bound, value))
    return float(value)


def step_time(report: Any) -> Optional[float]:
    """Seconds per step of a session: the median interval between runs of its dominant fetch signature (its
    run time when it ran once); None without runs."""
    signatures = report.signatures
    if not signatures:
        return None
    label = getattr(report, "dominant_signature", None)
    dominant = next((s for s in signatures if s["label"] == label), None) or max(signatures, key=lambda s: s["count"])
    return dominant["interval"]["median"] if dominant["interval"]["median"] is not None \
        else dominant["run_time"]["median"]


def session_record(guarded: Any) -> Dict[str, Any]:
    """The JSON-ready facts of one guarded session (a GuardedSession)."""
    report = guarded.report
    return {
        "origin": guarded.origin,
        "runs": report.runs,
        "nodes_added": report.nodes_added,
        "new_ops_after_warmup": guarded.new_ops_after_warmup,
        "warmup_runs": guarded.mark.warmup_runs,
        "step_s": step_time(report),
        "host_fraction": report.host_fraction if report.runs >= report.options["min_runs"] else None,
        "slowdown": _judged_slowdown(report),
        "growth_sites": ["%s:%d (%s, %s)" % (display_path(path), line, _plural(ops, "op"), kind)
                         for path, line, ops, _events, kind in report.growth_sites if kind != "setup"][:3],
        "repeated_growth": [["%s:%d" % (display_path(path), line), ops]
                            for path, line, ops, _events, kind in report.growth_sites if kind == "repeated"][:3],
        "diagnostics": [[d.code, d.severity, d.headline] for d in report.findings],
    }


def _judged_slowdown(report: Any) -> Optional[float]:
    """The report's slowdown ratio when its slowdown test could judge the run, else None.

    A run too short for the test (under about 1.5 s of runs: too few readings of the process CPU clock, so no
    ``wall_per_run_growth``) is never judged slower, and its raw ratio is jitter: it is not shown.
    """
    ratio = getattr(report, "slowdown", None)
    if ratio is None:
        return None
    if getattr(report, "slowdown_significant", False) or getattr(report, "wall_per_run_growth", None) is not None:
        return ratio
    return None


def _grew(record: Dict[str, Any]) -> str:
    """``graph grew by 600 ops at test_x.py:10``: a session's repeated growth, its top site first."""
    sites = record.get("repeated_growth") or []
    if not sites:
        return ""
    return "graph grew by %s at %s" % (_plural(sum(ops for _, ops in sites), "op"), sites[0][0])


#: A cause in pytest's one-line summary says this much of a headline.
_CAUSE_CHARS = 100


def _cause(diagnostic: Diagnostic, record: Optional[Dict[str, Any]]) -> str:
    """The short cause of a failing diagnostic, for pytest's one-line summary: what, where, then the code."""
    code = diagnostic.code
    if record is not None and code == DEFAULT_FAIL_ON["growth"] and _grew(record):
        return "%s (%s)" % (_grew(record), code)
    if diagnostic.scope == FUNCTION and diagnostic.blamed is not None:
        return "`%s` keeps retracing, called from %s:%d (%s)" % (
            diagnostic.evidence.get("function"), display_path(diagnostic.blamed.path), diagnostic.blamed.line, code)
    headline = diagnostic.headline
    return "%s (%s)" % (headline if len(headline) <= _CAUSE_CHARS else headline[:_CAUSE_CHARS - 3] + "...", code)


def _where(diagnostic: Diagnostic, sessions: List[Dict[str, Any]]) -> str:
    """``, session created at x.py:3`` for a session's diagnostic, `` (across sessions)`` for another scope's but
    a tf.function's ("" for that)."""
    if diagnostic.scope == SESSION:
        return ", session %s" % sessions[diagnostic.session - 1]["origin"]
    return "" if diagnostic.scope == FUNCTION else " (%s)" % diagnostic.scope.replace("-", " ")


def verdict(run: RunVerdict, sessions: List[Dict[str, Any]], budget: Optional[Budget], fail_on: Dict[str, str],
            fail_on_given: bool = True, tf2: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The test's verdict from its run verdict (`run`, its sessions numbered from 1) and its sessions' records
    (`sessions`, in that order): totals, failures (one line each), their short causes (``causes``, for pytest's
    summary line) and a short label. `fail_on_given`: `fail_on` came from ``--tfguard-fail-on`` (said in the
    failure), not the default. `tf2`: the test's TF2 facts (guarded.tf2_facts), for its row and TF2 budgets."""
    failures: List[str] = []
    causes: List[str] = []
    codes = set(fail_on.values())
    functions = run.of_scope(FUNCTION)
    # The tf.functions' first (a retracing step is what a test most often trips on), then in the verdict's order.
    for diagnostic in functions + [d for d in run.diagnostics if d.scope != FUNCTION]:
        if diagnostic.code in codes and diagnostic.fails:
            name = next(n for n, c in fail_on.items() if c == diagnostic.code)
            given = " (--tfguard-fail-on %s)" % name if fail_on_given else ""
            failures.append("%s %s%s%s: %s" % (diagnostic.code, diagnostic.severity, given,
                                               _where(diagnostic, sessions), diagnostic.one_line))
            record = sessions[diagnostic.session - 1] if diagnostic.scope == SESSION else None
            causes.append(_cause(diagnostic, record))
    if budget is not None:
        budget_failures = _budget_failures(sessions, budget)
        failures += budget_failures
        causes += [_budget_cause(failure, sessions) for failure in budget_failures]
        tf2_failures = check_tf2_budgets(tf2, budget.tf2)
        failures += tf2_failures
        causes += tf2_failures
    errors = sorted({d.code for d in run.diagnostics if d.severity == "error"})
    warnings = sorted({d.code for d in run.diagnostics if d.severity == "warning"})
    known_new = [r["new_ops_after_warmup"] for r in sessions if r["new_ops_after_warmup"] is not None]
    steps = [r["step_s"] for r in sessions if r["step_s"] is not None]
    hosts = [r["host_fraction"] for r in sessions if r["host_fraction"] is not None]
    slowdowns = [r["slowdown"] for r in sessions if r["slowdown"] is not None]
    if failures:
        label = "FAILED"
    elif errors or warnings:  # reported, not failing (--tfguard-fail-on does not name them)
        label = "; ".join(part for part in ("error: " + ", ".join(errors) if errors else "",
                                            "warning: " + ", ".join(warnings) if warnings else "") if part)
    elif not any(r["runs"] for r in sessions) and not functions and not (tf2 or {}).get("steps"):
        label = "no runs"
    else:
        label = "ok"
    return {
        "sessions": sessions,
        "runs": sum(r["runs"] for r in sessions),
        "ops_added": sum(r["nodes_added"] for r in sessions),
        "new_ops_after_warmup": sum(known_new) if known_new else None,
        "step_s": max(steps) if steps else None,
        "host_fraction": max(hosts) if hosts else None,
        "slowdown": max(slowdowns) if slowdowns else None,
        "codes": sorted({d.code for d in run.diagnostics}),
        "functions": [d.to_dict() for d in functions],
        "tf2": tf2,
        "failures": failures,
        "causes": causes,
        "label": label,
    }


def _tf2_cause(diagnostic: Dict[str, Any]) -> str:
    """A TF2 diagnostic's short cause: a retracing function by name, the others by their message's head."""
    where = "%s:%d" % (display_path(diagnostic["path"]), diagnostic["line"]) if diagnostic["path"] else "?"
    if "function" in diagnostic["evidence"]:
        return "`%s` keeps retracing, called from %s (%s)" % (diagnostic["evidence"]["function"], where,
                                                              diagnostic["code"])
    return "%s at %s (%s)" % (diagnostic["message"].split(": ")[0].split(" (")[0], where, diagnostic["code"])


def _budget_cause(failure: str, sessions: List[Dict[str, Any]]) -> str:
    """A budget failure's short cause: growth said as growth, with its site; the others as they are."""
    if failure.startswith("max_new_ops=") and " exceeded: " in failure:
        grew = max((r for r in sessions if r.get("new_ops_after_warmup")), key=lambda r: r["new_ops_after_warmup"],
                   default=None)
        if grew is not None:
            where = (grew.get("repeated_growth") or [[None]])[0][0] or (grew["growth_sites"] or [""])[0].split(" ")[0]
            return "graph grew by %s after warm-up%s (%s)" % (
                _plural(grew["new_ops_after_warmup"], "op"), " at " + where if where else "", failure.split(" ")[0])
    return failure


def _plural(count: int, noun: str) -> str:
    return "%d %s%s" % (count, noun, "" if count == 1 else "s")


def _budget_failures(sessions: List[Dict[str, Any]], budget: Budget) -> List[str]:
    failures = []
    ran = [r for r in sessions if r["runs"]]
    if budget.max_new_ops is not None:
        warmed = [r for r in ran if r["new_ops_after_warmup"] is not None]
        if not warmed:
            failures.append("max_new_ops=%d not checked: no session ran past its %s (most runs: %d)" % (
                budget.max_new_ops, _plural(budget.warmup_runs, "warm-up run"),
                max((r["runs"] for r in sessions), default=0)))
        else:
            total = sum(r["new_ops_after_warmup"] for r in warmed)
            if total > budget.max_new_ops:
                worst = max(warmed, key=lambda r: r["new_ops_after_warmup"])
                sites = "; grew at " + ", ".join(worst["growth_sites"]) if worst["growth_sites"] else ""
                failures.append("max_new_ops=%d exceeded: %s added after %s (session %s: %d)%s" % (
                    budget.max_new_ops, _plural(total, "op"), _plural(budget.warmup_runs, "warm-up run"),
                    worst["origin"], worst["new_ops_after_warmup"], sites))
    if budget.max_step_ms is not None:
        timed = [r for r in ran if r["step_s"] is not None]
        if not timed:
            failures.append("max_step_ms=%g not checked: no session ran" % budget.max_step_ms)
        for record in timed:
            if record["step_s"] * 1e3 > budget.max_step_ms:
                failures.append("max_step_ms=%g exceeded: steps took %.3f ms (median; session %s, %d runs)" % (
                    budget.max_step_ms, record["step_s"] * 1e3, record["origin"], record["runs"]))
    if budget.max_input_bound is not None:
        judged = [r for r in ran if r["host_fraction"] is not None]
        if not judged:
            failures.append("max_input_bound=%g not checked: no session made enough runs to judge its host "
                            "fraction (the runtime's min_runs)" % budget.max_input_bound)
        for record in judged:
            if record["host_fraction"] > budget.max_input_bound:
                failures.append("max_input_bound=%g exceeded: the device waited on Python %.0f%% of the time "
                                "(session %s, %d runs)" % (budget.max_input_bound, record["host_fraction"] * 100,
                                                           record["origin"], record["runs"]))
    return failures
