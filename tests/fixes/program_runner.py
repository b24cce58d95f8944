"""Run TF1 programs one after another in this process and write what each printed and how its graph grew.

``python program_runner.py RESULT.json PROGRAM.py...`` (``PROGRAM.py::arg1 arg2`` passes arguments in
``sys.argv``): every program runs in a fresh default graph
(``tf.compat.v1``, graph mode) with Python's, NumPy's and TensorFlow's seeds set to 0 first, its ``stdout``
captured, and every session it opens watched by ``tfguard.watch``; the result maps each program's path to
``{"stdout", "error", "repeated": [lines whose growth was repeated], "runs"}``.  One process for many
programs: TensorFlow is imported once.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import runpy
import sys
import traceback
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main(argv) -> int:
    """Run the programs named in ``argv[1:]``; write the results to ``argv[0]``."""
    import numpy as np
    import tensorflow as tensorflow

    import tfguard

    tf = tensorflow.compat.v1
    tf.disable_eager_execution()
    tf.logging.set_verbosity(tf.logging.ERROR)
    warnings.simplefilter("ignore")  # the guard's live alerts: the result records the growth
    base = tf.Session
    watched = []

    enter, exit_ = base.__enter__, base.__exit__

    def watched_enter(self):
        session = enter(self)
        self._tfguard_test_guard = tfguard.watch(self, sample_gpu=False)
        self._tfguard_test_guard.__enter__()
        return session

    def watched_exit(self, *exc):
        guard = self.__dict__.pop("_tfguard_test_guard", None)
        if guard is not None:
            guard.__exit__(*exc)
            watched.append(guard.report)
        return exit_(self, *exc)

    # ``with tf.Session() as sess:`` is watched from ``__enter__`` to ``__exit__``
    base.__enter__, base.__exit__ = watched_enter, watched_exit
    output, programs = argv[0], argv[1:]
    results = {}
    for spec in programs:
        path, _, arguments = spec.partition("::")
        sys.argv = [path, *arguments.split()]
        tf.reset_default_graph()
        random.seed(0)
        np.random.seed(0)
        tf.set_random_seed(0)
        watched.clear()
        captured = io.StringIO()
        error = ""
        try:
            with contextlib.redirect_stdout(captured):
                runpy.run_path(path, run_name="__main__")
        except BaseException:  # noqa: BLE001 - the program's failure is the result
            error = traceback.format_exc(limit=-3)
        repeated = sorted({line for report in watched for (where, line, _, _, kind) in report.growth_sites
                           if kind == "repeated" and os.path.realpath(where) == os.path.realpath(path)})
        results[spec] = {"stdout": captured.getvalue(), "error": error, "repeated": repeated,
                         "sessions": len(watched)}
    base.__enter__, base.__exit__ = enter, exit_
    with open(output, "w", encoding="utf-8") as handle:
        json.dump(results, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
