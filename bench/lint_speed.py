"""How fast is ``tfguard check``?  Throughput, cache and memory on a generated TF1 corpus.

Usage::

    python bench/lint_speed.py                 # ~2000 generated files in a temporary folder
    python bench/lint_speed.py --quick         # a smoke run on 200 files
    python bench/lint_speed.py --corpus DIR    # an existing folder (generated into it when empty)
    python bench/lint_speed.py --check         # exit 1 when a target is missed

Measured in one run, each step in its own process (so its peak RSS is its own):

* ``ast.parse`` of every file (the floor any Python linter stands on),
* astroid parsing alone (``tfguard.static.parsing.parse_module``) of the files tfguard parses
  (those that mention tensorflow),
* ``tfguard check`` cold (empty cache, filled by the run) with ``-j 1`` and ``-j N``,
  and with ``--no-cache`` (the cost of writing the cache is the difference),
* ``tfguard check`` again with the cache filled (warm),
* ``pylint --disable=all --enable=unused-import -j 1``, the nearest astroid-based peer.

lines/s is the line count of the whole corpus divided by the wall time of the
step, so every row measures the same job.  Peak RSS is the largest resident set
of the step's process tree (``os.wait4`` rusage, worker processes included).

Targets: cold ``-j 1`` reaches 0.7x the throughput of astroid parsing alone; the
warm rerun is 20x faster than the cold one (same ``-j``); cold ``-j 1`` is 3x
faster than pylint.  Reports of the cold, parallel and warm runs must agree.

Then ``-j 1``, ``-j N`` and the default ``-j`` on a real-layout tree
(``--layout-files``, :func:`tf1_corpus.generate_real_layout`: a shared package
with three very large files, imported across sub-projects), on one small
sub-project of it and on a tiny one (12 files): wall and CPU time, each the least
of ``--repeat`` runs.  The default must keep the tiny project in-process.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
sys.path.insert(0, REPO_ROOT)
sys.path.insert(0, BENCH_DIR)

from tf1_corpus import generate_corpus, generate_real_layout  # noqa: E402

from tfguard.static.discovery import iter_python_files  # noqa: E402

DEFAULT_FILES = 2000
QUICK_FILES = 200

TARGET_COLD_VS_ASTROID = 0.7
TARGET_WARM_SPEEDUP = 20.0
TARGET_PYLINT_SPEEDUP = 3.0


@dataclass
class Step:
    """One measured step: wall seconds, files it parsed, peak RSS in bytes."""

    name: str
    seconds: float
    files: int
    peak_rss: int
    cpu_seconds: float = 0.0


def _rusage_bytes(maxrss: int) -> int:
    return maxrss if sys.platform == "darwin" else maxrss * 1024  # Linux reports KiB


def measure_in_child(name: str, work: Callable[[], int]) -> Step:
    """Run ``work()`` (returns the number of files it parsed) in a forked child; time it there."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read_end)
        code = 0
        try:
            started = time.perf_counter()
            files = work()
            payload = json.dumps({"seconds": time.perf_counter() - started, "files": files})
        except BaseException as exc:  # noqa: BLE001 - reported by the parent
            payload = json.dumps({"error": f"{type(exc).__name__}: {exc}"})
            code = 1
        os.write(write_end, payload.encode())
        os.close(write_end)
        os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as stream:
        payload = json.loads(stream.read() or b'{"error": "no result"}')
    _, _, usage = os.wait4(pid, 0)
    if "error" in payload:
        raise RuntimeError(f"{name}: {payload['error']}")
    return Step(name, payload["seconds"], payload["files"], _rusage_bytes(usage.ru_maxrss))


def measure_command(name: str, command: Sequence[str], files: int, cwd: str, env: Dict[str, str],
                    ok_status: Sequence[int] = (0, 1)) -> Step:
    """Run ``command``; return its wall time and the peak RSS of its process tree."""
    started = time.perf_counter()
    with open(os.path.join(cwd, "stderr.txt"), "wb") as stderr:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
        _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in ok_status:
        with open(os.path.join(cwd, "stderr.txt"), encoding="utf-8", errors="replace") as handle:
            tail = handle.read()[-2000:]
        raise RuntimeError(f"{name}: exit status {process.returncode}\n{tail}")
    return Step(name, seconds, files, _rusage_bytes(usage.ru_maxrss), usage.ru_utime + usage.ru_stime)


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def parse_all_with_ast(files: Sequence[str]) -> int:
    """Parse every file with ``ast.parse``; return how many parsed."""
    import ast

    count = 0
    for path in files:
        try:
            ast.parse(_read(path), filename=path)
            count += 1
        except (SyntaxError, ValueError):
            pass
    return count


def parse_tf_files_with_astroid(files: Sequence[str]) -> int:
    """Parse, as tfguard would, every file that mentions tensorflow; return how many."""
    from tfguard.static.engine import mentions_tensorflow
    from tfguard.static.parsing import ParseFailure, decode_source, parse_module

    count = 0
    for path in files:
        data = _read(path)
        if not mentions_tensorflow(data):
            continue
        try:
            parse_module(decode_source(data), path)
            count += 1
        except ParseFailure:
            pass
    return count


def corpus_files(corpus: str) -> List[str]:
    """Return the files tfguard finds under ``corpus``, in its order."""
    return list(iter_python_files([corpus]))


def count_lines(files: Sequence[str]) -> int:
    """Return the total number of lines of ``files``."""
    return sum(_read(path).count(b"\n") for path in files)


def _mib(size: int) -> str:
    return f"{size / 2 ** 20:.0f}"


def _verdict(ok: Optional[bool]) -> str:
    return {True: "PASS", False: "FAIL", None: "skipped"}[ok]


def run_benchmark(corpus: str, jobs: int, with_pylint: bool, workdir: str) -> List[str]:
    """Measure every step on ``corpus``; print the table and targets; return the failed targets."""
    from tabulate import tabulate

    files = corpus_files(corpus)
    lines = count_lines(files)
    tf_files = sum(1 for path in files if b"tensorflow" in _read(path))
    print(f"corpus: {corpus}: {len(files)} files ({tf_files} mention tensorflow), {lines} lines; "
          f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    sys.stdout.flush()

    env = dict(os.environ, PYTHONPATH=REPO_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cache = os.path.join(workdir, "cache")
    cache_parallel = os.path.join(workdir, "cache-j")

    def tfguard(step_jobs: int, cache_dir: Optional[str], report: str) -> List[str]:
        cache_args = ["--cache-dir", cache_dir] if cache_dir else ["--no-cache"]
        return [sys.executable, "-m", "tfguard", "check", corpus, "--isolated", "--exit-zero", "-j", str(step_jobs),
                *cache_args, "--format", "json", "--output-file", os.path.join(workdir, report)]

    steps = [
        measure_in_child("ast.parse, every file", lambda: parse_all_with_ast(files)),
        measure_in_child("astroid parse alone, TF files", lambda: parse_tf_files_with_astroid(files)),
        measure_command("tfguard check, cold, -j 1", tfguard(1, cache, "cold1.json"), tf_files, workdir, env),
        measure_command("tfguard check, -j 1, --no-cache", tfguard(1, None, "nocache.json"), tf_files, workdir, env),
        measure_command(f"tfguard check, cold, -j {jobs}", tfguard(jobs, cache_parallel, "coldN.json"), tf_files,
                        workdir, env),
        measure_command(f"tfguard check, warm, -j {jobs}", tfguard(jobs, cache_parallel, "warm.json"), 0, workdir,
                        env),
    ]
    if with_pylint:
        pylint = [sys.executable, "-m", "pylint", "--disable=all", "--enable=unused-import", "-j", "1",
                  "--persistent=n", "--recursive=y", "--score=n", "--rcfile", os.devnull, corpus]
        steps.append(measure_command("pylint unused-import, -j 1", pylint, len(files), workdir, env,
                                     ok_status=range(0, 32)))
    rows = [[s.name, s.files, f"{s.seconds:.2f}", f"{lines / s.seconds:,.0f}", _mib(s.peak_rss)] for s in steps]
    print(tabulate(rows, headers=["step", "files parsed", "seconds", "lines/s", "peak RSS MiB"],
                   colalign=("left", "right", "right", "right", "right")))

    astroid_step, cold1, cold_n, warm = steps[1], steps[2], steps[4], steps[5]
    reports = {name: _read(os.path.join(workdir, name))
               for name in ("cold1.json", "nocache.json", "coldN.json", "warm.json")}
    same = len(set(reports.values())) == 1
    findings = len(json.loads(reports["cold1.json"])["findings"])
    ratio_astroid = astroid_step.seconds / cold1.seconds
    warm_speedup = cold_n.seconds / warm.seconds
    targets = [
        (f"cold -j 1 throughput / astroid parse alone = {ratio_astroid:.2f}x (target >= {TARGET_COLD_VS_ASTROID}x)",
         ratio_astroid >= TARGET_COLD_VS_ASTROID),
        (f"warm rerun speed-up over cold -j {jobs} = {warm_speedup:.1f}x (target >= {TARGET_WARM_SPEEDUP:.0f}x)",
         warm_speedup >= TARGET_WARM_SPEEDUP),
    ]
    if with_pylint:
        pylint_speedup = steps[6].seconds / cold1.seconds
        targets.append((f"cold -j 1 speed-up over pylint -j 1 = {pylint_speedup:.1f}x "
                        f"(target >= {TARGET_PYLINT_SPEEDUP:.0f}x)", pylint_speedup >= TARGET_PYLINT_SPEEDUP))
    else:
        targets.append(("cold -j 1 speed-up over pylint -j 1 (--no-pylint)", None))
    targets.append((f"cold -j 1, --no-cache, cold -j {jobs} and warm reports identical ({findings} findings)", same))
    print()
    for text, ok in targets:
        print(f"{_verdict(ok):7} {text}")
    return [text for text, ok in targets if ok is False]


def run_parallel_benchmark(tree: str, jobs: int, workdir: str, repeat: int = 3) -> List[str]:
    """Compare ``-j 1``, ``-j N`` and the default ``-j`` on a real-layout tree, one small project and a tiny one.

    Prints wall and CPU seconds (user + system, worker processes included) and
    the ratios; returns the failed targets: the default never slower than
    ``-j 1`` on the tiny project (in-process: the same run), and all reports
    identical.  Wall times swing with the machine's load; the CPU ratio shows
    the work that running in parallel adds (followed modules parsed in more
    than one worker, worker start-up).  Each run is repeated ``repeat`` times,
    the three runs taking turns, and the least time of each is kept.
    """
    from tabulate import tabulate

    env = dict(os.environ, PYTHONPATH=REPO_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    small = os.path.join(tree, "project_0")
    tiny = os.path.join(workdir, "tiny-project")
    os.makedirs(tiny, exist_ok=True)
    for path in corpus_files(small)[:12]:
        shutil.copy(path, tiny)
    rows, failed, reports = [], [], {}
    for label, folder in (("real layout", tree), ("one small project", small), ("a tiny project", tiny)):
        files = corpus_files(folder)
        size = sum(len(_read(path)) for path in files)
        steps: Dict[str, Step] = {}
        for _ in range(repeat):
            for name, extra in (("-j 1", ["-j", "1"]), (f"-j {jobs}", ["-j", str(jobs)]), ("default -j", [])):
                report = os.path.join(workdir, "parallel.json")
                command = [sys.executable, "-m", "tfguard", "check", folder, "--isolated", "--exit-zero",
                           "--no-cache", *extra, "--format", "json", "--output-file", report]
                step = measure_command(f"{label}, {name}", command, len(files), workdir, env)
                best = steps.get(name)
                steps[name] = step if best is None else Step(step.name, min(step.seconds, best.seconds), step.files,
                                                               max(step.peak_rss, best.peak_rss),
                                                               min(step.cpu_seconds, best.cpu_seconds))
                reports[label, name] = _read(report)
        one = steps["-j 1"]
        for name, step in steps.items():
            rows.append([f"{label} ({len(files)} files, {size // 1024} KiB)", name, f"{step.seconds:.2f}",
                         f"{step.seconds / one.seconds:.2f}", f"{step.cpu_seconds:.2f}",
                         f"{step.cpu_seconds / one.cpu_seconds:.2f}"])
        if len({reports[label, name] for name in steps}) != 1:
            failed.append(f"{label}: reports differ between -j 1, -j {jobs} and the default")
    print()
    print(tabulate(rows, headers=["tree", "run", "wall s", "wall / -j 1", "CPU s", "CPU / -j 1"],
                   colalign=("left", "left", "right", "right", "right", "right")))
    default_tiny = [row for row in rows if row[0].startswith("a tiny") and row[1] == "default -j"][0]
    print()
    print(f"{_verdict(not failed):7} reports identical across -j 1, -j {jobs} and the default")
    in_process = automatic_jobs_for(tiny) == 1
    print(f"{_verdict(in_process):7} default -j on the tiny project: in-process like -j 1 "
          f"(wall {default_tiny[3]}x of -j 1)")
    if not in_process:
        failed.append("the default -j starts workers on the tiny project")
    return failed


def automatic_jobs_for(folder: str) -> int:
    """Return the number of processes the default ``-j`` gives ``folder`` (its TF files' bytes decide)."""
    from tfguard.static.engine import mentions_tensorflow
    from tfguard.static.workers import automatic_jobs

    return automatic_jobs(sum(len(data) for data in map(_read, corpus_files(folder)) if mentions_tensorflow(data)))


def build_parser() -> argparse.ArgumentParser:
    """Return the benchmark's argument parser."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int,
                        help=f"files to generate (default {DEFAULT_FILES}; {QUICK_FILES} with --quick)")
    parser.add_argument("--quick", action="store_true", help="a small corpus, for smoke runs")
    parser.add_argument("--corpus", metavar="DIR",
                        help="benchmark this folder (generated into it when it has no .py file)")
    parser.add_argument("--seed", type=int, default=1234, help="seed of the generated corpus (default 1234)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="N of the -j N runs (default: CPUs)")
    parser.add_argument("--no-pylint", action="store_true", help="skip the pylint run")
    parser.add_argument("--layout-files", type=int, default=600,
                        help="files of the real-layout tree for the -j comparison (default 600; 0: skip it)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each -j comparison step (default 3)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the benchmark; return the exit status."""
    args = build_parser().parse_args(argv)
    count = args.files or (QUICK_FILES if args.quick else DEFAULT_FILES)
    if count < 1 or args.jobs < 1:
        print("lint_speed: error: --files and --jobs must be at least 1", file=sys.stderr)
        return 2
    workdir = tempfile.mkdtemp(prefix="tfguard-bench-")
    try:
        corpus = args.corpus or os.path.join(workdir, "corpus")
        if not os.path.isdir(corpus) or not corpus_files(corpus):
            generate_corpus(corpus, count, seed=args.seed)
        failed = run_benchmark(os.path.abspath(corpus), args.jobs, not args.no_pylint, workdir)
        if args.layout_files:
            tree = os.path.join(workdir, "real-layout")
            generate_real_layout(tree, args.layout_files, seed=args.seed)
            failed += run_parallel_benchmark(tree, max(2, args.jobs), workdir, max(1, args.repeat))
    except (OSError, RuntimeError) as exc:
        print(f"lint_speed: error: {exc}", file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
