"""Long series made short enough to draw: buckets of consecutive points that keep their lowest and highest value.

A 5,000-step run drawn point by point would make the page large and the line a smear; a mean per bucket alone
would hide the one step that took 2 s. Each bucket keeps its mean (the line), its minimum and maximum (the band
around the line), so a spike survives any downsampling.
"""

from __future__ import annotations

from typing import List, NamedTuple, Sequence

#: Buckets drawn per series: about one per two pixels of a 1280 px wide chart.
MAX_BUCKETS = 600


class Bucket(NamedTuple):
    """Consecutive points: `x` the first one's position, `last_x` the last one's, and their values' range."""

    x: float
    last_x: float
    low: float
    high: float
    mean: float


def bucketed(xs: Sequence[float], ys: Sequence[float], limit: int = MAX_BUCKETS) -> List[Bucket]:
    """`(xs[i], ys[i])` in at most `limit` buckets of equal count, oldest first; each point its own bucket when
    there are no more than `limit` of them."""
    count = min(len(xs), len(ys))
    if count == 0:
        return []
    size = max(1, -(-count // max(1, limit)))
    buckets = []
    for start in range(0, count, size):
        values = ys[start:start + size]
        buckets.append(Bucket(float(xs[start]), float(xs[min(count, start + size) - 1]), float(min(values)),
                              float(max(values)), float(sum(values)) / len(values)))
    return buckets


def is_flat(buckets: Sequence[Bucket]) -> bool:
    """Whether no bucket stands for more than one point (nothing to draw as a band)."""
    return all(b.low == b.high for b in buckets)
