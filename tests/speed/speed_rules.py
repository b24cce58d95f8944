"""Test-only rules for the speed tests: they show where, and how often, files were checked."""

from __future__ import annotations

import os
from typing import List

from tests.rule_support import calls_named, finding_at
from tfguard.static.registry import Rule

#: Files that never mention tensorflow are not analysed, so every test source starts with this.
TF = "import tensorflow as tf\n"


MAIN_PID = os.getpid()


class Calls:
    """How many times the counting rule ran, in this process."""

    count = 0


def define_rules() -> List[type]:
    class CountedBadCall(Rule):
        code = "TFG971"
        name = "test-counted-bad-call"
        severity = "error"
        summary = "Every call to bad(); counts the modules it ran on (test rule)."

        def check(self, module):
            Calls.count += 1
            for call in calls_named(module, "bad"):
                yield finding_at(self, module, call, "call to bad()")

    class ReportPid(Rule):
        code = "TFG972"
        name = "test-report-pid"
        severity = "info"
        summary = "Reports the id of the process that checked a call to whoami() (test rule)."
        default_enabled = False

        def check(self, module):
            for call in calls_named(module, "whoami"):
                yield finding_at(self, module, call, f"pid {os.getpid()}")

    class Crash(Rule):
        code = "TFG973"
        name = "test-crash"
        severity = "error"
        summary = "Crashes on a call to explode() (test rule)."

        def check(self, module):
            for _ in calls_named(module, "explode"):
                raise RuntimeError("test rule exploded")
            return []

    class KillWorker(Rule):
        code = "TFG974"
        name = "test-kill-worker"
        severity = "error"
        summary = "Ends a worker process abruptly on a call to die() (test rule; harmless in the main process)."

        def check(self, module):
            for _ in calls_named(module, "die"):
                if os.getpid() != MAIN_PID:
                    os._exit(3)
            return []

    return [CountedBadCall, ReportPid, Crash, KillWorker]
