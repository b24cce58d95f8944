"""What fetching summaries cost a run, measured on like steps (TFG904 and the cluster view's hooks share).

A run that fetches summary ops is compared with the same step without them: a signature with the same
feeds whose fetches are a strict subset of the summary run's fetches and that fetches no summary op (the
training step `train_op, loss <- x, y` against `train_op, loss, Merge/MergeSummary <- x, y`). Its extra run
time is (median run time with summaries - median without) x the runs with summaries. A step read with other
feeds (a 1.5 ms state read) is never the base: that compared a training step with something else. When every
step fetches the summaries there is nothing to compare with, and the extra run time is not measured (None),
never taken as 0.

`FileWriter.add_summary` / `flush` time (recorded by tfguard.runtime.capture.writer_patch) is added either way.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

#: Runs a base signature needs before its median is trusted as "the same step without summaries".
MIN_BASE_RUNS = 3


def _parts(label: str) -> Optional[Tuple[frozenset, str]]:
    """(fetch names, feeds label) of a signature label ``a, b <- x, y``; None for a shortened label."""
    fetches, _, feeds = label.partition(" <- ")
    if fetches.endswith("...") or feeds.endswith("...") or fetches.startswith("("):
        return None
    return frozenset(name.strip() for name in fetches.split(",") if name.strip()), feeds


def _facts(sig: Any) -> Tuple[str, List[str], int, Optional[float]]:
    """(label, summary ops, count, median run time) of a signature: a SignatureRecord or a document's dict."""
    if isinstance(sig, dict):
        return sig["label"], sig["summary_ops"], sig["count"], sig["run_time"]["median"]
    return sig.label, sig.summary_ops, sig.count, sig.run_time.get("median")


def like_step(summary_sig: Any, signatures: List[Any]) -> Any:
    """The signature that is `summary_sig`'s step without the summaries (see the module docstring), or None."""
    own = _parts(_facts(summary_sig)[0])
    if own is None:
        return None
    fetches, feeds = own
    best = None
    for sig in signatures:
        label, summary_ops, count, median = _facts(sig)
        if summary_ops or count < MIN_BASE_RUNS or median is None:
            continue
        parts = _parts(label)
        if parts is None or parts[1] != feeds or not parts[0] < fetches:
            continue
        if best is None or len(parts[0]) > len(best[0]):
            best = (parts[0], sig)
    return best[1] if best else None


def summary_cost(data: Any) -> Dict[str, Any]:
    """The cost of summaries in a report's data (`SessionReport.to_dict()`) or a Recording.

    Returns ``runs`` (runs that fetched summary ops), ``extra_run_s`` (their run time over the like steps';
    None when some summary runs have no like step), ``pairs`` ([(summary label, base label, median with,
    median without)]), ``writer_s`` / ``writer_calls`` (FileWriter.add_summary and flush) and ``seconds``
    (what is measured of the two).
    """
    get = data.get if isinstance(data, dict) else lambda name: getattr(data, name, None)
    signatures = get("signatures") or []
    runs, extra, pairs, unmatched = 0, 0.0, [], 0
    for sig in signatures:
        label, summary_ops, count, with_ = _facts(sig)
        if not summary_ops or with_ is None:
            continue
        runs += count
        base = like_step(sig, signatures)
        if base is None:
            unmatched += count
            continue
        base_label, _, _, without = _facts(base)
        extra += count * max(0.0, with_ - without)
        pairs.append((label, base_label, with_, without))
    writer_s = float(get("summary_write_s") or 0.0)
    extra_run_s = None if unmatched or not runs else extra
    return {"runs": runs, "extra_run_s": extra_run_s, "pairs": pairs, "unmatched_runs": unmatched,
            "writer_s": writer_s, "writer_calls": int(get("summary_writes") or 0),
            "seconds": (extra if pairs else 0.0) + writer_s}
