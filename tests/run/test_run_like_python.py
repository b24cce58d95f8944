"""`tfguard run script.py` runs the script as `python script.py` does: each of `__file__` (absolute on 3.9+, as
given before), the code's filename, `sys.argv`, `sys.path[0]` (symlinks followed) and the `__main__` module's
spec, loader and package is compared with plain Python on the same interpreter (the TF 1.15 / Python 3.7 leg too)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.run.conftest import tfguard

pytestmark = pytest.mark.tf1

PROBE = """\
import json, sys
main = sys.modules["__main__"]
print("PROBE " + json.dumps({
    "__file__": __file__, "co_filename": sys._getframe().f_code.co_filename, "sys.argv": sys.argv,
    "sys.path[0]": sys.path[0], "__spec__": repr(__spec__), "__name__": __name__,
    "sys.modules['__main__']": main.__dict__ is globals(), "__loader__": type(__loader__).__name__,
    "__package__": repr(__package__), "__cached__": repr(__cached__), "__doc__": __doc__}))
"""
ITEMS = ("__file__", "co_filename", "sys.argv", "sys.path[0]", "__spec__", "__name__", "sys.modules['__main__']",
         "__loader__", "__package__", "__cached__", "__doc__")


def _probe(output: str) -> dict:
    line = next(line for line in output.splitlines() if line.startswith("PROBE "))
    return json.loads(line[len("PROBE "):])


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """{how: (under python, under tfguard run)} for a script given by a relative path and through a symlink."""
    folder = tmp_path_factory.mktemp("probe")
    (folder / "sub").mkdir()
    (folder / "sub" / "probe.py").write_text(PROBE, encoding="utf-8")
    (folder / "link.py").symlink_to(os.path.join("sub", "probe.py"))
    seen = {}
    for how, script in (("relative", "sub/probe.py"), ("symlink", "link.py")):
        plain = subprocess.run([sys.executable, script, "a", "--b"], cwd=str(folder), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True)
        guarded = tfguard("run", "-q", script, "a", "--b", cwd=folder)
        assert plain.returncode == 0 and guarded.returncode == 0, guarded.stderr
        seen[how] = _probe(plain.stdout), _probe(guarded.stdout)
    return seen


@pytest.mark.parametrize("how", ["relative", "symlink"])
@pytest.mark.parametrize("item", ITEMS)
def test_each_item_is_as_under_python(both, how, item):
    plain, guarded = both[how]
    assert guarded[item] == plain[item]


def test_file_is_absolute_from_python_3_9_as_python_makes_it(both):
    plain, _ = both["relative"]
    assert os.path.isabs(plain["__file__"]) == (sys.version_info >= (3, 9))
    assert plain["sys.argv"] == ["sub/probe.py", "a", "--b"]


def test_a_program_that_changes_folder_still_opens_files_beside_itself(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "data.txt").write_text("beside me\n", encoding="utf-8")
    (tmp_path / "sub" / "prog.py").write_text(
        "import os\nos.chdir('/')\nprint(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "
        "'data.txt')).read())\n", encoding="utf-8")
    plain = subprocess.run([sys.executable, "sub/prog.py"], cwd=str(tmp_path), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
    guarded = tfguard("run", "-q", "sub/prog.py", cwd=tmp_path)
    assert (guarded.returncode, guarded.stdout) == (plain.returncode, plain.stdout)
    if sys.version_info >= (3, 9):
        assert plain.stdout == "beside me\n\n"


def test_a_traceback_names_the_script_as_python_does(tmp_path):
    (tmp_path / "boom.py").write_text("def f():\n    raise ValueError('boom')\n\nf()\n", encoding="utf-8")
    plain = subprocess.run([sys.executable, "boom.py"], cwd=str(tmp_path), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
    guarded = tfguard("run", "-q", "boom.py", cwd=tmp_path)
    assert guarded.returncode == plain.returncode == 1
    frames = [line for line in plain.stderr.splitlines() if line.startswith("  File ")]
    assert [line for line in guarded.stderr.splitlines() if line.startswith("  File ")] == frames
