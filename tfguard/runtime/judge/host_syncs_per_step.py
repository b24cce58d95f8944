"""TFG912 host-syncs-per-step: a user line copies a tensor's value to the host on every step.

Reads the ProgramRecord of a TF2 run (record/keras_calls.py; the `program` scope's evidence). `.numpy()`,
`float(t)`, `int(t)` and printing a tensor wait for the device to finish everything queued before the value, then
copy it: on a GPU the Python loop stops feeding the device at that line on every step, and a short step loses much
of its overlap. A line is judged when it synced at least once per step (`PER_STEP`) over at least `MIN_STEPS` steps
(the steps of the run's one step series, record/steps.py: calls of the most called function that applies gradients,
where none does the most called tf.function outside predict, or Keras train batches when more; a program with no
step is not judged). It is:

- a warning when the synced tensors live on a GPU or TPU, the first was a float scalar (a loss or a metric read
  for logging), and a step is short (`SHORT_STEP_S` or less): there the stall is a large share of the step;
- information otherwise, saying why: on the CPU ops run synchronously and a sync costs only its copy; an
  integer or boolean value, or an array, is what the loop itself needs to go on (a gym-style agent's action, an
  index, a stop flag) and is not worth a warning; a long step hides a short stall.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

from tfguard.runtime.diagnostics import RuntimeDiagnostic
from tfguard.runtime.document import display_path, format_seconds
from tfguard.runtime.record.evidence import Evidence
from tfguard.runtime.record.keras_calls import HostSyncSite, ProgramRecord
from tfguard.runtime.verdict import Diagnostic

#: Steps a run must have for its syncs to be judged.
MIN_STEPS = 10
#: Syncs per step at one line that make it a per-step sync.
PER_STEP = 1.0
#: A step this short or shorter loses much to a stall.
SHORT_STEP_S = 0.05
#: What to do instead (a warning's help).
HELP = "keep the value on the device (a `tf.keras.metrics.Mean`, a tf.Variable) and read it every N steps"

#: What the user wrote, per patched method.
_WRITTEN = {"numpy": ".numpy()", "__float__": "float(t)", "__int__": "int(t)", "__str__": "print(t)",
            "__repr__": "repr(t)", "__format__": "a tensor in an f-string"}


def _on_accelerator(device: str) -> bool:
    return ":GPU:" in device.upper() or ":TPU:" in device.upper()


def _why_info(site: HostSyncSite, record: ProgramRecord) -> str:
    """Why a per-step sync is information, or "" when it is worth a warning."""
    if not _on_accelerator(site.device):
        return "on the CPU, where ops run synchronously, a sync costs only its copy"
    if site.dtype.startswith(("int", "uint", "bool")) or site.size != 1:
        return "an integer, a flag or an array the loop needs to go on (an action, an index) is a sync it cannot " \
               "avoid"
    if record.step_seconds > SHORT_STEP_S:
        return "a %s step hides a short stall" % format_seconds(record.step_seconds)
    return ""


def _lines(record: ProgramRecord) -> List[Tuple[HostSyncSite, List[str]]]:
    """The sites merged per line (`print(float(loss))` is one line), with what was written there."""
    merged: Dict[Tuple[str, int], Tuple[HostSyncSite, List[str]]] = {}
    for site in record.host_syncs:
        key = (site.path, site.line)
        if key not in merged:
            merged[key] = (HostSyncSite(site.path, site.line, site.kind, 0, site.device, site.dtype, site.size), [])
        merged[key][0].count += site.count
        merged[key][1].append(_WRITTEN.get(site.kind, site.kind))
    return list(merged.values())


def message(site: HostSyncSite, written: List[str], record: ProgramRecord, why: str) -> str:
    """The finding's headline: the figures, then why it is information (a warning's help is `HELP`)."""
    head = "%s at %s:%d copies a tensor to the host %.1f times per step (%d syncs in %d steps of `%s`, %s each, " \
           "on %s)" % (" and ".join(written), display_path(site.path), site.line, site.count / record.steps,
                       site.count, record.steps, record.step_name, format_seconds(record.step_seconds),
                       site.device.rsplit("device:", 1)[-1] or "an unknown device")
    if why:
        return "%s; %s" % (head, why)
    return "%s: each waits for the device to finish the step's queued work" % head


def judge(evidence: Evidence) -> List[Diagnostic]:
    """TFG912 findings, one per user line that synced at least once per step (module docstring)."""
    record = evidence.program
    if record is None or record.steps < MIN_STEPS:
        return []
    found = []
    for site, written in sorted(_lines(record), key=lambda item: -item[0].count):
        per_step = site.count / record.steps
        if per_step < PER_STEP:
            continue
        why = _why_info(site, record)
        found.append(DIAGNOSTIC.finding(
            message(site, written, record, why), "info" if why else "warning", site.path, site.line,
            help="" if why else HELP,
            syncs=site.count, steps=record.steps, per_step=per_step, step=record.step_name,
            step_seconds=record.step_seconds, device=site.device, dtype=site.dtype, size=site.size,
            written=written))
    found.sort(key=lambda d: d.severity != "warning")
    return found


DIAGNOSTIC = RuntimeDiagnostic(
    "TFG912", "host-syncs-per-step", "warning", "A line copies a tensor to the host (`.numpy()`, `float(t)`, "
    "printing) on every step; a warning where a short GPU step stalls on it, information otherwise.",
    "host-syncs", judge)
