"""``--fix`` proven by running the programs: real TensorFlow (CPU, graph mode), fixed seeds, a few steps each.

Every program of ``tests/data/fix_programs`` is run as written, after ``tfguard check --fix`` and after
``--fix --unsafe-fixes``, all in one process (``program_runner.py``).  A safe fix must print exactly what the
original printed and leave no repeated graph growth under ``tfguard.watch``; the cases of issue 21 that used to
change a program's results under a "safe" fix must now be unsafe (and, run, show why) or get no fix with the
reason in the JSON output.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.console import python_m_tfguard

# All slow: each test reads the module's `runs`, which runs every program three times in child processes (kept
# together, the slow tests first, so that one worker runs it once).
pytestmark = [pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="needs TensorFlow"),
              pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "data" / "fix_programs"
RUNNER = Path(__file__).resolve().parent / "program_runner.py"

#: program -> the codes (with counts) its safe fixes remove; each must print what the original printed.
SAFE = {
    "safe_ops.py": {"TFG102": 2},
    "safe_initializer.py": {"TFG103": 1},
    "safe_get_next.py": {"TFG106": 1},
    "safe_assign.py": {"TFG108": 2},
    "safe_pipeline.py": {"TFG204": 1, "TFG205": 1},
    "safe_nested_loops.py": {"TFG102": 1},  # moved above both loops, not only the inner one
    # class 7: the prefetch goes on the dataset, not on `tf.data` (it raised AttributeError)
    "crash7_iterator_function_form.py": {"TFG205": 2},
    # issue 32, item 22: one Saver with max_to_keep=None keeps the files eight Savers that saved once each kept
    "class5_saver_max_to_keep.py": {"TFG101": 1},
    # issue 32, item 22: a helper that only builds the op is called once, before the loop
    "unsafe_helper_build.py": {"TFG102": 1},
    # issue 40: the Python number a helper rebinds (a global) or a method scales (an attribute) is fed through a
    # placeholder built once
    "class2_global_rebound.py": {"TFG102": 1},
    "class3_method_attribute.py": {"TFG102": 1},
}
#: program -> (code, words of the reason, whether running the unsafe fix shows a different result).
UNSAFE = {
    "class1_seeded_noise.py": ("TFG102", "keeps state between runs", True),
    "class5b_saver_read_after_the_loop.py": ("TFG101", "max_to_keep", True),
    "class6_parallel_random_map.py": ("TFG204", "random_flip_left_right", False),  # timing decides: may match
    "unsafe_summary_tags.py": ("TFG107", "new tag", True),
    "unsafe_helper_prints.py": ("TFG102", "`accuracy_op()` then runs once", True),  # it prints once
}
#: program -> words each refused finding's ``no_fix`` reason holds.
REFUSED = {
    "class4_mutated_in_place.py": ["`rng.shuffle()`", "`np.copyto()`", "`random.shuffle()`", "`refill()`"],
}


def _tfguard(*args) -> subprocess.CompletedProcess:
    return python_m_tfguard(*args, cwd=ROOT)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Plan, fix and run every program once: {"findings", "results", "folders"}."""
    base = tmp_path_factory.mktemp("fix_programs")
    folders = {}
    for variant in ("original", "safe", "unsafe"):
        folders[variant] = base / variant
        shutil.copytree(PROGRAMS, folders[variant])
    checked = _tfguard("check", "--no-cache", "--format", "json", folders["original"])
    findings = json.loads(checked.stdout)["findings"]
    for variant, extra in (("safe", ()), ("unsafe", ("--unsafe-fixes",))):
        done = _tfguard("check", "--no-cache", "--fix", *extra, "--exit-zero", folders[variant])
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
    again = _tfguard("check", "--no-cache", "--fix", "--exit-zero", folders["safe"])
    paths = [str(path) for variant in folders.values() for path in sorted(variant.glob("*.py"))]
    output = base / "results.json"
    done = subprocess.run([sys.executable, str(RUNNER), str(output), *paths], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return {"findings": findings, "results": json.loads(output.read_text(encoding="utf-8")), "folders": folders,
            "again": again}


def _result(runs, variant, name):
    return runs["results"][str(runs["folders"][variant] / name)]


def _text(runs, variant, name):
    return (runs["folders"][variant] / name).read_text(encoding="utf-8")


def _findings(runs, name):
    return [f for f in runs["findings"] if Path(f["path"]).name == name]


def test_every_program_runs_as_written(runs):
    for name in sorted(p.name for p in PROGRAMS.glob("*.py")):
        result = _result(runs, "original", name)
        assert result["error"] == "", (name, result["error"])
        assert result["stdout"], name
        assert result["sessions"] == 1, name
    assert set(SAFE) | set(UNSAFE) | set(REFUSED) == {p.name for p in PROGRAMS.glob("*.py")}


@pytest.mark.parametrize("name", sorted(SAFE))
def test_a_safe_fix_prints_the_same_and_stops_the_growth(runs, name):
    fixed = {}
    for finding in _findings(runs, name):
        if finding["fix"] is not None and finding["fix"]["applicability"] == "safe":
            fixed[finding["code"]] = fixed.get(finding["code"], 0) + 1
    assert fixed == SAFE[name]
    assert _text(runs, "safe", name) != _text(runs, "original", name)
    original, after = _result(runs, "original", name), _result(runs, "safe", name)
    assert after["error"] == "", after["error"]
    assert after["stdout"] == original["stdout"]
    assert after["repeated"] == []
    if any(code.startswith("TFG1") for code in SAFE[name]):
        assert original["repeated"], "the original must show the growth the fix removes"


def test_prefetch_lands_on_the_dataset_in_the_iterator_function_form(runs):
    text = _text(runs, "safe", "crash7_iterator_function_form.py")
    assert "tf.data.make_one_shot_iterator(input_fn())" in text
    assert ".batch(2).prefetch(tf.data.experimental.AUTOTUNE)" in text
    assert "tf.data.make_initializable_iterator(eval_data.prefetch(tf.data.experimental.AUTOTUNE))" in text
    assert "tf.data.prefetch" not in text


@pytest.mark.parametrize("name", sorted(UNSAFE))
def test_a_fix_that_changes_results_is_unsafe_and_says_why(runs, name):
    code, reason, differs = UNSAFE[name]
    fixes = [f["fix"] for f in _findings(runs, name) if f["code"] == code]
    assert fixes and all(fix is not None and fix["applicability"] == "unsafe" for fix in fixes)
    assert any(reason in fix["message"] for fix in fixes)
    assert _text(runs, "safe", name) == _text(runs, "original", name)  # --fix leaves it alone
    assert _text(runs, "unsafe", name) != _text(runs, "original", name)
    original, after = _result(runs, "original", name), _result(runs, "unsafe", name)
    assert after["error"] == "", after["error"]
    assert after["repeated"] == []
    if differs:
        assert after["stdout"] != original["stdout"], "running the unsafe fix shows why it is unsafe"


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_hoist_of_what_the_loop_changes_through_a_call_is_refused(runs, name):
    refused = [f for f in _findings(runs, name) if f["code"].startswith("TFG1")]
    assert refused and all(f["fix"] is None for f in refused)
    reasons = " | ".join(f["no_fix"] for f in refused)
    for words in REFUSED[name]:
        assert words in reasons
    for variant in ("safe", "unsafe"):
        assert _text(runs, variant, name) == _text(runs, "original", name)


def test_the_nested_build_lands_above_the_outer_loop(runs):
    text = _text(runs, "safe", "safe_nested_loops.py")
    assert "    reduce_sum_op = tf.reduce_sum(x * 2.0)\n    for epoch in range(EPOCHS):" in text


def test_a_second_fix_changes_nothing(runs):
    assert "Fixed 0 findings" in runs["again"].stderr
