"""`tfguard.placement(sess, fetches)`: where each op of one step ran, and what crossed devices.

One step runs with ``RunOptions(trace_level=FULL_TRACE, output_partition_graphs=True)``; its
``RunMetadata`` is read together with the graph:

- ``step_stats``: the ops each device executed and their kernel time. GPU kernels come from the
  ``/device:GPU:N/stream:all`` entry when the trace has one, copies from ``/device:GPU:N/memcpy``;
- ``partition_graphs``: the ``_Send``/``_Recv`` pairs TensorFlow inserted for every tensor that crosses
  from one device to another (bytes from the producing op's output in ``step_stats``);
- the graph: each executed op's requested device (``op.device``) and the user's source line
  (``Operation.traceback``), and the variables of the graph.

This is what ``log_device_placement=True`` printed, summed up and pointed at source lines. Imports
TensorFlow only when a step is traced.
"""

from __future__ import annotations

import re
from time import perf_counter
from typing import Any, Dict, List, Optional, Tuple

from tfguard.runtime.document import DataReport, display_path, format_bytes, format_seconds
from tfguard.runtime.judge import judge_placement
from tfguard.runtime.judge.gpu_op_on_cpu import fallback_sites

PLACEMENT_VERSION = 1
#: TFG907 when this many tensors cross devices in the traced step.
DEFAULT_COPIES_THRESHOLD = 20
_TOP = 3
_TYPES_SHOWN = 3
_SEND_OPS = ("_Send", "_HostSend")
_BOOKKEEPING = ("_SOURCE", "_SINK")
_MEMCPY_KINDS = ("HtoD", "DtoH", "DtoD", "HtoH", "PtoP")
_BYTES_RE = re.compile(r"(\d+)\s*bytes")


# -- device names ---------------------------------------------------------------------------------
def short_device(name: str) -> str:
    """`CPU:0` for `/job:localhost/replica:0/task:0/device:CPU:0`, `/cpu:0` or `/device:GPU:0/stream:all`.

    The job and task are kept when they are not the local defaults (`worker/1/GPU:0`); '' for no device.
    """
    job = task = kind = None
    for part in name.split("/"):
        if not part:
            continue
        key, _, rest = part.partition(":")
        low = key.lower()
        if low == "job":
            job = rest
        elif low == "task":
            task = rest
        elif low == "device":
            kind = rest
        elif low in ("replica", "stream", "memcpy"):
            continue
        elif kind is None and (rest.isdigit() or rest == "*"):  # legacy `/cpu:0`, `/gpu:1`
            kind = "%s:%s" % (key, rest)
    if kind is None:
        return ""
    dev_type, _, index = kind.partition(":")
    short = "%s:%s" % (dev_type.upper(), index or "0")
    if job not in (None, "localhost") or task not in (None, "0"):
        short = "%s/%s/%s" % (job or "?", task or "0", short)
    return short


def device_type(name: str) -> str:
    """`GPU` for `GPU:0` (or any form short_device reads), '' for no device."""
    short = short_device(name) if "/" in name or name[:1].islower() else name
    return short.rsplit("/", 1)[-1].split(":")[0]


# -- tracing one step -----------------------------------------------------------------------------
def trace_options(options: Any = None) -> Any:
    """RunOptions asking for a full trace and the partition graphs (a copy of `options` when given)."""
    from tfguard.runtime.tf_access import tf_v1

    v1 = tf_v1()
    traced = v1.RunOptions()
    if options is not None:
        traced.CopyFrom(options)
    traced.trace_level = v1.RunOptions.FULL_TRACE
    traced.output_partition_graphs = True
    return traced


def placement(sess: Any, fetches: Any, feed_dict: Any = None,
              copies_threshold: int = DEFAULT_COPIES_THRESHOLD) -> "PlacementReport":
    """Run one step of `fetches` traced and report where its ops ran and what crossed devices.

    The step is a real run (a train op trains once). Ops pinned to a GPU that ran on a CPU are
    listed with the user's source line (TFG906); `copies_threshold` or more tensors crossing devices
    in the step is TFG907 (info).
    """
    graph = getattr(sess, "graph", None)
    if graph is None or not callable(getattr(sess, "run", None)):
        raise TypeError("tfguard.placement needs a TensorFlow session with .run and .graph, got %s"
                        % type(sess).__name__)
    if not isinstance(copies_threshold, int) or copies_threshold < 1:
        raise ValueError("copies_threshold must be a positive whole number, got %r" % (copies_threshold,))
    from tfguard.runtime.tf_access import tf_v1

    metadata = tf_v1().RunMetadata()
    t0 = perf_counter()
    sess.run(fetches, feed_dict=feed_dict, options=trace_options(), run_metadata=metadata)
    run_s = perf_counter() - t0
    return read_step(graph, metadata, label=_label(fetches, feed_dict), session_devices=session_devices(sess),
                     run_s=run_s, copies_threshold=copies_threshold)


def _label(fetches: Any, feed_dict: Any) -> str:
    from tfguard.runtime.record.signature import describe_fetches, feed_keys

    return describe_fetches(fetches, feed_keys(feed_dict))


def session_devices(sess: Any) -> Optional[List[str]]:
    """Short names of the devices the session can place ops on, or None when it cannot say."""
    lister = getattr(sess, "list_devices", None)
    if lister is None:
        return None
    try:
        return [short_device(d.name) for d in lister()]
    except Exception:  # a remote target that will not answer: say nothing rather than guess
        return None


# -- reading the trace ----------------------------------------------------------------------------
class _Trace:
    """What one RunMetadata says, by short device name."""

    def __init__(self, metadata: Any) -> None:
        self.devices: Dict[str, Dict[str, Any]] = {}
        self.ran_on: Dict[str, str] = {}
        self.output_bytes: Dict[Tuple[str, int], int] = {}
        self.memcpy: Dict[Tuple[str, str], List[Any]] = {}
        self.stream_us: Dict[str, int] = {}
        self.start_us: Optional[int] = None
        self.end_us: Optional[int] = None
        for dev_stats in metadata.step_stats.dev_stats:
            self._read_device(dev_stats)
        self.placed: Dict[str, str] = {}
        self.sends: List[Tuple[str, str, str]] = []  # (from, to, tensor)
        for partition in metadata.partition_graphs:
            self._read_partition(partition)

    def _read_device(self, dev_stats: Any) -> None:
        full = dev_stats.device
        short = short_device(full)
        if not short:  # not a device: the profiler's host threads (`/host:CPU`) and the like
            return
        if "/memcpy" in full:
            for node in dev_stats.node_stats:
                label = node.timeline_label or node.node_name
                kind = next((k for k in _MEMCPY_KINDS if k in label), "copy")
                found = _BYTES_RE.search(label)
                entry = self.memcpy.setdefault((short, kind), [0, None])
                entry[0] += 1
                if found:
                    entry[1] = (entry[1] or 0) + int(found.group(1))
            return
        if "/stream:" in full:
            if full.endswith("/stream:all"):
                self.stream_us[short] = self.stream_us.get(short, 0) + sum(
                    n.all_end_rel_micros for n in dev_stats.node_stats)
            return
        device = self.devices.setdefault(short, {"device": full, "ops": 0, "kernel_us": 0})
        for node in dev_stats.node_stats:
            name = node.node_name
            if name in _BOOKKEEPING:
                continue
            device["ops"] += 1
            device["kernel_us"] += max(0, node.op_end_rel_micros - node.op_start_rel_micros)
            self.ran_on.setdefault(name, short)
            start, end = node.all_start_micros, node.all_start_micros + node.all_end_rel_micros
            self.start_us = start if self.start_us is None else min(self.start_us, start)
            self.end_us = end if self.end_us is None else max(self.end_us, end)
            for output in node.output:
                allocation = output.tensor_description.allocation_description
                size = allocation.requested_bytes or _tensor_bytes(output.tensor_description)
                if size:
                    self.output_bytes[(name, output.slot)] = size

    def _read_partition(self, partition: Any) -> None:
        for node in partition.node:
            short = short_device(node.device)
            self.placed.setdefault(node.name, short)
            if node.op not in _SEND_OPS:
                continue
            attr = node.attr
            if attr["client_terminated"].b:  # a feed or fetch of the client (TF 1.x), not a device copy
                continue
            source = short_device(attr["send_device"].s.decode("utf-8", "replace")) or short
            target = short_device(attr["recv_device"].s.decode("utf-8", "replace"))
            if source != target:
                tensor = node.input[0] if node.input else attr["_src"].s.decode("utf-8", "replace")
                self.sends.append((source, target, tensor))

    def device_of(self, name: str) -> Optional[str]:
        """Where the op `name` ran in this step (None when it did not run)."""
        return self.ran_on.get(name) or self.placed.get(name)

    def tensor_bytes(self, tensor: str) -> Optional[int]:
        """Bytes of `op:slot` as the trace recorded its allocation, or None."""
        name, _, slot = tensor.lstrip("^").partition(":")
        return self.output_bytes.get((name, int(slot) if slot.isdigit() else 0))


def _tensor_bytes(description: Any) -> int:
    dims = [d.size for d in description.shape.dim]
    if any(d < 0 for d in dims) or not description.dtype:
        return 0
    try:
        from tfguard.runtime.tf_access import tf_v1

        size = tf_v1().as_dtype(description.dtype).size
    except Exception:  # a dtype with no fixed size (string, resource, variant)
        return 0
    for d in dims:
        size *= d
    return size


def read_step(graph: Any, metadata: Any, label: str = "", session_devices: Optional[List[str]] = None,
              run_s: Optional[float] = None, copies_threshold: int = DEFAULT_COPIES_THRESHOLD,
              run: Optional[int] = None) -> "PlacementReport":
    """Build the placement report of one traced step from its RunMetadata and the graph."""
    trace = _Trace(metadata)
    total_us = 0
    devices = []
    for short, info in sorted(trace.devices.items()):
        kernel_us = trace.stream_us.get(short, info["kernel_us"])
        total_us += kernel_us
        devices.append({"device": short, "full_name": info["device"], "ops": info["ops"],
                        "kernel_s": kernel_us / 1e6, "gpu_streams": short in trace.stream_us})
    for device in devices:
        device["share"] = device["kernel_s"] * 1e6 / total_us if total_us else None
    data = {
        "version": PLACEMENT_VERSION,
        "label": label,
        "run": run,
        "run_s": run_s,
        "traced_s": (trace.end_us - trace.start_us) / 1e6 if trace.start_us is not None else None,
        "session_devices": session_devices,
        "gpus_visible": _gpus_visible(session_devices, trace),
        "devices": devices,
        "fallbacks": _fallbacks(graph, trace),
        "transfers": _transfers(trace),
        "memcpy": [{"device": dev, "kind": kind, "count": n, "bytes": size}
                   for (dev, kind), (n, size) in sorted(trace.memcpy.items())],
        "variables": _variables(graph, trace),
        "copies_threshold": copies_threshold,
    }
    # The placement document keeps its diagnostics as it always did (message, path, line, evidence).
    data["diagnostics"] = [{"code": d.code, "severity": d.severity, "message": d.one_line, "path": d.path,
                            "line": d.line, "evidence": d.evidence} for d in judge_placement(data)]
    return PlacementReport(data)


def _gpus_visible(session_devices: Optional[List[str]], trace: _Trace) -> List[str]:
    names = session_devices if session_devices is not None else list(trace.devices)
    return sorted({n for n in names if device_type(n) == "GPU"})


def _op_by_name(graph: Any, name: str) -> Any:
    by_name = getattr(graph, "_nodes_by_name", None)
    if isinstance(by_name, dict):
        return by_name.get(name)
    try:
        return graph.get_operation_by_name(name)
    except (KeyError, ValueError):
        return None


def _fallbacks(graph: Any, trace: _Trace) -> List[Dict[str, Any]]:
    """Executed ops whose requested device is a GPU but that ran on a CPU, with the user's line."""
    from tfguard.runtime.record.tracebacks import source_line, user_and_api_from_traceback
    from tfguard.runtime.tf_access import op_traceback

    found = []
    names = list(trace.ran_on) + [n for n in trace.placed if n not in trace.ran_on]
    for name in names:
        ran_on = trace.device_of(name)
        if device_type(ran_on or "") != "CPU":
            continue
        op = _op_by_name(graph, name)
        requested = getattr(op, "device", "") if op is not None else ""
        if not requested or device_type(requested) != "GPU":
            continue
        try:
            site, _ = user_and_api_from_traceback(op_traceback(op))
        except Exception:  # no traceback kept for this op
            site = None
        path, line = site if site else ("<unknown>", 0)
        found.append({"op": name, "type": op.type, "requested": requested, "ran_on": ran_on,
                      "path": path, "line": line, "code": source_line(path, line) if site else ""})
    found.sort(key=lambda f: (f["path"], f["line"], f["op"]))
    return found


def _transfers(trace: _Trace) -> List[Dict[str, Any]]:
    pairs: Dict[Tuple[str, str], Dict[str, Any]] = {}
    for source, target, tensor in trace.sends:
        entry = pairs.setdefault((source, target), {"from": source, "to": target, "count": 0, "bytes": 0,
                                                    "unknown_bytes": 0, "tensors": []})
        entry["count"] += 1
        size = trace.tensor_bytes(tensor)
        if size is None:
            entry["unknown_bytes"] += 1
        else:
            entry["bytes"] += size
        if len(entry["tensors"]) < 5:
            entry["tensors"].append(tensor)
    return sorted(pairs.values(), key=lambda e: (-e["count"], e["from"], e["to"]))


def _variables(graph: Any, trace: _Trace) -> List[Dict[str, Any]]:
    by_device: Dict[str, Dict[str, Any]] = {}
    try:
        variables = list(graph.get_collection("variables"))
    except Exception:  # not a tf.Graph
        variables = []
    for var in variables:
        op = getattr(var, "op", None)
        name = getattr(op, "name", None) or getattr(var, "name", "?")
        device = trace.device_of(name)
        requested_only = device is None
        if device is None:
            device = short_device(getattr(var, "device", "") or "") or "(unplaced)"
        entry = by_device.setdefault(device, {"device": device, "count": 0, "bytes": 0, "names": [],
                                              "requested_only": 0})
        entry["count"] += 1
        entry["requested_only"] += requested_only
        entry["bytes"] += _variable_bytes(var)
        if len(entry["names"]) < 5:
            entry["names"].append(name)
    return sorted(by_device.values(), key=lambda e: (-e["bytes"], e["device"]))


def _variable_bytes(var: Any) -> int:
    try:
        shape = var.get_shape()
        size = var.dtype.base_dtype.size
        if not shape.is_fully_defined():
            return 0
        for dim in shape.as_list():
            size *= dim
        return int(size)
    except Exception:  # a variable-like object without a static shape or a sized dtype
        return 0


# -- the report -----------------------------------------------------------------------------------
class PlacementReport(DataReport):
    """Where one traced step ran. Build it with `read_step` or `from_dict`; every field is in `to_dict()`."""

    VERSION = PLACEMENT_VERSION
    KIND = "placement report"

    @property
    def diagnostics(self) -> List[Tuple[str, str, str]]:
        """[(code, severity, message)]."""
        return [(d["code"], d["severity"], d["message"]) for d in self._data["diagnostics"]]

    def device_of(self, op_name: str) -> Optional[str]:
        """Where a fallen-back op ran (`CPU:0`), or None when it is not among the fallbacks."""
        for f in self._data["fallbacks"]:
            if f["op"] == op_name:
                return f["ran_on"]
        return None

    def table(self) -> str:
        """The placement tables: devices, GPU fallbacks by line, tensors crossing devices, variables."""
        return "\n\n".join(placement_blocks(self._data))

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return "PlacementReport(devices=%s, fallbacks=%d, transfers=%d)" % (
            [d["device"] for d in self._data["devices"]], len(self._data["fallbacks"]),
            sum(t["count"] for t in self._data["transfers"]))


def placement_blocks(d: Dict[str, Any]) -> List[str]:
    """Text blocks of a placement report's data (also used inside the guard's report table)."""
    from tabulate import tabulate

    when = " (traced at run %d)" % d["run"] if d.get("run") else ""
    title = "placement of one step: `%s`%s" % (d["label"], when)
    rows = [[dev["device"], dev["ops"], format_seconds(dev["kernel_s"]) + (" (GPU streams)" if dev["gpu_streams"]
                                                                             else ""),
             "-" if dev["share"] is None else "%.1f%%" % (100 * dev["share"])] for dev in d["devices"]]
    gpus = ", ".join(d["gpus_visible"]) or "none"
    blocks = [title + "\n" + tabulate(rows, headers=["device", "ops", "kernel time", "share"], tablefmt="simple")
              + "\nGPUs visible to the session: %s" % gpus]
    if d["fallbacks"]:
        rows = [["%s:%d" % (display_path(s["path"]), s["line"]), s["code"][:50], s["types"], s["ops"], s["ran_on"]]
                for s in fallback_sites(d["fallbacks"])]
        blocks.append("ops pinned to a GPU that ran on a CPU\n" + tabulate(
            rows, headers=["site", "code", "op types", "ops", "ran on"], tablefmt="simple"))
    else:
        blocks.append("ops pinned to a GPU that ran on a CPU: none")
    rows = [[t["from"], t["to"], t["count"], format_bytes(t["bytes"]) + (
        " (+%d unknown)" % t["unknown_bytes"] if t["unknown_bytes"] else "")] for t in d["transfers"]]
    rows += [[m["device"] + " memcpy", m["kind"], m["count"], format_bytes(m["bytes"])] for m in d["memcpy"]]
    if rows:
        blocks.append("tensors crossing devices in the step\n" + tabulate(
            rows, headers=["from", "to", "tensors", "bytes"], tablefmt="simple"))
    else:
        blocks.append("tensors crossing devices in the step: none")
    if d["variables"]:
        rows = [[v["device"] + (" (requested)" if v["requested_only"] == v["count"] else ""), v["count"],
                 format_bytes(v["bytes"]), ", ".join(v["names"]) + (", ..." if v["count"] > len(v["names"]) else "")]
                for v in d["variables"]]
        block = "variables by device\n" + tabulate(rows, headers=["device", "variables", "bytes", "names"],
                                                   tablefmt="simple")
        if len({v["device"] for v in d["variables"]}) > 1 or len(d["devices"]) > 1:
            block += ("\n(variables and ops on several devices: parameter-server style placement is fine; "
                      "the copies it makes are counted above)")
        blocks.append(block)
    return blocks
