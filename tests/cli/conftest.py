"""Fixtures for the command-line tests: test-only rules and a throwaway project folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import pytest
from astroid import nodes

from tests.rule_support import calls_named, finding_at, registered
from tfguard.static.finding import ChainLink
from tfguard.static.registry import Rule


def _define_rules() -> List[type]:
    """Define the test rules; a class statement registers a Rule subclass."""

    class FlagBadCall(Rule):
        code = "TFG901"
        name = "test-bad-call"
        severity = "error"
        summary = "Every call to bad() (test rule)."

        def check(self, module):
            for call in calls_named(module, "bad"):
                scope = call.scope()
                chain = []
                if isinstance(scope, nodes.FunctionDef):
                    chain = [ChainLink(module.path, scope.lineno, scope.name)]
                yield finding_at(self, module, call, f"call to {call.func.name}()", chain)

    class FlagMehCall(Rule):
        code = "TFG902"
        name = "test-meh-call"
        severity = "warning"
        summary = "Every call to meh() (test rule)."

        def check(self, module):
            for call in calls_named(module, "meh"):
                yield finding_at(self, module, call, f"call to {call.func.name}()")

    class FlagRareCall(Rule):
        code = "TFG951"
        name = "test-rare-call"
        severity = "info"
        summary = "Every call to rare() (test rule, off by default)."
        default_enabled = False

        def check(self, module):
            for call in calls_named(module, "rare"):
                yield finding_at(self, module, call, f"call to {call.func.name}()")

    class Explode(Rule):
        code = "TFG990"
        name = "test-explode"
        severity = "error"
        summary = "Crashes on a call to explode() (test rule)."

        def check(self, module):
            for _ in calls_named(module, "explode"):
                raise RuntimeError("test rule exploded")
            return []

    return [FlagBadCall, FlagMehCall, FlagRareCall, Explode]


@pytest.fixture
def test_rules() -> Dict[str, type]:
    """Register TFG901 (error), TFG902 (warning), TFG951 (info, off by default), TFG990 (crashes) for one test."""
    with registered(_define_rules) as rules:
        yield rules


@pytest.fixture
def project(empty_project: Path, test_rules) -> Path:
    """The shared empty project folder, with this folder's test rules registered."""
    return empty_project


@pytest.fixture
def run_json(run) -> Callable[..., Tuple[int, dict]]:
    """Run ``tfguard check --format json ARGS``; return (exit status, parsed document)."""

    def _run_json(*args: str) -> Tuple[int, dict]:
        status, out, err = run("check", "--format", "json", *args)
        assert "Traceback" not in err
        return status, json.loads(out)

    return _run_json
