"""GPU utilisation while guarded: NVML sampled from a background thread.

Needs nvidia-ml-py (``pip install nvidia-ml-py``, imported as ``pynvml``). Without it, without
an NVIDIA driver, or with no GPU visible (``CUDA_VISIBLE_DEVICES``), the sampler starts no thread and
its summary says why in one line; nothing fails. Samples are folded into a per-GPU histogram of
utilisation percentages (101 counters), so memory stays constant however long the run.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Dict, List, Optional, Tuple

from tfguard.runtime.document import format_bytes

#: Seconds between two samples of every GPU.
DEFAULT_INTERVAL = 0.1
#: A sample under this utilisation (percent) counts as idle.
IDLE_BELOW = 10

_nvml_lock = threading.Lock()
_nvml_state: Optional[Tuple[Any, Optional[str]]] = None  # (pynvml module or None, why not)


def _nvml() -> Tuple[Any, Optional[str]]:
    """(pynvml, None) once NVML is initialised in this process, else (None, the reason)."""
    global _nvml_state
    with _nvml_lock:
        if _nvml_state is None:
            try:
                import pynvml  # pip install nvidia-ml-py
            except ImportError:
                # The advice only where it helps: a machine with an NVIDIA driver (and so, likely, a GPU).
                _nvml_state = (None, "no GPU visible (nvidia-ml-py not installed: pip install nvidia-ml-py)"
                               if _nvidia_driver() else "no GPU visible (no NVIDIA driver on this machine)")
            else:
                try:
                    pynvml.nvmlInit()
                except Exception as exc:  # NVMLError_*: no driver, no library, no permission
                    _nvml_state = (None, "no GPU visible (NVML: %s)" % (str(exc) or type(exc).__name__))
                else:
                    _nvml_state = (pynvml, None)
        return _nvml_state


def _nvidia_driver() -> bool:
    """Whether this machine has an NVIDIA driver: its /proc entry (Linux) or nvidia-smi on PATH."""
    import shutil

    return os.path.exists("/proc/driver/nvidia/version") or shutil.which("nvidia-smi") is not None


def _visible_handles(nvml: Any) -> List[Tuple[str, Any]]:
    """(label, handle) of each GPU this process may use, in CUDA_VISIBLE_DEVICES order."""
    count = nvml.nvmlDeviceGetCount()
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None:
        picks: List[str] = [str(i) for i in range(count)]
    else:
        picks = [p.strip() for p in visible.split(",") if p.strip()]
    handles = []
    for position, pick in enumerate(picks):
        try:
            if pick.isdigit():
                index = int(pick)
                if index >= count:
                    break  # CUDA stops at the first invalid entry
                handle = nvml.nvmlDeviceGetHandleByIndex(index)
            elif pick.startswith(("GPU-", "MIG-")):
                handle = nvml.nvmlDeviceGetHandleByUUID(pick)
            else:
                break  # "-1", "NoDevFiles", ...: CUDA sees nothing from here on
        except Exception:  # an entry NVML does not know: CUDA would not see it either
            break
        name = nvml.nvmlDeviceGetName(handle)
        if isinstance(name, bytes):
            name = name.decode("utf-8", "replace")
        handles.append(("GPU %d (%s)" % (position, name), handle))
    return handles


class GpuStats:
    """Samples of one GPU: a utilisation histogram and the peak memory used."""

    __slots__ = ("label", "histogram", "samples", "peak_memory", "total_memory")

    def __init__(self, label: str, total_memory: Optional[int] = None) -> None:
        self.label = label
        self.histogram = [0] * 101
        self.samples = 0
        self.peak_memory = 0
        self.total_memory = total_memory

    def add(self, utilisation: int, memory_used: int) -> None:
        """Record one sample: utilisation in percent, memory used in bytes."""
        self.histogram[max(0, min(100, int(utilisation)))] += 1
        self.samples += 1
        if memory_used > self.peak_memory:
            self.peak_memory = memory_used

    def summary(self) -> Dict[str, Any]:
        """JSON-ready: median/mean utilisation, idle share, peak memory."""
        count = self.samples
        median = mean = idle = None
        if count:
            mean = sum(value * n for value, n in enumerate(self.histogram)) / count
            idle = sum(self.histogram[:IDLE_BELOW]) / count
            median = _histogram_median(self.histogram, count)
        return {"gpu": self.label, "samples": count, "utilisation_median": median, "utilisation_mean": mean,
                "idle_share": idle, "peak_memory_bytes": self.peak_memory if count else None,
                "total_memory_bytes": self.total_memory}


def _histogram_median(histogram: List[int], count: int) -> float:
    """Median of the values 0..100 counted in `histogram` (mean of the two middle ones when even)."""
    low_rank, high_rank = (count - 1) // 2, count // 2
    seen, low = 0, None
    for value, n in enumerate(histogram):
        seen += n
        if low is None and seen > low_rank:
            low = value
        if seen > high_rank:
            return (low + value) / 2.0
    return float(low or 0)


class GpuSampler:
    """Samples every visible GPU's utilisation and memory every `interval` s on a daemon thread.

    `start()` finds the GPUs (or the reason there are none) and starts the thread; `stop()` joins it.
    Nothing runs on the caller's thread between the two.
    """

    def __init__(self, interval: float = DEFAULT_INTERVAL) -> None:
        self.interval = interval
        self.gpus: List[GpuStats] = []
        self.reason: Optional[str] = None
        self._handles: List[Any] = []
        self._nvml: Any = None
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._lock = threading.Lock()

    def start(self) -> "GpuSampler":
        """Find the visible GPUs and start sampling them (no thread when there are none)."""
        nvml, reason = _nvml()
        if nvml is None:
            self.reason = reason
            return self
        try:
            found = _visible_handles(nvml)
            for label, handle in found:
                total = nvml.nvmlDeviceGetMemoryInfo(handle).total
                self.gpus.append(GpuStats(label, int(total)))
                self._handles.append(handle)
        except Exception as exc:  # a driver error while listing: report it, never raise
            self.gpus, self._handles = [], []
            self.reason = "no GPU visible (NVML error while listing GPUs: %s)" % (str(exc) or type(exc).__name__)
            return self
        if not self.gpus:
            self.reason = "no GPU visible" + (" (CUDA_VISIBLE_DEVICES=%r)" % os.environ["CUDA_VISIBLE_DEVICES"]
                                              if "CUDA_VISIBLE_DEVICES" in os.environ else "")
            return self
        self._nvml = nvml
        self._thread = threading.Thread(target=self._loop, name="tfguard-gpu-sampler", daemon=True)
        self._thread.start()
        return self

    def _loop(self) -> None:
        nvml, handles = self._nvml, self._handles
        while True:
            try:
                readings = [(nvml.nvmlDeviceGetUtilizationRates(h).gpu, nvml.nvmlDeviceGetMemoryInfo(h).used)
                            for h in handles]
            except Exception as exc:  # the driver went away: keep what was sampled
                self.reason = "sampling stopped: NVML error (%s)" % (str(exc) or type(exc).__name__)
                return
            with self._lock:
                for stats, (utilisation, used) in zip(self.gpus, readings):
                    stats.add(utilisation, int(used))
            if self._stop.wait(self.interval):
                return

    def stop(self) -> None:
        """Stop sampling and wait for the thread (idempotent)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()

    def summary(self) -> Dict[str, Any]:
        """JSON-ready: per GPU utilisation summary, or the one-line reason there is none."""
        with self._lock:
            gpus = [g.summary() for g in self.gpus]
        return {"interval_s": self.interval, "gpus": gpus, "reason": self.reason}


def describe_gpus(gpu: Optional[Dict[str, Any]]) -> List[str]:
    """One line per sampled GPU (or the one line saying why there is none), for tables and messages."""
    if gpu is None:
        return []
    lines = []
    for g in gpu["gpus"]:
        if not g["samples"]:
            lines.append("%s: no samples" % g["gpu"])
            continue
        lines.append("%s: utilisation median %.0f%%, mean %.0f%%, under %d%% in %.0f%% of %d samples; "
                     "peak memory %s" % (g["gpu"], g["utilisation_median"], g["utilisation_mean"], IDLE_BELOW,
                                         100 * g["idle_share"], g["samples"], format_bytes(g["peak_memory_bytes"])))
    if gpu.get("reason"):
        lines.append(gpu["reason"])
    return lines


def busy_phrase(gpu: Optional[Dict[str, Any]]) -> Optional[str]:
    """`GPU 0 (name) busy (>=10%) in 8% of samples`, for TFG903; None without samples."""
    parts = ["%s busy in %.0f%% of samples" % (g["gpu"], 100 * (1 - g["idle_share"]))
             for g in (gpu or {}).get("gpus", []) if g["samples"]]
    return ", ".join(parts) or None
