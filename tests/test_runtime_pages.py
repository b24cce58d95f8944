"""Every code the runtime guard prints (TFG901-TFG912) has a page and a row, as ruff documents every code."""

from __future__ import annotations

import json
import re

import pytest

from tests.catalog_paths import RULES_DIR, runtime_folders
from tests.console import tfguard_script
from tfguard.runtime.devices.placement import DEFAULT_COPIES_THRESHOLD
from tfguard.runtime.judge import (
    all_diagnostics,
    eager_training_step,
    function_retracing,
    host_syncs_per_step,
    predict_in_loop,
    slow_callback,
)
from tfguard.runtime.record.growth import REPEATED_EVENTS
from tfguard.runtime.record.recorder import DEFAULT_OPTIONS

RUNTIME_CODES = all_diagnostics()

SECTIONS = ["## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Thresholds"]
#: The thresholds each page must state, with the values the code uses.
THRESHOLDS = {
    "TFG901": [f"REPEATED_EVENTS = {REPEATED_EVENTS}"],
    "TFG902": [f"slowdown_threshold = {DEFAULT_OPTIONS['slowdown_threshold']}"],
    "TFG903": [f"host_threshold = {DEFAULT_OPTIONS['host_threshold']}", f"min_runs = {DEFAULT_OPTIONS['min_runs']}"],
    "TFG904": [f"summary_share = {DEFAULT_OPTIONS['summary_share']}", f"min_runs = {DEFAULT_OPTIONS['min_runs']}"],
    "TFG905": [f"save_threshold = {DEFAULT_OPTIONS['save_threshold']:.2f}",
               f"min_saves = {DEFAULT_OPTIONS['min_saves']}"],
    "TFG906": [],
    "TFG907": [f"copies_threshold = {DEFAULT_COPIES_THRESHOLD}"],
    "TFG908": [f"RETRACE_THRESHOLD = {function_retracing.RETRACE_THRESHOLD}",
               f"LATE_TRACES = {function_retracing.LATE_TRACES}",
               f"CALLS_PER_NEW_TRACE = {function_retracing.CALLS_PER_NEW_TRACE}",
               f"ALERT_TRACES = {function_retracing.ALERT_TRACES}"],
    "TFG909": [f"MIN_EAGER_STEPS = {eager_training_step.MIN_EAGER_STEPS}"],
    "TFG910": [f"LOOP_CALLS = {predict_in_loop.LOOP_CALLS}", f"SMALL_ROWS = {predict_in_loop.SMALL_ROWS}",
               f"OVERHEAD_RATIO = {predict_in_loop.OVERHEAD_RATIO}", f"RUN_SHARE = {predict_in_loop.RUN_SHARE}"],
    "TFG911": [f"MIN_BATCHES = {slow_callback.MIN_BATCHES}", f"WARNING_SHARE = {slow_callback.WARNING_SHARE}",
               f"INFO_SHARE = {slow_callback.INFO_SHARE}"],
    "TFG912": [f"MIN_STEPS = {host_syncs_per_step.MIN_STEPS}", f"PER_STEP = {host_syncs_per_step.PER_STEP}",
               f"SHORT_STEP_S = {host_syncs_per_step.SHORT_STEP_S}"],
}


def test_every_runtime_code_has_a_page_and_nothing_else():
    assert [folder.name for folder in runtime_folders()] == [RUNTIME_CODES[code].slug for code in RUNTIME_CODES]
    assert sorted(THRESHOLDS) == sorted(RUNTIME_CODES)


@pytest.mark.parametrize("code", list(RUNTIME_CODES))
def test_page_follows_the_template_and_states_the_thresholds(code):
    folder = RULES_DIR / RUNTIME_CODES[code].slug
    assert sorted(path.name for path in folder.iterdir()) == ["README.md"]
    text = (folder / "README.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == f"# {code} {RUNTIME_CODES[code].name}"
    assert [line for line in lines if line.startswith("## ")] == SECTIONS
    thresholds = text.split("## Thresholds", 1)[1]
    for statement in THRESHOLDS[code]:
        assert statement in thresholds, f"{code}'s page does not state {statement}"
    for block in re.findall(r"```python\n(.*?)```", text, flags=re.S):
        compile(block, f"{code} example", "exec")


@pytest.mark.slow
def test_rule_and_rules_document_the_runtime_codes(tmp_path):
    done = tfguard_script("rule", "TFG901", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("# TFG901 graph-growth\n")
    assert "`tfguard run --fail-on growth` fails on it" in done.stdout
    done = tfguard_script("rule", "cross-device-copies", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("# TFG907 cross-device-copies\n")
    rows = json.loads(tfguard_script("rules", "--format", "json", cwd=tmp_path).stdout)
    runtime = [(row["code"], row["kind"]) for row in rows if row["kind"] == "runtime"]
    assert runtime == [(code, "runtime") for code in RUNTIME_CODES]
    table = tfguard_script("rules", cwd=tmp_path).stdout
    assert all(re.search(rf"^{code}\s+{RUNTIME_CODES[code].name}\s+runtime\s", table, flags=re.M)
               for code in RUNTIME_CODES)


def test_fail_on_names_are_those_of_the_codes():
    from tfguard.cli.run import FAIL_ON

    assert FAIL_ON == {runtime.fail_on: code for code, runtime in RUNTIME_CODES.items() if runtime.fail_on}
