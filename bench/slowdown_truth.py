"""False alarms and misses of the slowdown verdict (TFG902) on real TensorFlow loops next to other jobs.

Loops: steady ones (a scalar step, a small and a larger matmul) and real slowdowns (a wait before each run that
grows, Python work that grows, a feed that grows). Each runs `--seconds` under `tfguard.frozen` in this process,
quiet, with two busy processes from a third to two thirds of the way (`middle`), or with two busy processes
throughout, `--repeats` times. A steady loop's TFG902 or SlowdownWarning is a false alarm; a slowdown without
TFG902, or with another cause than its own, is a miss. The busy processes end themselves after a minute.

    python bench/slowdown_truth.py [--repeats 3] [--seconds 2.5] [--kinds steady-0,sleep,...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

#: kind -> (matmul size, the cause TFG902 must name; None for a steady loop).
KINDS = {
    "steady-scalar": (1, None),
    "steady-200": (200, None),
    "steady-600": (600, None),
    "sleep": (16, "host wait"),
    "cpu": (16, "python work"),
    "feed": (16, "growing feed"),
}
PATTERNS = ("quiet", "middle", "throughout")
_BUSY = "import time\nend = time.time() + 60\nwhile time.time() < end: pass\n"


def _busy(count: int) -> list:
    return [subprocess.Popen([sys.executable, "-c", _BUSY]) for _ in range(count)]


def _stop(processes: list) -> None:
    for process in processes:
        process.kill()
        process.wait()


def one_loop(tf, numpy, tfguard, kind: str, pattern: str, seconds: float) -> dict:
    """Run one loop; return its report's slowdown fields and whether a SlowdownWarning was issued."""
    size, _ = KINDS[kind]
    graph = tf.Graph()
    with graph.as_default():
        columns = 64 if size == 16 else size
        x = tf.placeholder(tf.float32, [None, columns])
        w = tf.Variable(tf.ones([columns, columns]) * 0.001)
        y = tf.reduce_sum(tf.matmul(x, w)) if size > 1 else tf.reduce_sum(x + w)
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=graph)
    sess.run(init)
    batch = numpy.ones([size, columns], numpy.float32)
    busy = _busy(2) if pattern == "throughout" else []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with tfguard.frozen(sess) as guard:
                start = time.perf_counter()
                while True:
                    gone = (time.perf_counter() - start) / seconds
                    if gone >= 1.0:
                        break
                    if pattern == "middle" and not busy and 1 / 3 <= gone < 2 / 3:
                        busy = _busy(2)
                    elif pattern == "middle" and busy and gone >= 2 / 3:
                        _stop(busy)
                        busy = []
                    if kind == "sleep":
                        time.sleep(0.001 + 0.004 * gone)
                    elif kind == "cpu":
                        sum(range(20000 + int(200000 * gone)))
                    elif kind == "feed":
                        batch = numpy.ones([16 + int(12000 * gone), columns], numpy.float32)
                    sess.run(y, feed_dict={x: batch})
    finally:
        _stop(busy)
        sess.close()
    report = guard.report.to_dict()
    report["warned"] = any(issubclass(w.category, tfguard.SlowdownWarning) for w in caught)
    return report


def main() -> int:
    """Run every kind under every pattern and print false alarms and misses."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="loops per kind and pattern")
    parser.add_argument("--seconds", type=float, default=2.5, help="seconds each loop runs")
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds (%s)" % ", ".join(KINDS))
    args = parser.parse_args()
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = [k for k in kinds if k not in KINDS]
    if args.repeats < 1 or args.seconds <= 0 or unknown:
        print("error: --repeats and --seconds must be positive and --kinds known (%s)" % ", ".join(KINDS),
              file=sys.stderr)
        return 2

    import numpy
    import tensorflow as tf

    import tfguard

    v1 = tf.compat.v1
    v1.disable_eager_execution()
    print("load average at start: %.2f %.2f %.2f" % os.getloadavg())
    wrong = total = 0
    for kind in kinds:
        expected = KINDS[kind][1]
        for pattern in PATTERNS:
            outcomes = []
            for _ in range(args.repeats):
                report = one_loop(v1, numpy, tfguard, kind, pattern, args.seconds)
                cause = report["slowdown_cause"] if report["slowdown_significant"] else None
                ok = (cause is None and not report["warned"]) if expected is None else cause == expected
                wrong += not ok
                total += 1
                outcomes.append("%s%s x%.2f %s" % ("" if ok else "WRONG ", cause or "-", report["slowdown"] or 0.0,
                                                   "(%d runs)" % report["runs"]))
            print("%-14s %-10s %s" % (kind, pattern, "; ".join(outcomes)), flush=True)
    print("load average at end: %.2f %.2f %.2f" % os.getloadavg())
    print("%d of %d loops judged wrong (false alarms on steady loops, misses on slowdowns)" % (wrong, total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
