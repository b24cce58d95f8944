"""Driver scripts: files that never mention TensorFlow but import project modules that do."""

from __future__ import annotations

import os
import time

from tfguard.static.cache import ResultCache
from tfguard.static.config import Settings
from tfguard.static.drivers import DriverScan, imported_modules
from tfguard.static.engine import check_paths

AGENT = (
    "import tensorflow as tf\n"
    "class Agent(object):\n"
    "    def __init__(self):\n"
    "        self.w = tf.Variable(0.0)\n"
    "        self.sess = tf.Session()\n"
    "    def sync(self, value):\n"
    "        self.sess.run(tf.assign(self.w, value))\n"
)
PURE_AGENT = "class Agent(object):\n    def sync(self, value):\n        self.value = value\n"
DRIVER = "from agent import Agent\nbot = Agent()\nfor episode in range(1000):\n    bot.sync(float(episode))\n"


def test_import_lines_are_read_without_parsing():
    data = (b"import os, pkg.sub as s\nfrom . import a, b as c\nfrom ..up import (x,\n"
            b"    y)\nif True:\n    from lib.model import Model  # comment\nx = 'no import here'\n")
    assert list(imported_modules(data)) == [
        ("os", 0), ("pkg.sub", 0), ("a", 1), ("b", 1), ("up", 2), ("up.x", 2), ("lib.model", 0),
        ("lib.model.Model", 0),
    ]
    assert list(imported_modules(b"print('hello')\n")) == []


def test_scan_follows_project_imports_only(tmp_path):
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "middle.py").write_text("import os\nfrom agent import Agent\n")
    (tmp_path / "pure.py").write_text("import json\n")
    scan = DriverScan(str(tmp_path))
    assert scan.reaches_tensorflow(str(tmp_path / "d.py"), b"import middle\n") == (
        True, (str(tmp_path / "agent.py"), str(tmp_path / "middle.py")))
    assert scan.reaches_tensorflow(str(tmp_path / "e.py"), b"import pure, numpy\n") == (
        False, (str(tmp_path / "pure.py"),))
    assert scan.reaches_tensorflow(str(tmp_path / "f.py"), b"import numpy\n") == (False, ())


def _findings(tmp_path, cache=None):
    result = check_paths([str(tmp_path)], Settings(root=str(tmp_path)), cache=cache)
    assert not result.errors
    return [(os.path.basename(f.path), f.line, f.code) for f in result.findings]


def test_driver_is_analysed_and_its_cache_depends_on_the_imported_modules(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "agent.py").write_text(PURE_AGENT)
    (tmp_path / "drive.py").write_text(DRIVER)
    old = time.time() - 10  # time stamps old enough for the cache's size-and-mtime fast path
    os.utime(tmp_path / "drive.py", (old, old))

    def cached_run():
        return _findings(tmp_path, ResultCache(str(tmp_path / ".cache"), Settings(root=str(tmp_path))))

    assert cached_run() == []  # no TensorFlow anywhere: nothing is parsed
    (tmp_path / "agent.py").write_text(AGENT)  # the imported module starts using TF: the driver is checked
    # Agent.sync assigns a host value on each call (TFG110); the driver's loop builds that assign (TFG108).
    expected = [("agent.py", 7, "TFG110"), ("drive.py", 4, "TFG108")]
    assert cached_run() == expected
    assert cached_run() == expected  # from the cache
    (tmp_path / "agent.py").write_text(PURE_AGENT)
    assert cached_run() == []
