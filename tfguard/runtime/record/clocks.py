"""Clock marks of a guarded run: what tells the program's own work from other jobs' (contention).

About every tenth of a second of runs, when the queued runs are folded, the recorder notes
cumulative totals: runs, wall time, time inside ``sess.run`` and ``Saver.save``, the process's
CPU time, the CPU time of the guarding thread (``time.thread_time``), the time that thread spent
runnable but waiting for a CPU (``/proc/thread-self/schedstat``), how busy the CPUs the process
may run on were (``/proc/stat``), and a sample of the bytes fed per run. The slowdown verdict
(judge/slowdown.py) compares the first fifth of the runs marked with the last fifth.

CPU time is not a fixed measure of work on a shared machine: next to other jobs (hyperthreads
of the same core, caches, a busy hypervisor) the same Python work took up to x2.7 the CPU time
here. So each mark also times a fixed piece of work, the *probe* (the least of two tries of
about 13 us of thread CPU time): how much more CPU time the probe took in the last fifth than in the first is how much
slower the CPUs got, and CPU time per run is compared after dividing that out.

Marks are taken by time, not per batch of runs, and a run shorter than `MIN_VERDICT_S` between
its first and last mark gets no slowdown verdict at all.
"""

from __future__ import annotations

import os
import time
from typing import Any, Dict, List, Optional, Sequence

#: Least wall time between two marks.
MARK_EVERY_S = 0.1
#: Least wall time between the first and the last mark for any slowdown verdict.
MIN_VERDICT_S = 1.5
#: Least marks for a verdict.
MIN_MARKS = 6
#: Fields of a mark, cumulative except `feed_bytes` (the last sample, None when not sampled).
FIELDS = ("runs", "wall", "run", "save", "process_cpu", "thread_cpu", "queue_wait", "machine_busy", "probe",
          "feed_bytes")
#: Iterations of the probe's fixed work.
_PROBE_WORK = 1000
_INDEX = {name: i for i, name in enumerate(FIELDS)}
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") and "SC_CLK_TCK" in getattr(
    os, "sysconf_names", {}) else 100


def _allowed_cpus() -> Optional[frozenset]:
    try:
        return frozenset("cpu%d" % cpu for cpu in os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


def machine_busy_seconds(cpus: Optional[frozenset]) -> Optional[float]:
    """Seconds the CPUs in `cpus` (``cpu0``...; all when None) were busy since boot, by /proc/stat; None without it."""
    try:
        with open("/proc/stat", "rb") as stat:
            text = stat.read().decode("ascii", "replace")
    except OSError:
        return None
    busy = 0
    found = False
    for line in text.splitlines():
        if not line.startswith("cpu") or line.startswith("cpu "):
            continue
        parts = line.split()
        if cpus is not None and parts[0] not in cpus:
            continue
        try:
            # user nice system idle iowait irq softirq steal (guest time is within user).
            values = [int(v) for v in parts[1:9]]
        except ValueError:
            continue
        busy += values[0] + values[1] + values[2] + values[5] + values[6] + values[7]
        found = True
    return busy / _CLOCK_TICKS if found else None


def thread_queue_wait_seconds() -> Optional[float]:
    """Seconds the calling thread was runnable but waited for a CPU (/proc/thread-self/schedstat); None without it."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


def probe_seconds() -> float:
    """Thread CPU seconds of a fixed piece of Python work (the least of two tries): how fast the CPUs are now."""
    best = None
    for _ in range(2):
        start = time.thread_time()
        sum(range(_PROBE_WORK))
        took = time.thread_time() - start
        best = took if best is None else min(best, took)
    return best


def feed_bytes(feed: Any) -> Optional[int]:
    """Bytes of a feed dict's values: exact for arrays (``nbytes``), estimated for lists (8 bytes an item)."""
    try:
        values = list(feed.values())
    except Exception:  # not a mapping: nothing to measure
        return None
    total = 0
    for value in values:
        size = getattr(value, "nbytes", None)
        if not isinstance(size, int):
            if isinstance(value, (list, tuple)):
                first = value[0] if value else None
                inner = getattr(first, "nbytes", None)
                if not isinstance(inner, int):
                    inner = 8 * len(first) if isinstance(first, (list, tuple)) else 8
                size = len(value) * inner
            elif isinstance(value, (bytes, str)):
                size = len(value)
            else:
                size = 8
        total += size
    return total


class ClockMarks:
    """Cumulative marks (see FIELDS) of one guarding thread, taken by time, evenly thinned to at most `cap`.

    When full, every other mark is dropped and only every `stride`-th new one is kept; the
    latest is always kept apart. A mark from another thread than the previous ones (`tfguard
    run` moved to the thread that trains) starts the marks afresh: thread clocks are per thread.
    """

    __slots__ = ("cap", "stride", "_kept", "_seen", "_latest", "_thread", "_cpus", "last_wall")

    def __init__(self, cap: int = 512) -> None:
        self.cap = cap
        self.stride = 1
        self._kept: List[tuple] = []
        self._seen = 0
        self._latest: Optional[tuple] = None
        self._thread: Optional[int] = None
        self._cpus = _allowed_cpus()
        #: Wall time of the latest mark (-inf before the first): the next is due MARK_EVERY_S after it.
        self.last_wall = float("-inf")

    def due(self, wall: float) -> bool:
        """Whether a mark at `wall` seconds is due."""
        return wall - self.last_wall >= MARK_EVERY_S

    def add(self, thread: int, runs: int, wall: float, run: float, save: float,
            feed_bytes_sample: Optional[int] = None) -> None:
        """Mark the totals after `runs` runs at `wall` seconds, reading the clocks now (on `thread`)."""
        if thread != self._thread:
            self.__init__(self.cap)
            self._thread = thread
        mark = (runs, wall, run, save, time.process_time(), time.thread_time(), thread_queue_wait_seconds(),
                machine_busy_seconds(self._cpus), probe_seconds(), feed_bytes_sample)
        self.last_wall = wall
        self._latest = mark
        self._seen += 1
        if self._seen % self.stride:
            return
        self._kept.append(mark)
        if len(self._kept) >= self.cap:
            self._kept = self._kept[::2]
            self.stride *= 2

    @property
    def marks(self) -> List[tuple]:
        """The marks kept, oldest first, ending with the latest."""
        if self._latest is None or (self._kept and self._kept[-1] is self._latest):
            return list(self._kept)
        return self._kept + [self._latest]

    def windows(self) -> Optional[Dict[str, Any]]:
        """Per-run figures of the first and the last fifth of the runs marked (see `compare`)."""
        return compare(self.marks)


def compare(marks: Sequence[tuple]) -> Optional[Dict[str, Any]]:
    """Per-run wall, sess.run, host, process CPU, thread CPU and CPU-queue time, other jobs' CPUs, feed bytes and
    the probe's median CPU time, over the first and the last fifth of the runs `marks` span:
    {"first": {...}, "last": {...}, "span_s": ...}.

    None when the marks cover under MIN_VERDICT_S of wall time, are fewer than MIN_MARKS, or hold no runs.
    """
    if len(marks) < MIN_MARKS or marks[-1][0] <= marks[0][0] or marks[-1][1] - marks[0][1] < MIN_VERDICT_S:
        return None
    span = marks[-1][0] - marks[0][0]
    first_end = next(i for i, m in enumerate(marks) if i and m[0] >= marks[0][0] + 0.2 * span)
    last_start = next(i for i in range(len(marks) - 2, -1, -1) if marks[i][0] <= marks[-1][0] - 0.2 * span)
    first = _window(marks, 0, first_end)
    last = _window(marks, last_start, len(marks) - 1)
    if first is None or last is None or first["wall"] <= 0:
        return None
    return {"first": first, "last": last, "span_s": marks[-1][1] - marks[0][1]}


def _window(marks: Sequence[tuple], start: int, end: int) -> Optional[Dict[str, Optional[float]]]:
    a, b = marks[start], marks[end]
    runs = b[0] - a[0]
    wall = b[1] - a[1]
    if runs <= 0 or wall <= 0:
        return None

    def per_run(name: str) -> Optional[float]:
        i = _INDEX[name]
        return None if a[i] is None or b[i] is None else (b[i] - a[i]) / runs

    window = {name: per_run(name) for name in ("wall", "run", "save", "process_cpu", "thread_cpu", "queue_wait")}
    window["host"] = max(0.0, window["wall"] - window["run"] - window["save"])
    busy = _INDEX["machine_busy"]
    if a[busy] is None or b[busy] is None:
        window["others_cpus"] = None
    else:  # CPUs' worth of work of everything but this process
        window["others_cpus"] = max(0.0, (b[busy] - a[busy]) - (b[4] - a[4])) / wall
    samples = [m[-1] for m in marks[start:end + 1] if m[-1] is not None]
    window["feed_bytes"] = sum(samples) / len(samples) if samples else None
    probes = sorted(m[_INDEX["probe"]] for m in marks[start:end + 1] if m[_INDEX["probe"]])
    window["probe"] = probes[len(probes) // 2] if probes else None
    return window
