"""capture/loop_sampler.py on real Python stacks (no TensorFlow): what a custom loop's thread is doing between its
steps, read from its frames, and the sampling thread that reads them from outside the program's thread."""

from __future__ import annotations

import sys
import threading
import time

from tfguard.runtime.capture import loop_sampler
from tfguard.runtime.capture.loop_sampler import GENERATOR, GETITEM, STEP, LoopSampler, input_key

seen = []


def _look(codes, step_code=None):
    seen.append(input_key(sys._getframe(1), codes, step_code))


def _step(codes):
    """Stands for the guard's wrapper of a tf.function call."""
    _look(codes, _step.__code__)


def batches(codes):
    for number in range(2):
        _look(codes)  # inside the generator, as a sample taken while it makes a batch
        yield number


class Rows:
    def __init__(self, codes):
        self.codes = codes

    def __getitem__(self, index):
        _look(self.codes)
        return index


def _loop(kind):
    codes = (_loop.__code__,)
    if kind == "generator":
        for _ in batches(codes):  # LOOP
            pass
    elif kind == "getitem":
        Rows(codes)[0]  # LOOP
    else:
        _look(codes)  # other work of the loop (a print, a metric)
    return codes


def _line(marker):
    source = open(__file__, encoding="utf-8").read().splitlines()
    return next(number for number, text in enumerate(source, 1) if marker in text and "source" not in text)


def test_a_generator_the_loop_iterates_is_its_input():
    del seen[:]
    _loop("generator")
    in_loop, key = seen[0]
    assert in_loop and key == (GENERATOR, "batches", (__file__, batches.__code__.co_firstlineno),
                               (__file__, _line("for _ in batches(codes):  # LOOP")))


def test_an_object_indexed_in_the_loop_is_its_input_and_other_work_is_not():
    del seen[:]
    _loop("getitem")
    _loop("other")
    (in_loop, key), (other_in_loop, other) = seen
    assert in_loop and key[:3] == (GETITEM, "Rows.__getitem__", (__file__, Rows.__getitem__.__code__.co_firstlineno))
    assert other_in_loop and other is None


def test_outside_the_loop_and_inside_a_step_call():
    del seen[:]
    _look((_loop.__code__,))  # no loop frame on the stack
    _step((test_outside_the_loop_and_inside_a_step_call.__code__,))
    assert seen == [(False, None), (True, STEP)]


def test_the_sampling_thread_reads_the_loop_thread_from_outside():
    class Sink:
        def __init__(self):
            self.keys = []

        def loop_sampled(self, key):
            self.keys.append(key)

    sink = Sink()

    def slow_batches():
        for _ in range(4):
            time.sleep(loop_sampler.INTERVAL_S * 3)
            yield 1

    def run():
        for _ in slow_batches():
            pass

    thread = threading.Thread(target=run)
    thread.start()
    sampler = LoopSampler(sink, thread.ident, (run.__code__,))
    sampler.start()
    thread.join()
    sampler.stop()
    assert any(key is not None and key[:2] == (GENERATOR, "slow_batches") for key in sink.keys)


def _watched_loop(gap_s):
    """A step watch whose compiled loop made 16 steps of 10 ms, `gap_s` apart."""
    from tfguard.runtime.run.step_watch import StepWatch

    watch = StepWatch()
    watch.record.step_function(1, "train_step", __file__, 1)
    for step in range(16):
        watch.record.compiled_step(watch.record.functions[1], step * (0.01 + gap_s), 0.01, 0.0)
    watch._loop = (threading.get_ident(), (_watched_loop.__code__,))
    return watch


def test_a_compiled_loop_is_sampled_only_once_its_host_time_matters():
    busy = _watched_loop(gap_s=0.02)  # two thirds of the time between the steps
    busy._sample_if_host_bound()
    assert busy._sampler is not None
    busy.stop()
    device_bound = _watched_loop(gap_s=0.001)
    device_bound._sample_if_host_bound()
    assert device_bound._sampler is None
