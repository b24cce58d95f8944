"""Per-run bookkeeping shared by the guard context managers and `GuardHook`.

A run is only queued (`Recorder.pending`, appended to by the session wrapper itself);
the queue is folded into the statistics in batches of up to 256 runs, or about a
tenth of a second of runs, where fetch signatures are worked out and timings summed with C-level
iteration over the batch, and (about every tenth of a second) the clocks are marked
(clocks.py). Attribution of graph growth runs only when the graph actually grew. The recorder
only records: `recording()` is what it recorded, typed (recording.py), and every judgement, live or final, is in
judge/; `on_growth` returns the growth sites a growth added ops at, and the guard that noticed it (capture's
session tap, on the guard's behalf, or GuardHook) gives the live alert of those that turned repeated
(run/reporting.alert_repeated): the recorder holds no state of a later stage.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections import Counter
from itertools import chain, cycle, repeat
from operator import is_, sub
from threading import get_ident
from typing import Any, Dict, Hashable, List, Optional, Sequence, Tuple

from tfguard.runtime.document import display_path, shown_labels
from tfguard.runtime.record.clocks import MIN_VERDICT_S, ClockMarks, feed_bytes
from tfguard.runtime.record.growth import ONE_TIME, REPEATED, UNATTRIBUTED, GrowthSite, sorted_sites
from tfguard.runtime.record.host_time import breakdown
from tfguard.runtime.record.per_call import builds_per_call, run_frame
from tfguard.runtime.record.recording import Recording, SignatureRecord, SiteRecord, TrendSeries, Violation
from tfguard.runtime.record.signature import describe_fetches, fetch_key, fetched_op_types, snapshot
from tfguard.runtime.record.stats import (
    DEFAULT_SAMPLE_CAP,
    DEFAULT_SERIES_CAP,
    DEFAULT_SLOWDOWN_THRESHOLD,
    DecimatedSeries,
    StreamingSample,
)
from tfguard.runtime.record.tracebacks import source_line, user_and_api_from_traceback
from tfguard.runtime.tf_access import op_traceback

DEFAULT_OPTIONS: Dict[str, Any] = {
    "host_threshold": 0.5,  # TFG903 when the share of wall time outside sess.run reaches this
    "save_threshold": 0.10,  # TFG905 when Saver.save takes this share of wall time
    "summary_share": 0.5,  # TFG904 when summary-fetching runs make up this share of runs
    "min_runs": 5,  # runs needed before TFG903/TFG904 are judged
    "min_share_s": MIN_VERDICT_S,  # wall time a run needs before TFG903-TFG905 are judged (not a smoke run)
    "min_saves": 3,  # Saver.save calls needed before TFG905 is judged (one final save is not "too often")
    "save_steps_apart": 100,  # TF2 steps: saves this many steps apart or more are a cadence, TFG905 info at most
    "slowdown_threshold": DEFAULT_SLOWDOWN_THRESHOLD,  # smallest slowdown ratio worth reporting
    "check_every": None,  # deprecated and ignored: slowdown is judged when the guard ends (judge/slowdown.py)
    "warn": True,  # issue GraphGrowthWarning while running, SlowdownWarning when the guard ends
    "sample_cap": DEFAULT_SAMPLE_CAP,  # exact samples per statistic before streaming
    "series_cap": DEFAULT_SERIES_CAP,  # points per decimated step series
    "max_signatures": 256,  # distinct fetch signatures kept apart; the rest share one bucket
}
#: Most runs of known signatures queued before their timings are folded into the
#: statistics, and the seconds of runs a batch aims at (so that slow steps still warn promptly).
_DRAIN_EVERY = 256
_DRAIN_SECONDS = 0.1
_OTHER_KEY = ("tfguard", "other signatures")
#: The most characters of a whole label kept (a fetch of thousands of tensors).
_WHOLE_LABEL_CAP = 1000
#: The `kind` capture/session_tap.py gives runs of a callable made by a Keras `model.predict`.
KERAS_PREDICT = "keras predict"
#: The fields of one queued run, in order: fetch key (None for a leaf fetch, keyed by
#: identity), fetches, feed keys (empty when it fed nothing), start, end.
QUEUED_RUN = ("key", "fetches", "feed_keys", "start", "end")
RUN_FIELDS = len(QUEUED_RUN)


def validate_options(options: Dict[str, Any]) -> Dict[str, Any]:
    """Merge `options` over the defaults; unknown names raise a one-line TypeError."""
    unknown = sorted(set(options) - set(DEFAULT_OPTIONS))
    if unknown:
        raise TypeError("unknown tfguard option(s): %s (known: %s)" % (
            ", ".join(unknown), ", ".join(sorted(DEFAULT_OPTIONS))))
    if options.get("check_every") is not None:
        warnings.warn("tfguard option check_every is ignored: the slowdown verdict is given when the guard ends",
                      DeprecationWarning, stacklevel=3)
    merged = dict(DEFAULT_OPTIONS)
    merged.update(options)
    return merged


class SignatureStats:
    """Statistics of the runs that share one fetch signature."""

    __slots__ = ("label", "whole_label", "op_types", "summary_types", "count", "run_time", "interval",
                 "series", "run_series", "last_start", "first_run", "made_by", "loop_mark")

    def __init__(self, label: str, op_types: List[str], sample_cap: int, series_cap: int,
                 whole_label: str = "") -> None:
        self.label = label
        #: Every fetch and feed name (the label cuts long lists): what tells apart two whose labels read the same.
        self.whole_label = whole_label or label
        self.op_types = op_types
        self.summary_types = sorted({t for t in op_types if t.endswith("Summary")})
        self.count = 0
        self.run_time = StreamingSample(sample_cap)
        self.interval = StreamingSample(sample_cap)
        self.series = DecimatedSeries(series_cap)
        #: Its own run times per step: the slowdown measure when other runs sit between its runs.
        self.run_series = DecimatedSeries(series_cap)
        self.last_start: Optional[float] = None
        #: Runs of the guarding thread before its first run (where the loop started, for the dominant one).
        self.first_run = 0
        #: (start of its first run, sess.run and Saver.save seconds before it): where its loop's host time starts.
        self.loop_mark: Optional[Tuple[float, float, float]] = None
        #: What made these runs when it is known: "keras predict" (a Keras `model.predict` callable).
        self.made_by: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready statistics, including the decimated interval/graph-size series."""
        return {
            "label": self.label,
            "op_types": self.op_types,
            "summary_ops": self.summary_types,
            "count": self.count,
            "made_by": self.made_by,
            "run_time": self.run_time.summary(),
            "interval": self.interval.summary(),
            "series": {
                "bucket": self.series.bucket,
                "points": [list(p) for p in self.series.points()],
            },
            "run_series": {
                "bucket": self.run_series.bucket,
                "points": [list(p) for p in self.run_series.points()],
            },
        }


def distinct_labels(signatures: List[SignatureStats]) -> Dict[int, str]:
    """id(signature) -> its label in the recording: its short label, or where two short labels read the same (their
    names differ past the cut, issue 45) its whole one; still alike (the same names in another structure),
    numbered (document.shown_labels)."""
    alike = Counter(s.label for s in signatures)
    labels = shown_labels([s.whole_label if alike[s.label] > 1 else s.label for s in signatures])
    return {id(s): label for s, label in zip(signatures, labels)}


class Recorder:
    """Accumulates runs, graph growth and Saver.save time for one guard or hook."""

    def __init__(self, graph: Any, mode: str, thread: int, options: Dict[str, Any]) -> None:
        self.graph = graph
        self.mode = mode
        self.thread = thread
        self.options = options
        self.run_s = 0.0
        self.other_thread_runs = 0
        self.other_thread_run_s = 0.0
        self.save_s = 0.0
        self.saves = 0
        #: FileWriter.add_summary / flush calls made while guarded and their time (TFG904's writer cost).
        self.summary_write_s = 0.0
        self.summary_writes = 0
        self.nodes_start = graph.version
        self.last_version = self.nodes_start
        self.t_start = time.perf_counter()
        self.t_end: Optional[float] = None
        self.signatures: Dict[Hashable, SignatureStats] = {}
        self.sites: Dict[Tuple[str, int], GrowthSite] = {}
        self.unattributed_ops = 0
        #: Clock marks about every tenth of a second: the program's own work against contention (clocks.py).
        self.clock_marks = ClockMarks()
        #: What finalized the graph for this recorder ("tfguard.frozen block", "tfguard run
        #: --freeze-after"), None when it was finalized by someone else or not at all.
        self.finalized_by: Optional[str] = None
        #: True under `tfguard run`: guard whichever thread trains (see SessionTap._maybe_follow).
        self.follow_busiest_thread = False
        self.violations: List[Dict[str, Any]] = []
        self._growth_events = 0
        # Start-to-start intervals of all runs on the guarding thread: the trend series when
        # no single signature dominates (a loop that fetches a new op every step).
        self.all_series = DecimatedSeries(options["series_cap"])
        # Host time (previous run's end to this run's start) of the same steps, bucketed
        # alike, so a point's host fraction is its gap mean over its interval mean.
        self.gap_series = DecimatedSeries(options["series_cap"])
        self._last_any_start: Optional[float] = None
        self._last_any_end = 0.0
        self._save_since_run = 0.0
        self._folded_runs = 0
        #: Runs not yet folded into the statistics, RUN_FIELDS items per run, flat (see
        #: QUEUED_RUN); the session wrapper adds to it directly.
        self.pending: List[Any] = []
        #: Length of `pending` at which it is folded (about a second of runs).
        self.drain_at = RUN_FIELDS
        #: tfguard failed internally while guarding (safety.py): the session is no longer recorded.
        self.failed = False
        #: The guarding thread's sampled stacks between runs (host_sampler.py), when sampled.
        self.host_samples: Any = None
        #: (graph version before, user site, api) of each GraphDef import since the last growth check: its
        #: ops have no traceback, and are attributed to the line that imported them.
        self._imports: List[Tuple[int, Tuple[str, int], Optional[str]]] = []

    # -- per-run path -------------------------------------------------------------
    @property
    def runs(self) -> int:
        """Runs recorded on the guarding thread so far."""
        return self._folded_runs + len(self.pending) // RUN_FIELDS

    def record(self, fetches: Any, feed_keys: Optional[tuple], t0: float, t1: float,
               kind: Optional[str] = None, feed: Any = None) -> None:
        """Record one run on the guarding thread that started at t0 and ended at t1.

        `feed_keys` are the keys of its feed dict (empty or None when it fed nothing), and `kind`
        keeps runs made another way (``"callable"``, ``"partial_run"``) apart from
        ``sess.run``; `feed` is its feed dict, measured when a clock mark is due. The run is only
        queued; the queue is folded into the statistics in batches (:meth:`drain`).
        """
        kept = snapshot(fetches)
        key = fetch_key(kept) if kind is None else (kind, fetch_key(kept))
        self.queue((key, kept, feed_keys or (), t0, t1), feed)

    def queue(self, runs: Sequence[Any], feed: Any = None) -> None:
        """Queue runs already in `pending` form: QUEUED_RUN fields, flat (`feed`: the last one's feed dict)."""
        self.pending += runs
        if len(self.pending) >= self.drain_at:
            self.drain(feed)

    def drain(self, feed: Any = None) -> None:
        """Fold the queued runs into the statistics, in the order they ran (`feed`: the last one's feed dict)."""
        pending = self.pending
        if not pending:
            return
        self.pending = []
        # Flat, so that queueing a run allocates no tuple and folding reads memory in order.
        keys, fetcheses, feed_keys, starts, ends = (pending[field::RUN_FIELDS] for field in range(RUN_FIELDS))
        count = len(starts)
        sigs = self._signatures_of(keys, fetcheses, feed_keys)
        durations = list(map(sub, ends, starts))
        first_index = self._folded_runs
        self._folded_runs += count
        run_before = self.run_s
        self.run_s += sum(durations)
        version = self.last_version
        first = sigs[0]
        intervals = None
        if sigs.count(first) == len(sigs):
            if not first.count:
                first.first_run = first_index
                first.loop_mark = (starts[0], run_before, self.save_s)
            follows_itself = first.last_start == self._last_any_start
            sig_intervals = self._fold_signature(first, starts, durations, version)
            if follows_itself:  # the same start-to-start intervals as over all runs
                intervals = sig_intervals
        else:
            by_signature: Dict[SignatureStats, Tuple[List[float], List[float]]] = {}
            for index, (sig, start, duration) in enumerate(zip(sigs, starts, durations), first_index):
                group = by_signature.get(sig)
                if group is None:
                    group = by_signature[sig] = ([], [])
                    if not sig.count:
                        sig.first_run = index
                        offset = index - first_index
                        sig.loop_mark = (start, run_before + sum(durations[:offset]), self.save_s)
                group[0].append(start)
                group[1].append(duration)
            for sig, (sig_starts, sig_durations) in by_signature.items():
                self._fold_signature(sig, sig_starts, sig_durations, version)
        # Start-to-start intervals and host gaps of all runs. A run starts after the
        # previous one ended, so only the first gap of a batch needs care: it can follow a
        # Saver.save (record_save drains), whose time is not host time.
        first_batch = self._last_any_start is None
        gaps = list(map(sub, starts, [self._last_any_end] + ends[:-1]))
        gaps[0] = max(0.0, gaps[0] - self._save_since_run)
        if first_batch:
            gaps = gaps[1:]
        if intervals is None:
            if first_batch:
                intervals = list(map(sub, starts[1:], starts[:-1]))
            else:
                intervals = list(map(sub, starts, [self._last_any_start] + starts[:-1]))
        self.all_series.extend(intervals, version)
        self.gap_series.extend(gaps, version)
        # Fold about once a second: fewer runs per batch when steps are slow. A first
        # batch of one run has no step interval yet: the next batch is two runs.
        span = ends[-1] - (starts[0] if first_batch else self._last_any_start)
        if first_batch and count == 1:
            per_batch = 2
        else:
            per_batch = int(count * _DRAIN_SECONDS / span) if span > 0 else _DRAIN_EVERY
        self.drain_at = RUN_FIELDS * max(1, min(_DRAIN_EVERY, per_batch))
        self._last_any_start = starts[-1]
        self._last_any_end = ends[-1]
        self._save_since_run = 0.0
        wall = ends[-1] - self.t_start
        if self.clock_marks.due(wall):
            thread = get_ident()
            if thread == self.thread:  # thread clocks are read on the guarding thread only
                self.clock_marks.add(thread, self._folded_runs, wall, self.run_s, self.save_s,
                                     feed_bytes(feed) if feed else None)

    def _signatures_of(self, keys: Sequence[Optional[Hashable]], fetcheses: Sequence[Any],
                       feed_keys: Sequence[tuple]) -> List[SignatureStats]:
        """The signature of each queued run: its fetch structure and the identity of its feed keys.

        Built with C-level iteration over the whole batch (map, count, list equality):
        folding the queue must stay cheaper than the per-run work it saves.
        """
        count = len(keys)
        first_key, first_fetches, first_feeds = keys[0], fetcheses[0], feed_keys[0]
        if first_key is None:  # by identity (operator.is_): a tensor's == may build an op
            same_fetches = keys.count(None) == count and all(map(is_, fetcheses, repeat(first_fetches)))
        else:
            same_fetches = keys.count(first_key) == count
        if same_fetches and list(map(len, feed_keys)).count(len(first_feeds)) == count and \
                all(map(is_, chain.from_iterable(feed_keys), cycle(first_feeds))):
            # A training loop: every run of the batch fetched the same and fed the same keys.
            key = (id(first_fetches) if first_key is None else first_key, tuple(map(id, first_feeds)))
            return [self.signatures.get(key) or self._new_signature(key, first_fetches, first_feeds)] * count
        fetch_part = [id(f) if k is None else k for k, f in zip(keys, fetcheses)]
        full_keys = list(zip(fetch_part, map(tuple, map(map, repeat(id), feed_keys))))
        signatures = self.signatures
        found = list(map(signatures.get, full_keys))
        if None in found:
            for index, sig in enumerate(found):
                if sig is None:
                    key = full_keys[index]
                    found[index] = signatures.get(key) or self._new_signature(key, fetcheses[index], feed_keys[index])
        return found

    @staticmethod
    def _fold_signature(sig: SignatureStats, starts: Sequence[float], durations: List[float],
                        version: int) -> List[float]:
        """Add one signature's runs; return their start-to-start intervals."""
        sig.count += len(durations)
        sig.run_time.extend(durations)
        if sig.last_start is None:
            intervals = list(map(sub, starts[1:], starts[:-1]))
        else:
            intervals = list(map(sub, starts, [sig.last_start] + list(starts[:-1])))
        sig.last_start = starts[-1]
        sig.interval.extend(intervals)
        sig.series.extend(intervals, version)
        sig.run_series.extend(durations, version)
        return intervals

    def last_run_end(self) -> float:
        """When the guarding thread's last run ended (the start of recording when none has)."""
        pending = self.pending
        if pending:
            return pending[-1]
        return self._last_any_end if self._last_any_start is not None else self.t_start

    def record_other_thread(self, duration: float) -> None:
        """Count a run made by another thread (queue runners); kept out of step statistics."""
        self.other_thread_runs += 1
        self.other_thread_run_s += duration

    def record_save(self, duration: float) -> None:
        """Add the duration of one Saver.save call made while guarded."""
        self.drain()
        self.saves += 1
        self.save_s += duration
        self._save_since_run += duration

    def record_summary_write(self, duration: float) -> None:
        """Add the duration of one FileWriter.add_summary or flush call made while guarded."""
        self.summary_writes += 1
        self.summary_write_s += duration

    def _new_signature(self, key: Hashable, fetches: Any, feeds: Any) -> SignatureStats:
        if len(self.signatures) >= self.options["max_signatures"]:
            sig = self.signatures.get(_OTHER_KEY)
            if sig is None:
                sig = SignatureStats("(other signatures)", [], self.options["sample_cap"], self.options["series_cap"])
                self.signatures[_OTHER_KEY] = sig
            self.signatures[key] = sig
            return sig
        sig = SignatureStats(describe_fetches(fetches, feeds), fetched_op_types(self.graph, fetches),
                             self.options["sample_cap"], self.options["series_cap"],
                             describe_fetches(fetches, feeds, whole=True)[:_WHOLE_LABEL_CAP])
        made_by = key[0][0] if isinstance(key[0], tuple) and key[0] else None
        if made_by == KERAS_PREDICT:
            sig.made_by = made_by
        self.signatures[key] = sig
        return sig

    # -- graph growth -------------------------------------------------------------
    def note_import(self, version: int, site: Tuple[str, int], api: Optional[str]) -> None:
        """A GraphDef import at user line `site` adds ops after graph version `version` (patches.GraphPatch)."""
        self._imports.append((version, site, api))

    def _import_site(self, op_id: Optional[int]) -> Tuple[Optional[Tuple[str, int]], Optional[str]]:
        """The user line of the import that added op number `op_id` (None when no import is known for it)."""
        found: Tuple[Optional[Tuple[str, int]], Optional[str]] = (None, None)
        if op_id is None:
            return found
        for version, site, api in self._imports:
            if version < op_id:
                found = (site, api)
        return found

    def on_growth(self, version: int) -> List[GrowthSite]:
        """Attribute ops added since the last check to user source lines; return the sites this growth added ops
        at (their `last_step` is the runs so far), [] when the graph did not grow. The guard gives the live alert
        of those that turned repeated (run/reporting.alert_repeated); the recorder says nothing itself."""
        self.drain()
        previous = self.last_version
        # Several threads note growth (every thread that runs the session reads the graph's version after its run):
        # on a loaded machine one can be descheduled between reading the version and getting here, after another
        # thread attributed a newer one. Its older reading changes nothing, and never moves `last_version` back
        # (the ops between would be attributed twice). A version that could not be read (None) is no growth.
        if version is None or (previous is not None and version <= previous):
            return []
        self.last_version = version
        if previous is None:
            previous = self.nodes_start
        self._growth_events += 1
        event, step = self._growth_events, self.runs
        touched = {}
        runner = run_frame(sys._getframe(1))  # who ran the graph that noticed the growth (TFG109)
        for op_id, op in _ops_between(self.graph, previous, version):
            traceback = op_traceback(op)  # () when TensorFlow kept none (2.x's imported ops)
            try:
                site, api = user_and_api_from_traceback(traceback) if traceback else (None, None)
            except Exception:  # an op without a usable traceback must not break the run
                site, api = None, None
            if site is None and not traceback:  # imported from a GraphDef: the importing line
                site, api = self._import_site(op_id)
            if site is None:
                self.unattributed_ops += 1
                site = UNATTRIBUTED
            entry = self.sites.get(site)
            if entry is None:
                entry = self.sites[site] = GrowthSite(site[0], site[1], api, step)
                entry.per_call = builds_per_call(traceback, runner)
            entry.add_op(getattr(op, "type", None), api, event, step)
            touched[site] = entry
        del self._imports[:-1]  # the last import may still add ops after `version`
        return list(touched.values())

    def loop_start(self) -> int:
        """Runs before the training loop started: the first run of the signature run most often."""
        best = self._busiest()
        # 0 until a run of it was folded: growth noticed by another thread before the first drain has no loop yet.
        return (best.first_run or 0) if best is not None else 0

    # -- slowdown -----------------------------------------------------------------
    def _busiest(self) -> Optional[SignatureStats]:
        best = None
        for sig in self.signatures.values():
            if best is None or sig.count > best.count:
                best = sig
        return best

    def _trend_series(self) -> Tuple[str, DecimatedSeries, str]:
        """(label, series, measure) of the slowdown test: the dominant signature's step
        intervals when it has at least half the runs, or its own run times when other runs
        sit between its runs (compare like with like); else the intervals of all runs."""
        best = self._busiest()
        if best is not None and 2 * best.count >= self.runs:
            between = self.runs - best.first_run - best.count
            if between > 0.1 * best.count:
                return best.label, best.run_series, "run time"
            return best.label, best.series, "step interval"
        return "(all runs)", self.all_series, "step interval"

    def _sites_data(self) -> List[Dict[str, Any]]:
        loop_start, runs = self.loop_start(), self.runs
        return sorted_sites([s.to_dict(loop_start, runs) for s in self.sites.values()])

    # -- report -------------------------------------------------------------------
    def finish(self) -> None:
        """Stop the wall clock (idempotent) and attribute any last growth."""
        self.drain()
        if self.t_end is None:
            version = self.graph.version
            if version != self.last_version:
                self.on_growth(version)  # no alert: it could only point at tfguard's own code
            self.t_end = time.perf_counter()

    def _loop(self, end: float, wall: float) -> Dict[str, float]:
        """The loop's wall time, and its time in sess.run and in Saver.save: {wall_s, run_s, save_s}.

        The loop is timed from the start of the first run of its dominant signature: the set-up
        before it (initializers, a restore, building the model) is no input, and `GuardHook` only
        sees the session once it is set up, so every entry point measures the same span.
        """
        best = self._busiest()
        run, save, span = self.run_s, self.save_s, wall
        if best is not None and best.loop_mark is not None:
            start, run_before, save_before = best.loop_mark
            run, save, span = run - run_before, save - save_before, end - start
        return {"wall_s": span, "run_s": run, "save_s": save}

    @staticmethod
    def _host_fraction(loop: Dict[str, float]) -> Optional[float]:
        """Share of the loop's wall time spent outside sess.run and Saver.save (TFG905 has save time)."""
        span = loop["wall_s"]
        return min(1.0, max(0.0, 1.0 - (loop["run_s"] + loop["save_s"]) / span)) if span > 0 else None

    def _host_time(self, host_fraction: Optional[float]) -> Optional[Dict[str, Any]]:
        """Where the loop's host time went, by line and cause (host_time.py), from the samples after its start."""
        if self.host_samples is None:
            return None
        found = breakdown(self.host_samples.after(self.loop_start()), host_fraction, source_line)
        if found is not None:
            for entry in found["lines"]:
                entry["path"] = display_path(entry["path"])
        return found

    def recording(self) -> Recording:
        """What was recorded so far, typed (recording.py); once finished, all of it."""
        self.drain()
        end = self.t_end if self.t_end is not None else time.perf_counter()
        wall = end - self.t_start
        nodes_end = self.graph.version if self.t_end is None else self.last_version
        loop = self._loop(end, wall)
        host_fraction = self._host_fraction(loop)
        unique: List[SignatureStats] = []
        for sig in self.signatures.values():
            if not any(sig is u for u in unique):
                unique.append(sig)
        unique.sort(key=lambda s: (-s.run_time.total, -s.count))
        sites = [SiteRecord(**site) for site in self._sites_data()]
        labels = distinct_labels(unique)
        label, series, measure = self._trend_series()
        best = self._busiest()
        if best is not None and label == best.label:
            label = labels.get(id(best), label)
        return Recording(
            mode=self.mode, runs=self.runs, other_thread_runs=self.other_thread_runs,
            other_thread_run_s=self.other_thread_run_s, wall_s=wall, run_s=self.run_s, host_fraction=host_fraction,
            loop=loop,
            save_s=self.save_s, saves=self.saves, summary_write_s=self.summary_write_s,
            summary_writes=self.summary_writes, nodes_start=self.nodes_start, nodes_end=nodes_end,
            nodes_added=nodes_end - self.nodes_start, unattributed_ops=self.unattributed_ops,
            growth_ops={kind: sum(s.ops_added for s in sites if s.kind == kind)
                        for kind in ("setup", ONE_TIME, REPEATED)},
            host_time=self._host_time(host_fraction),
            all_runs_series=_series(self.all_series), host_gap_series=_series(self.gap_series),
            signatures=[SignatureRecord(**dict(s.to_dict(), label=labels[id(s)])) for s in unique],
            growth_sites=sites,
            frozen_violations=[Violation(**v) for v in self.violations], options=dict(self.options),
            trend=TrendSeries(label, measure, list(series.values), self.loop_start(), self.clock_marks.windows()))


def _series(series: DecimatedSeries) -> Dict[str, Any]:
    return {"bucket": series.bucket, "points": [list(p) for p in series.points()]}


def _ops_between(graph: Any, previous: int, version: int) -> List[Tuple[Optional[int], Any]]:
    """(id, op) of the ops added between two graph versions (id None where the graph does not say)."""
    by_id = getattr(graph, "_nodes_by_id", None)
    if isinstance(by_id, dict):
        ops = [(i, by_id.get(i)) for i in range(previous + 1, version + 1)]
        return [(i, op) for i, op in ops if op is not None]
    return [(getattr(op, "_id", None), op) for op in list(graph.get_operations())[-(version - previous):]]
