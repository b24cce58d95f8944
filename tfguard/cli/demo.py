"""``tfguard demo``: lint the bundled seed scripts, then run seed 003 and its fix under the guard."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from typing import Any, Dict, List, Optional, Sequence

from tfguard.cli.errors import UsageError, checker_python_error
from tfguard.cli.progress import Progress
from tfguard.cli.progress import wanted as progress_wanted

DEMO_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "demo")
BAD_SCRIPT = "seed003_saver_in_loop.py"
FIXED_SCRIPT = "seed003_fixed.py"
INPUT_BOUND_SCRIPT = "seed002_input_bound.py"
DEFAULT_STEPS = 60
#: Part 3's run goes on past --steps until this many seconds: the guard judges TFG903 only from 1.5 s of runs
#: (tfguard.runtime.clocks.MIN_VERDICT_S), which 60 steps of seed 002 take well under on a fast machine.
INPUT_BOUND_SECONDS = 3.0
#: The command part 1b shows, run as it is in the demo folder.
DIFF_COMMAND = ["check", "--diff", "--unsafe-fixes", BAD_SCRIPT]
_MESSAGE_WIDTH = 80


def add_parser(commands: Any) -> None:
    """Register ``tfguard demo`` on the CLI's subcommand parsers."""
    demo = commands.add_parser("demo", help="show the checker and the runtime guard on bundled scripts, TF 1 and TF 2",
                               description="Lint the bundled scripts that reproduce the field reports, then "
                                           "run seed 003 (a Saver built in the training loop) and its fixed "
                                           "twin under `tfguard run` and compare the two reports, then run "
                                           "seed 002 (input-bound) with --placement and show where its ops "
                                           "ran and how busy the GPU was; then (part 4, TF 2) check "
                                           "tf2_train.py (an eager training step, summaries and a "
                                           "checkpoint every step, a serial Python map, predict per "
                                           "sample) and "
                                           "run it and its fixed twin under the guard. Part 1 needs no "
                                           "TensorFlow; without it parts 2 to 4 are skipped.")
    demo.add_argument("--steps", metavar="N", default=str(DEFAULT_STEPS),
                      help="training steps of each seed run (default: %d)" % DEFAULT_STEPS)
    demo.add_argument("--plot", metavar="DIR", help="also write one picture comparing the two seed 003 runs "
                                                    "(step interval and graph size) to DIR (needs matplotlib)")


def run_command(args: argparse.Namespace) -> int:
    """Run ``tfguard demo``; return 0 (part 1 alone when TensorFlow is missing), 2 for bad options."""
    try:
        steps = int(args.steps)
    except ValueError:
        steps = 0
    if steps < 1:
        raise UsageError("--steps needs a positive whole number, got %r" % args.steps)
    has_tensorflow = importlib.util.find_spec("tensorflow") is not None
    if args.plot and has_tensorflow:
        if importlib.util.find_spec("matplotlib") is None:
            raise UsageError("--plot needs matplotlib: pip install matplotlib")
        if os.path.isfile(args.plot):
            raise UsageError("--plot %s is a file, not a folder" % args.plot)
        os.makedirs(args.plot, exist_ok=True)
    no_checker = checker_python_error("check", sys.version_info)
    if no_checker:  # Python 3.7 beside TF 1.15: the runtime parts still show
        print("tfguard: part 1 (the checker) skipped: %s" % no_checker, file=sys.stderr)
    else:
        print("== 1. tfguard check: the bundled scripts that reproduce the field reports ==\n")
        print(lint_table())
        print("\n== 1b. tfguard %s ==\n" % " ".join(DIFF_COMMAND))
        print(textwrap.fill("The TFG101 fix (safe: the Saver built once, with max_to_keep=None, keeps every "
                            "checkpoint, as the Savers built per step did) and the TFG202 fix (unsafe: it saves "
                            "every 1000 steps and at the last step):", _MESSAGE_WIDTH) + "\n")
        print(fix_diff())
    if not has_tensorflow:  # the checker needs no TensorFlow; the runs do
        sys.stdout.flush()
        print("tfguard: parts 2 to 4 (the runtime guard) skipped: they run the scripts, which needs TensorFlow "
              "(pip install tensorflow-cpu)", file=sys.stderr)
        return 0
    print("\n== 2. tfguard run: seed 003 (Saver built in the loop) and its fixed twin, %d steps each ==\n" % steps)
    with tempfile.TemporaryDirectory(prefix="tfguard-demo-") as work:
        reports = {}
        for script in (BAD_SCRIPT, FIXED_SCRIPT):
            reports[script] = run_guarded(script, steps, work)
        print(comparison_table(reports[BAD_SCRIPT], reports[FIXED_SCRIPT]))
        if args.plot:
            from tfguard.runtime.output.plot import plot_comparison

            path = os.path.join(args.plot, "seed003_comparison.png")
            plot_comparison([(script, reports[script].busiest.figures) for script in (BAD_SCRIPT, FIXED_SCRIPT)], path,
                            title="tfguard demo: seed 003 and its fixed twin (%d steps each)" % steps)
            print("wrote %s" % path)
        print("\n== 3. tfguard run --placement: seed 002 (Python prepares every batch), %d steps and at least "
              "%g s ==\n" % (steps, INPUT_BOUND_SECONDS))
        print(device_section(run_guarded(INPUT_BOUND_SCRIPT, steps, work, run_options=["--placement"],
                                         script_args=["--min-seconds", str(INPUT_BOUND_SECONDS)])))
    if tf2_part(steps, no_checker) and not no_checker:
        print("\nNext: tfguard check your_project/   and   tfguard run --max-steps 200 --fail-on growth train.py")
    return 0


def tf2_part(steps: int, no_checker: Optional[str]) -> Optional[Dict[str, Any]]:
    """Part 4: the TF 2 script and its fixed twin, checked, then run under the guard; their run verdicts by script
    name, or None when skipped."""
    from tfguard.cli import demo_tf2

    if (demo_tf2.tensorflow_major() or 0) < 2:
        sys.stdout.flush()
        print("tfguard: part 4 (TF 2) skipped: it needs TensorFlow 2", file=sys.stderr)
        return None
    from tfguard.runtime.output.fit import terminal_width

    scripts = (demo_tf2.BAD_SCRIPT, demo_tf2.FIXED_SCRIPT)
    print("\n== 4. TF 2: %s and its fixed twin, %d steps each ==\n" % (demo_tf2.BAD_SCRIPT, steps))
    print(textwrap.fill("%s plants %s; %s is its fixed twin." % (demo_tf2.BAD_SCRIPT, demo_tf2.TITLE,
                                                                  demo_tf2.FIXED_SCRIPT), _MESSAGE_WIDTH) + "\n")
    if not no_checker:
        print(lint_table(scripts) + "\n")
    with tempfile.TemporaryDirectory(prefix="tfguard-demo-") as work:
        reports = {script: run_guarded(script, steps, work) for script in scripts}
    print(demo_tf2.comparison_table(reports[scripts[0]], reports[scripts[1]], steps, terminal_width()))
    for script in scripts:
        lines = demo_tf2.diagnostic_lines(script, reports[script], terminal_width())
        print("\n%s diagnostics:\n%s" % (script, "\n".join(lines) if lines else "  none"))
    return reports


def lint_table(scripts: Sequence[str] = ()) -> str:
    """The static findings on the bundled demo scripts (``scripts``: these file names; default: the TF 1 seeds),
    one row each."""
    from tfguard.static.engine import check_paths

    paths = [os.path.join(DEMO_DIR, name) for name in scripts] or _demo_scripts()
    result = check_paths(sorted(paths))
    rows = []
    for finding in sorted(result.findings, key=lambda f: f.sort_key()):
        message = finding.headline
        if len(message) > _MESSAGE_WIDTH:
            message = message[:_MESSAGE_WIDTH - 3] + "..."
        rows.append(["%s:%d" % (os.path.basename(finding.path), finding.line), finding.code, message])
    clean = sorted({os.path.basename(p) for p in paths} - {r[0].split(":")[0] for r in rows})
    from tabulate import tabulate

    text = tabulate(rows, headers=["where", "rule", "finding"], tablefmt="simple")
    if clean:
        text += "\n\nno static findings: %s" % ", ".join(clean)
        text += "\n(seed002_input_bound.py is slow at run time: Python prepares every batch; see TFG903)" \
            if "seed002_input_bound.py" in clean else ""
    return text


def fix_diff() -> str:
    """What ``tfguard check --diff --unsafe-fixes seed003_saver_in_loop.py`` prints in the demo folder (nothing is
    written): that very command, run in a child process (``--no-cache``: the demo leaves no cache folder there)."""
    done = subprocess.run([sys.executable, "-m", "tfguard"] + DIFF_COMMAND[:1] + ["--no-cache"] + DIFF_COMMAND[1:],
                          cwd=DEMO_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=_child_env())
    if done.returncode not in (0, 1) or not done.stdout:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise UsageError("the demo's tfguard %s failed (status %d): %s" % (" ".join(DIFF_COMMAND), done.returncode,
                                                                           tail))
    return done.stdout.rstrip("\n")


def _child_env() -> Dict[str, str]:
    """The environment of the demo's child processes: this tfguard first on the path."""
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(DEMO_DIR))
    env["PYTHONPATH"] = os.pathsep.join([package_root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    return env


def _demo_scripts() -> List[str]:
    return [os.path.join(DEMO_DIR, n) for n in os.listdir(DEMO_DIR) if n.startswith("seed") and n.endswith(".py")]


def run_guarded(script: str, steps: int, work: str, run_options: Sequence[str] = (),
                script_args: Optional[List[str]] = None) -> Any:
    """Run one bundled script through `tfguard run --json` in a child process; return its run verdict (its
    ``facts["demo_seconds"]``: the child's wall time, start-up included).

    `run_options` go to `tfguard run`; `script_args` to the script after `--steps N` (default:
    `--model-dir` in `work`, for the seed 003 scripts).
    """
    output = os.path.join(work, script + ".json")
    if script_args is None:
        script_args = ["--model-dir", os.path.join(work, script[:-3])]
    command = [sys.executable, "-W", "ignore", "-m", "tfguard", "run", "--quiet", "--json", output,
               *run_options, os.path.join(DEMO_DIR, script), "--steps", str(steps), *script_args]
    env = _child_env()
    started = time.perf_counter()
    # From the demo folder, so that the report's messages name the scripts by their file names.
    indicator = Progress(sys.stderr, lambda: "tfguard demo: running %s (%d steps)" % (script, steps),
                         enabled=progress_wanted(sys.stderr), delay_s=0.5)
    with indicator:
        done = subprocess.run(command, env=env, cwd=DEMO_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    if done.returncode != 0 or not os.path.exists(output):
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise UsageError("the demo run of %s failed (status %d): %s" % (script, done.returncode, tail))
    from tfguard.runtime.verdict import RunVerdict

    with open(output, encoding="utf-8") as handle:
        verdict = RunVerdict.from_document(json.load(handle))
    verdict.facts["demo_seconds"] = time.perf_counter() - started  # the run as the reader waited for it
    print("ran %-26s %5.1f s  %s" % (script, verdict.facts["demo_seconds"], done.stdout.strip().splitlines()[-1]))
    return verdict


def _demo_relative(text: str) -> str:
    """Name the bundled scripts by their file names, as the lint table does."""
    return text.replace(DEMO_DIR + os.sep, "")


def comparison_table(bad: Any, fixed: Any) -> str:
    """Bad and fixed seed 003 reports side by side (the table `tfguard report a.json b.json` prints)."""
    from tfguard.runtime.output.fit import terminal_width
    from tfguard.views.compare import comparison_table as side_by_side

    return side_by_side([(BAD_SCRIPT, bad), (FIXED_SCRIPT, fixed)], terminal_width(), relative=_demo_relative)


def device_section(verdict: Any) -> str:
    """The placement tables and GPU lines of a `tfguard run --placement` run (its verdict), and its diagnostics."""
    from tfguard.runtime.devices.devicewatch import device_blocks

    shown = json.loads(json.dumps(verdict.busiest.figures))
    placement = shown.get("placement") or {}
    for fallback in placement.get("fallbacks", []):
        fallback["path"] = os.path.basename(fallback["path"])  # as in the lint table above
    diagnostics = verdict.diagnostics
    no_gpu = bool(placement) and not placement.get("gpus_visible")
    if no_gpu:  # the script pins its model to /gpu:0 for GPU machines: on this one that is no mistake to report
        placement["fallbacks"] = []
        from tfguard.runtime.judge.gpu_op_on_cpu import DIAGNOSTIC as GPU_OP_ON_CPU

        diagnostics = [d for d in diagnostics if d.code != GPU_OP_ON_CPU.code]
        shown.pop("gpu", None)
    from tfguard.runtime.output.fit import terminal_width, wrap_lines

    notes = [line for d in diagnostics for line in wrap_lines("%s  %s" % (d.code, _demo_relative(d.one_line)),
                                                              terminal_width(), indent="  ", subsequent="    ")]
    blocks = device_blocks(shown)
    if no_gpu:
        blocks.append("(no GPU on this machine: the ops the script pins to /gpu:0 ran on the CPU, and there is no "
                      "GPU utilisation to show)")
    return "\n\n".join(blocks) + ("\n\n%s diagnostics:\n" % INPUT_BOUND_SCRIPT + "\n".join(notes) if notes else "")
