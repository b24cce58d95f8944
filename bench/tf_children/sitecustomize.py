"""Count the child processes of the test suite that import TensorFlow (a proxy for the suite's cost).

Active only where ``TFG_TF_CHILDREN_LOG`` names a file and this folder is on ``PYTHONPATH`` (``bench/
test_durations.py --count-tf`` sets both). A process counts when it was started while a test ran (pytest's
``PYTEST_CURRENT_TEST`` is in the environment it inherited) and imports ``tensorflow``: it appends one line,
``test id <TAB> command line`` (JSON), to the log. The pytest processes themselves start without that variable and are
not counted; what they import in-process is cheap next to a new interpreter that starts TensorFlow (~4 s).

Many tests give their child an environment of their own (``PYTHONPATH`` set to the checkout, or removed); so
that those children count too, every process that loads this module hands the counter on: ``subprocess.Popen``
adds this folder, the log and the test's name to an ``env=`` it is given.

The count is the same on a busy and on a quiet machine, unlike the suite's time.
"""

import json
import os
import sys

_LOG = os.environ.get("TFG_TF_CHILDREN_LOG")
_TEST = os.environ.get("PYTEST_CURRENT_TEST")
_HERE = os.path.dirname(os.path.abspath(__file__))


class _TensorFlowImportCounter:
    """A meta-path finder that finds nothing: it notes the first ``import tensorflow`` and steps aside."""

    def find_spec(self, name, path=None, target=None):
        """Note the process once when ``tensorflow`` is first imported; never finds a module itself."""
        if name == "tensorflow":
            sys.meta_path.remove(self)
            test = _TEST.rsplit(" (", 1)[0]  # "tests/x.py::test_y (call)"
            line = "%s\t%s\n" % (test, json.dumps(_command_line()))
            fd = os.open(_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line.encode("utf-8"))  # one write with O_APPEND: lines of parallel processes stay whole
            finally:
                os.close(fd)
        return None


def _command_line():
    """The process's command line as it was started (``tfguard run`` rewrites ``sys.argv`` to the script's)."""
    try:
        with open("/proc/self/cmdline", "rb") as handle:
            return [part.decode("utf-8", "replace") for part in handle.read().split(b"\0") if part]
    except OSError:  # not Linux
        return sys.argv


def _hand_on_the_counter():
    """Make every child this process starts with its own ``env=`` carry the counter as well."""
    import subprocess

    started = subprocess.Popen.__init__

    def __init__(self, *args, **kwargs):
        env = kwargs.get("env")
        if env is not None:
            env = dict(env)
            env["TFG_TF_CHILDREN_LOG"] = _LOG
            if os.environ.get("PYTEST_CURRENT_TEST"):
                env["PYTEST_CURRENT_TEST"] = os.environ["PYTEST_CURRENT_TEST"]
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), _HERE]))
            kwargs["env"] = env
        started(self, *args, **kwargs)

    subprocess.Popen.__init__ = __init__


if _LOG:
    _hand_on_the_counter()
    if _TEST:
        sys.meta_path.insert(0, _TensorFlowImportCounter())
