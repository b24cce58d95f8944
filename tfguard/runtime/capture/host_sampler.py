"""Samples the guarding thread's Python stack between runs, from one helper thread (host_time.py reads them).

While at least one guard is active, a daemon thread wakes every `INTERVAL_S` and reads `sys._current_frames()`:
for each guarded thread that is not inside a session call or a `Saver.save` (those are run time and save time),
it notes the innermost project line, the libraries it was inside and the project functions around it. Nothing
runs on the guarded thread: `sess.run`'s own path is unchanged. Samples taken in the first runs are kept with
their run number, so that the set-up before the loop can be left out once the loop's start is known.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import threading
from typing import Any, Dict, List, Optional, Tuple

from tfguard.runtime.record.tracebacks import is_library_file

#: Seconds between samples: about 50 a second, a few microseconds of stack reading each.
INTERVAL_S = 0.02
#: Distinct sample keys kept per guard (the rest are dropped: memory stays bounded).
_MAX_KEYS = 4096
#: Samples kept with their run number (the early ones, where the loop's start may still be).
_EARLY = 4096
#: Frames read per sample.
_DEPTH = 64
_RUNTIME_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: (file, function) of tfguard's wrappers around a run or a save: a thread inside one is not in host time.
_INSIDE = {(os.path.join(_RUNTIME_DIR, "capture", "session_tap.py"), name) for name in ("run", "call")} | {
    (os.path.join(_RUNTIME_DIR, "capture", "saver_patch.py"), "save"),
    (os.path.join(_RUNTIME_DIR, "run", "hook.py"), "run")}
_STDLIB = os.path.abspath(sysconfig.get_paths()["stdlib"]) + os.sep

Key = Tuple[str, int, Tuple[str, ...], Tuple[str, ...]]


class HostSamples:
    """The samples of one guard: early ones with their run number, the later ones counted by key."""

    def __init__(self, recorder: Any) -> None:
        self.recorder = recorder
        self.early: List[Tuple[int, Key]] = []
        self.late: Dict[Key, int] = {}

    def add(self, key: Key) -> None:
        """Keep one sample (called on the sampler thread)."""
        if len(self.early) < _EARLY:
            self.early.append((self.recorder.runs, key))
        elif key in self.late or len(self.late) < _MAX_KEYS:
            self.late[key] = self.late.get(key, 0) + 1

    def after(self, loop_start: int) -> List[Tuple[Key, int]]:
        """(key, count) of the samples taken once `loop_start` runs had been made."""
        counts = dict(self.late)
        for runs, key in list(self.early):
            if runs > loop_start:
                counts[key] = counts.get(key, 0) + 1
        return list(counts.items())


class _Sampler:
    """The one sampler thread of the process and the guards it samples for."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.targets: Dict[int, HostSamples] = {}
        self.thread: Optional[threading.Thread] = None
        self.stop = threading.Event()
        #: True: the thread wakes but reads no stack (bench/guard_overhead.py compares both in one run).
        self.paused = False

    def register(self, recorder: Any) -> HostSamples:
        samples = HostSamples(recorder)
        with self.lock:
            self.targets[id(recorder)] = samples
            if self.thread is None:
                self.stop = threading.Event()
                self.thread = threading.Thread(target=self._loop, args=(self.stop,), name="tfguard-host-sampler",
                                               daemon=True)
                self.thread.start()
        return samples

    def unregister(self, recorder: Any) -> None:
        with self.lock:
            self.targets.pop(id(recorder), None)
            if not self.targets and self.thread is not None:
                self.stop.set()
                self.thread = None

    def _loop(self, stop: threading.Event) -> None:
        try:
            while not stop.wait(INTERVAL_S):
                if self.paused:
                    continue
                with self.lock:
                    targets = list(self.targets.values())
                frames = sys._current_frames()
                for samples in targets:
                    frame = frames.get(samples.recorder.thread)
                    if frame is not None and not samples.recorder.failed:
                        key = sample_key(frame)
                        if key is not None:
                            samples.add(key)
                # Hold no frame while asleep: a frame kept alive keeps its locals (the program's session) alive.
                frames = frame = targets = samples = None  # type: ignore[assignment]
        except Exception as exc:  # tfguard's thread: its error stops the sampling only
            from tfguard.runtime.safety import internal_error

            internal_error("the host-time sampler", exc, "sampling host time")


_sampler = _Sampler()


def pause(paused: bool) -> None:
    """Pause (True) or resume the sampling of every guard: for measuring what it costs."""
    _sampler.paused = paused


def watch(recorder: Any) -> Any:
    """Sample `recorder`'s thread until the returned undo is called; sets `recorder.host_samples`."""
    recorder.host_samples = _sampler.register(recorder)
    return lambda: _sampler.unregister(recorder)


def sample_key(frame: Any) -> Optional[Key]:
    """(innermost project path, its line, libraries inside it innermost first, project functions innermost
    first) of a stack, or None when it is inside a run or a save, or has no project frame."""
    libraries: List[str] = []
    functions: List[str] = []
    site = None
    depth = 0
    while frame is not None and depth < _DEPTH:
        code = frame.f_code
        filename = code.co_filename
        if (filename, code.co_name) in _INSIDE:
            return None
        if site is None:
            if is_project_frame(filename):
                site = (filename, frame.f_lineno)
                functions.append(code.co_name)
            elif not is_library_file(filename):
                name = library_name(filename)
                if name and name not in libraries and len(libraries) < 3:
                    libraries.append(name)
        elif is_project_frame(filename) and len(functions) < 4:
            functions.append(code.co_name)
        frame = frame.f_back
        depth += 1
    if site is None:
        return None
    return site[0], site[1], tuple(libraries), tuple(functions)


_project_cache: Dict[str, bool] = {}


def is_project_frame(filename: str) -> bool:
    """Whether `filename` is the program's own code: not TensorFlow's or tfguard's, not installed, not stdlib."""
    known = _project_cache.get(filename)
    if known is None:
        if filename.startswith("<") or is_library_file(filename):
            known = False
        else:
            absolute = os.path.abspath(filename)
            parts = absolute.replace("\\", "/").split("/")
            known = not absolute.startswith(_STDLIB) and "site-packages" not in parts and "dist-packages" not in parts
        _project_cache[filename] = known
    return known


def library_name(filename: str) -> str:
    """`matplotlib` for .../site-packages/matplotlib/figure.py, `threading` for the standard library's."""
    parts = os.path.abspath(filename).replace("\\", "/").split("/")
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            index = parts.index(marker)
            if index + 1 < len(parts):
                return parts[index + 1].split(".")[0]
    if os.path.abspath(filename).startswith(_STDLIB):
        rest = os.path.abspath(filename)[len(_STDLIB):].replace("\\", "/").split("/")
        return rest[0].split(".")[0]
    return ""
