"""`import tfguard` never imports TensorFlow; runtime names load on first use."""

from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(code):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_import_tfguard_does_not_import_tensorflow():
    result = _run(
        "import sys, tfguard\n"
        "tfguard.GraphFrozenError, tfguard.SessionReport, tfguard.frozen, tfguard.watch\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tensorflow', 'tensorflow_core')))\n"
        "print(issubclass(tfguard.GraphFrozenError, RuntimeError))")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["[]", "True"]


def test_unknown_attribute_is_an_attribute_error():
    result = _run("import tfguard\ntry:\n    tfguard.nope\nexcept AttributeError as e:\n    print(e)")
    assert "has no attribute 'nope'" in result.stdout


def test_import_cli_imports_neither_astroid_nor_tabulate():
    result = _run(
        "import sys, tfguard.cli\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'astroid', 'tabulate', 'tensorflow'}))\n"
        "prefixes = ('tfguard.static.analysis', 'tfguard.static.checks', 'tfguard.static.parsing')\n"
        "print(sorted(m for m in sys.modules if m.startswith(prefixes)))")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["[]", "[]"]
