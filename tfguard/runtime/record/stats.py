"""Streaming statistics with bounded memory, and the step-interval trend test."""

from __future__ import annotations

import math
from array import array
from itertools import repeat
from operator import add, truediv
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

# Exact samples kept per statistic before switching to a log-bucketed histogram.
DEFAULT_SAMPLE_CAP = 4096
# Points kept in a decimated series before adjacent points are merged pairwise.
DEFAULT_SERIES_CAP = 2048
# Relative width of a histogram bucket (quantiles are then within ~0.5%).
_BUCKET_BASE = 1.01
_LOG_BASE = math.log(_BUCKET_BASE)
_MIN_VALUE = 1e-9


class StreamingSample:
    """Count, total, and quantiles of a stream of non-negative floats.

    Values are appended to a buffer; when it holds `cap` values they are folded into a
    histogram with 1% wide logarithmic buckets, so memory stays bounded on any run length
    while `add` stays a list append. Up to `cap` values, quantiles are exact.
    """

    __slots__ = ("cap", "values", "histogram", "folded_count", "folded_total", "folded_max")

    def __init__(self, cap: int = DEFAULT_SAMPLE_CAP) -> None:
        self.cap = cap
        self.values: List[float] = []
        self.histogram: Optional[Dict[int, int]] = None
        self.folded_count = 0
        self.folded_total = 0.0
        self.folded_max = 0.0

    def add(self, value: float) -> None:
        """Record one value."""
        self.extend((value,))

    def extend(self, values: Sequence[float]) -> None:
        """Record several values at once (the same result as adding them one by one)."""
        mine = self.values
        mine.extend(values)
        if len(mine) >= self.cap:
            self._fold()

    def _fold(self) -> None:
        import numpy  # a TensorFlow dependency; imported only when a long run first folds

        values = numpy.frombuffer(array("d", self.values))
        indices = (numpy.log(numpy.maximum(values, _MIN_VALUE)) * (1.0 / _LOG_BASE)).astype(numpy.int64)
        lowest = int(indices.min())
        counts = numpy.bincount(indices - lowest)
        used = numpy.flatnonzero(counts)
        histogram = self.histogram if self.histogram is not None else {}
        for index, count in zip((used + lowest).tolist(), counts[used].tolist()):
            histogram[index] = histogram.get(index, 0) + count
        self.folded_count += len(values)
        self.folded_total += float(values.sum())
        self.folded_max = max(self.folded_max, float(values.max()))
        self.histogram = histogram
        self.values = []

    @property
    def count(self) -> int:
        """Number of values recorded."""
        return self.folded_count + len(self.values)

    @property
    def total(self) -> float:
        """Sum of the values recorded."""
        return self.folded_total + sum(self.values)

    @property
    def maximum(self) -> float:
        """Largest value recorded (0.0 when empty)."""
        return max(self.folded_max, max(self.values)) if self.values else self.folded_max

    def quantile(self, q: float) -> Optional[float]:
        """Return the q-quantile (0..1), or None when nothing was recorded."""
        count = self.count
        if count == 0:
            return None
        if self.histogram is None:
            return quantile_of(sorted(self.values), q)
        histogram = dict(self.histogram)
        for value in self.values:
            index = _bucket_index(value)
            histogram[index] = histogram.get(index, 0) + 1
        rank = q * (count - 1)
        seen = 0
        maximum = self.maximum
        for index in sorted(histogram):
            seen += histogram[index]
            if seen > rank:
                # Geometric middle of the bucket, capped by the true maximum.
                return min(math.exp((index + 0.5) * _LOG_BASE), maximum)
        return maximum

    @property
    def mean(self) -> Optional[float]:
        """Arithmetic mean, or None when empty."""
        count = self.count
        return self.total / count if count else None

    def summary(self) -> Dict[str, Optional[float]]:
        """Return count, total, mean, median, p95 and max as a JSON-ready dict."""
        count = self.count
        return {
            "count": count,
            "total": self.total,
            "mean": self.mean,
            "median": self.quantile(0.5),
            "p95": self.quantile(0.95),
            "max": self.maximum if count else None,
        }


def _bucket_index(value: float) -> int:
    return int(math.log(max(value, _MIN_VALUE)) * (1.0 / _LOG_BASE))


def quantile_of(ordered: Sequence[float], q: float) -> Optional[float]:
    """Linear-interpolated q-quantile of an already sorted sequence."""
    if not ordered:
        return None
    position = q * (len(ordered) - 1)
    low = int(math.floor(position))
    high = min(low + 1, len(ordered) - 1)
    fraction = position - low
    return ordered[low] * (1.0 - fraction) + ordered[high] * fraction


def median_of(values: Sequence[float]) -> Optional[float]:
    """Median of an unsorted sequence, or None when empty."""
    return quantile_of(sorted(values), 0.5)


class DecimatedSeries:
    """A per-step series of (value, graph size) kept to at most `cap` points.

    Each point stands for `bucket` consecutive steps: the mean value over them and the
    graph size after the last. When full, adjacent points merge and `bucket` doubles.
    """

    __slots__ = ("cap", "bucket", "values", "nodes", "_pending_sum", "_pending_count")

    def __init__(self, cap: int = DEFAULT_SERIES_CAP) -> None:
        self.cap = cap
        self.bucket = 1
        self.values: List[float] = []
        self.nodes: List[int] = []
        self._pending_sum = 0.0
        self._pending_count = 0

    def add(self, value: float, nodes: int) -> None:
        """Record one step's value and the graph size at that step."""
        self.extend((value,), nodes)

    def extend(self, values: Sequence[float], nodes: int) -> None:
        """Record consecutive steps' values, all taken at the same graph size.

        Works on whole points at a time (list slices and `sum`), not a value at a
        time: the guard folds its queued runs through here.
        """
        position, count = 0, len(values)
        while position < count:
            bucket = self.bucket
            if self._pending_count:  # complete the partly filled point first
                chunk = values[position:position + bucket - self._pending_count]
                position += len(chunk)
                self._pending_sum += sum(chunk)
                self._pending_count += len(chunk)
                if self._pending_count < bucket:
                    return
                self._append_points([self._pending_sum / bucket], nodes)
                self._pending_sum, self._pending_count = 0.0, 0
                continue
            whole = min((count - position) // bucket, self.cap - len(self.values))
            if whole:
                end = position + whole * bucket
                if bucket == 1:
                    points = list(values[position:end])
                else:  # sums of consecutive `bucket`-tuples, without a Python-level loop
                    groups = zip(*[iter(values[position:end])] * bucket)
                    points = list(map(truediv, map(sum, groups), repeat(bucket)))
                position = end
                self._append_points(points, nodes)
                continue
            chunk = values[position:]
            position = count
            self._pending_sum, self._pending_count = float(sum(chunk)), len(chunk)

    def _append_points(self, points: List[float], nodes: int) -> None:
        self.values.extend(points)
        self.nodes.extend([nodes] * len(points))
        if len(self.values) >= self.cap:
            self._halve()

    def _halve(self) -> None:
        values = self.values  # pairs of adjacent points, merged without a Python-level loop
        self.values = list(map(truediv, map(add, values[0::2], values[1::2]), repeat(2.0)))
        self.nodes = self.nodes[1::2]
        self.bucket *= 2

    def points(self) -> List[Tuple[int, float, int]]:
        """Return [(first step of the point, mean value, graph size)], oldest first."""
        return [(i * self.bucket, v, n) for i, (v, n) in enumerate(zip(self.values, self.nodes))]


class Trend:
    """Result of `step_trend` (on a recording.TrendSeries' values): the slowdown ratio, its shape, whether it
    is significant, and the edges it was taken between (`TrendEdges`, None when the series is too short)."""

    __slots__ = ("slowdown", "significant", "z", "points", "shape", "edges")

    def __init__(self, slowdown: Optional[float], significant: bool, z: float, points: int,
                 shape: Optional[str] = None, edges: Optional["TrendEdges"] = None) -> None:
        self.slowdown = slowdown
        self.significant = significant
        self.z = z
        self.points = points
        #: "trend" (steps keep getting slower), "level shift" (one step up, then flat: another
        #: job started) or None (no rise worth judging).
        self.shape = shape
        #: Where the ratio took its medians: the judged trend carries them, so that the chart and the A/B rows
        #: show the edges the verdict used instead of finding them again.
        self.edges = edges


# Fewer points after warm-up than this: no slowdown ratio at all.
MIN_TREND_POINTS = 5
# Fewer than this: a ratio, but never "significant".
MIN_SIGNIFICANT_POINTS = 8
# One-sided Mann-Kendall z for p < 0.001 (p < 0.01 fired on ~1% of noisy flat runs).
SIGNIFICANT_Z = 3.090
# Smallest slowdown worth a warning (a minimum effect: smaller rises are within a shared machine's noise).
DEFAULT_SLOWDOWN_THRESHOLD = 1.2
_TREND_BINS = 64
# A level shift fits clearly better than a line: its squared error is at most this share of the
# line's (on a short noisy ramp the two fit about equally, and that is no evidence of a shift).
_SHIFT_MARGIN = 0.75
# A level shift's two segments each hold at least this share of the bins.
_SHIFT_MIN_SEGMENT = 0.1
# One-sided Mann-Kendall z (p < 0.001) of a rise that goes on within a segment of a level shift.
_SEGMENT_RISING_Z = 3.090
TREND, LEVEL_SHIFT = "trend", "level shift"


def warmup_points(count: int) -> int:
    """Points skipped at the start of a series (session start-up, caches, autotuning)."""
    return max(1, min(count // 10, 50))


class TrendEdges(NamedTuple):
    """Where the slowdown ratio takes its medians in a series: the warm-up it skips, then the first and the last
    20% of the points after it (indices into the series, inclusive) and their medians."""

    warmup: int
    first_end: int
    last_start: int
    first: float
    last: float


def trend_edges(values: Sequence[float]) -> Optional[TrendEdges]:
    """The edges of a series as `step_trend` takes them; None when too short for a ratio (or an edge is empty).
    The one place they are computed: `step_trend` puts them in the `Trend` it returns, the slowdown verdict keeps
    them (``slowdown_edges``), and the HTML chart and the A/B rows read them from there."""
    skip = warmup_points(len(values))
    body = list(values[skip:])
    if len(body) < MIN_TREND_POINTS:
        return None
    edge = max(1, int(math.ceil(len(body) * 0.2)))
    first, last = median_of(body[:edge]), median_of(body[-edge:])
    if first is None or last is None:
        return None
    return TrendEdges(skip, skip + edge - 1, len(values) - edge, first, last)


def step_trend(values: Sequence[float], threshold: float = DEFAULT_SLOWDOWN_THRESHOLD) -> Trend:
    """Slowdown of a step-time series and a robust test that it is a real, persisting trend.

    `slowdown` is the median of the last 20% of the points after warm-up divided by the
    median of the first 20%. It is significant when a one-sided Mann-Kendall test (on at
    most 64 bin means, so the cost is bounded) finds a rising trend at p < 0.001, the ratio
    reaches `threshold`, and the rise is a trend rather than a level shift: one step between
    two flat levels does not fit the bin means clearly better than a straight line (a job
    that starts next to the program shifts step time up once; a growing graph keeps
    raising it).
    """
    body = list(values[warmup_points(len(values)):])
    edges = trend_edges(values)
    if edges is None:
        return Trend(None, False, 0.0, len(body))
    slowdown = edges.last / edges.first if edges.first else None
    bins = _bin_means(body, _TREND_BINS)
    z = mann_kendall_z(bins)
    rising = (
        len(body) >= MIN_SIGNIFICANT_POINTS
        and slowdown is not None
        and slowdown >= threshold
        and z >= SIGNIFICANT_Z
    )
    if not rising:
        return Trend(slowdown, False, z, len(body), edges=edges)
    shape = LEVEL_SHIFT if is_level_shift(bins) else TREND
    return Trend(slowdown, shape == TREND, z, len(body), shape, edges)


def is_level_shift(values: Sequence[float]) -> bool:
    """True when one step between two flat levels fits `values` clearly better than a straight line."""
    n = len(values)
    if n < 4:
        return False
    mean_x = (n - 1) / 2.0
    mean_y = sum(values) / n
    sxx = sum((i - mean_x) ** 2 for i in range(n))
    sxy = sum((i - mean_x) * (v - mean_y) for i, v in enumerate(values))
    syy = sum((v - mean_y) ** 2 for v in values)
    line_sse = syy - sxy * sxy / sxx
    lowest = max(1, int(math.ceil(n * _SHIFT_MIN_SEGMENT)))
    prefix = [0.0]
    prefix_sq = [0.0]
    for v in values:
        prefix.append(prefix[-1] + v)
        prefix_sq.append(prefix_sq[-1] + v * v)
    best_sse, best_cut = None, 0
    for cut in range(lowest, n - lowest + 1):
        left, right = prefix[cut], prefix[n] - prefix[cut]
        sse = (prefix_sq[n] - left * left / cut - right * right / (n - cut))
        if best_sse is None or sse < best_sse:
            best_sse, best_cut = sse, cut
    if best_sse is None or best_sse >= _SHIFT_MARGIN * line_sse:
        return False
    # Both levels flat: a rise that goes on within either segment is a trend (one that speeds up).
    return all(mann_kendall_z(part) < _SEGMENT_RISING_Z for part in (values[:best_cut], values[best_cut:]))


def _bin_means(values: List[float], bins: int) -> List[float]:
    if len(values) <= bins:
        return values
    size = len(values) / bins
    means = []
    for b in range(bins):
        chunk = values[int(b * size):int((b + 1) * size)]
        means.append(sum(chunk) / len(chunk))
    return means


def mann_kendall_z(values: Sequence[float]) -> float:
    """Normal-approximation z of the Mann-Kendall S statistic (positive: rising)."""
    n = len(values)
    if n < 3:
        return 0.0
    s = 0
    for i in range(n - 1):
        vi = values[i]
        for j in range(i + 1, n):
            vj = values[j]
            if vj > vi:
                s += 1
            elif vj < vi:
                s -= 1
    ties: Dict[float, int] = {}
    for v in values:
        ties[v] = ties.get(v, 0) + 1
    tie_term = sum(t * (t - 1) * (2 * t + 5) for t in ties.values() if t > 1)
    variance = (n * (n - 1) * (2 * n + 5) - tie_term) / 18.0
    if variance <= 0:
        return 0.0
    if s > 0:
        return (s - 1) / math.sqrt(variance)
    if s < 0:
        return (s + 1) / math.sqrt(variance)
    return 0.0
