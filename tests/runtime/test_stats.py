"""Streaming statistics and the slowdown significance test, on synthetic intervals."""

from __future__ import annotations

import random
import sys

import pytest

from tfguard.runtime.record.stats import (
    LEVEL_SHIFT,
    TREND,
    DecimatedSeries,
    StreamingSample,
    is_level_shift,
    mann_kendall_z,
    step_trend,
    trend_edges,
)

# Step "time cost" of seed 003 (a Saver built inside the training loop): +11% over 18 steps.
SEED_003 = [1.8800880908966064, 1.592250108718872, 1.553826093673706, 1.5687050819396973,
            1.5777575969696045, 1.5908267498016357, 1.5989274978637695, 1.6078357696533203,
            1.6087186336517334, 1.6123006343841553, 1.6320762634277344, 1.6317598819732666,
            1.6570467948913574, 1.6584930419921875, 1.6765813827514648, 1.6751370429992676,
            1.7304580211639404, 1.7583982944488525]
# The same seed after the fix: flat.
SEED_003_FIXED = [1.9781079292297363, 0.09688425064086914, 0.09693264961242676, 0.09671926498413086,
                  0.09688210487365723, 0.09646058082580566, 0.09669041633605957, 0.09666872024536133,
                  0.09651994705200195, 0.09705543518066406, 0.09690332412719727]


def test_seed_003_is_significant_above_a_lowered_threshold():
    trend = step_trend(SEED_003, threshold=1.05)
    assert trend.significant and trend.shape == TREND
    assert 1.05 < trend.slowdown < 1.15
    # +8% is below the default minimum effect (x1.2): machine noise moves healthy runs that much.
    assert not step_trend(SEED_003).significant


def _noisy(rng, level, spread=0.3):
    return level * (1 + rng.uniform(-spread, spread))


def test_a_level_shift_is_not_a_trend():
    """Another job starting halfway shifts step time up once: as large a ratio, but no trend."""
    for seed in range(20):
        rng = random.Random(seed)
        for n, at in ((300, 150), (3000, 1000), (120, 90)):
            values = [_noisy(rng, 0.01 * (1.5 if i > at else 1.0)) for i in range(n)]
            trend = step_trend(values)
            assert trend.slowdown > 1.3 and trend.z > 3.09, (seed, n)
            assert trend.shape == LEVEL_SHIFT and not trend.significant, (seed, n)


def test_a_growing_step_time_is_a_trend():
    for seed in range(20):
        rng = random.Random(seed)
        for n in (60, 300):
            values = [_noisy(rng, 0.01 * (1 + i / (n / 2))) for i in range(n)]
            trend = step_trend(values)
            assert trend.significant and trend.shape == TREND, (seed, n)


def test_level_shift_needs_both_levels_flat():
    assert is_level_shift([1.0] * 20 + [2.0] * 20)
    assert not is_level_shift([float(i) for i in range(40)])
    assert not is_level_shift([1.0] * 20 + [2.0 + i for i in range(20)])  # rises on after the jump


def test_seed_003_after_fix_is_flat():
    trend = step_trend(SEED_003_FIXED)
    assert not trend.significant
    assert abs(trend.slowdown - 1.0) < 0.01


def test_noisy_flat_runs_stay_quiet():
    for seed in range(30):
        rng = random.Random(seed)
        for n in (18, 200, 5000):
            values = [0.1 * (1 + rng.uniform(-0.3, 0.3)) + (0.5 if rng.random() < 0.02 else 0.0)
                      for _ in range(n)]
            assert not step_trend(values).significant, (seed, n)


def test_small_but_real_trend_below_threshold_is_not_reported():
    values = [1.0 + 0.0001 * i for i in range(300)]  # +3% over the whole run
    trend = step_trend(values)
    assert trend.z > 3.09 and not trend.significant


def test_too_few_points_give_no_ratio():
    assert step_trend([1.0, 2.0, 3.0]).slowdown is None


def test_mann_kendall_sign():
    assert mann_kendall_z(list(range(20))) > 5
    assert mann_kendall_z(list(range(20, 0, -1))) < -5
    assert mann_kendall_z([1.0] * 20) == 0.0


def test_streaming_sample_exact_then_histogram():
    sample = StreamingSample(cap=100)
    for i in range(1, 100):
        sample.add(i / 100.0)
    assert sample.quantile(0.5) == 0.5 and sample.histogram is None
    for i in range(100, 100001):
        sample.add((i % 100 + 1) / 100.0)
    assert sample.histogram is not None and not sample.values
    assert abs(sample.quantile(0.5) - 0.5) < 0.02
    assert abs(sample.quantile(0.95) - 0.95) < 0.02
    assert sample.count == 100000 and sample.maximum == 1.0
    assert abs(sample.mean - 0.505) < 1e-3


@pytest.mark.slow
def test_long_run_memory_is_bounded():
    sample = StreamingSample()
    series = DecimatedSeries(cap=2048)
    rng = random.Random(1)
    for i in range(200000):
        value = 0.2 + rng.random() * 0.01
        sample.add(value)
        series.add(value, i)
    assert len(series.values) < 2048 and series.bucket >= 128
    size = sys.getsizeof(sample.histogram) + sys.getsizeof(series.values) + sys.getsizeof(series.nodes)
    assert size < 200_000
    first, _, _ = series.points()[-1]
    assert first <= 200000


class _OneByOneSeries:
    """The decimated series as first written, a value at a time: the reference for extend()."""

    def __init__(self, cap):
        self.cap, self.bucket, self.values, self.nodes = cap, 1, [], []
        self.pending_sum, self.pending_count = 0.0, 0

    def add(self, value, nodes):
        if self.bucket > 1:
            self.pending_sum += value
            self.pending_count += 1
            if self.pending_count < self.bucket:
                return
            value, self.pending_sum, self.pending_count = self.pending_sum / self.bucket, 0.0, 0
        self.values.append(value)
        self.nodes.append(nodes)
        if len(self.values) >= self.cap:
            half = len(self.values) // 2
            self.values = [(self.values[2 * i] + self.values[2 * i + 1]) / 2 for i in range(half)]
            self.nodes = [self.nodes[2 * i + 1] for i in range(half)]
            self.bucket *= 2


def test_series_extend_in_batches_matches_adding_one_at_a_time():
    rng = random.Random(3)
    for _ in range(200):
        cap = rng.choice([2, 3, 4, 7, 16, 64])
        batched, reference = DecimatedSeries(cap), _OneByOneSeries(cap)
        for _ in range(rng.randint(1, 40)):
            values = [rng.random() for _ in range(rng.randint(0, 300))]
            nodes = rng.randint(0, 9)
            batched.extend(values, nodes)
            for value in values:
                reference.add(value, nodes)
            assert (batched.bucket, batched.nodes) == (reference.bucket, reference.nodes)
            assert all(abs(a - b) < 1e-9 for a, b in zip(batched.values, reference.values))
            assert len(batched.values) == len(reference.values)


def test_sample_extend_folds_like_add():
    values = [random.Random(4).random() for _ in range(1000)]
    one, batched = StreamingSample(cap=64), StreamingSample(cap=64)
    for value in values:
        one.add(value)
    for start in range(0, 1000, 37):
        batched.extend(values[start:start + 37])
    assert batched.count == one.count == 1000
    assert batched.histogram is not None and batched.maximum == one.maximum
    for q in (0.05, 0.5, 0.95):  # folded at other points, yet the same buckets in the end
        assert batched.quantile(q) == one.quantile(q)


def test_the_trend_carries_the_edges_its_ratio_was_taken_between():
    values = [1.0 + 0.01 * i for i in range(300)]
    trend = step_trend(values)
    assert trend.edges == trend_edges(values)
    assert trend.slowdown == trend.edges.last / trend.edges.first
    assert step_trend([1.0, 2.0, 3.0]).edges is None
