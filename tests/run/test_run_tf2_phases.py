"""`tfguard run` on a TF2 program that trains in two phases, a Keras `fit` then an eager epoch function (field wave
f): the eager phase is still named (TFG909) at its apply_gradients line, with its loop, though a compiled function
applied gradients before it. One TF child process for the module."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.run.conftest import tfguard, valid_document

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("tensorflow_installed")]
PROGRAM = Path(__file__).resolve().parent / "programs" / "tf2_two_phases.py"


def _line(marker):
    lines = PROGRAM.read_text(encoding="utf-8").splitlines()
    return next(number for number, text in enumerate(lines, 1) if marker in text)


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    """(the finished `tfguard run`, its JSON document) of the two-phase program."""
    tmp = tmp_path_factory.mktemp("phases")
    report = tmp / "run.json"
    done = tfguard("run", "--json", report, PROGRAM, cwd=tmp)
    return done, valid_document(json.loads(report.read_text(encoding="utf-8")))


def test_the_eager_phase_is_named_at_its_apply_line_with_its_loop(guarded):
    done, document = guarded
    assert done.returncode == 0, done.stderr
    (finding,) = [d for d in document["diagnostics"] if d["code"] == "TFG909"]
    blamed = next(site for site in finding["sites"] if site["role"] == "blamed")
    assert (finding["severity"], blamed["path"], blamed["line"]) == ("warning", str(PROGRAM), _line("# applies"))
    assert "inside its loop at line %d" % _line("# the batch loop") in finding["headline"]
    assert "24 steps" in finding["headline"] and "other 16 steps ran compiled" in finding["headline"]
    assert "move that loop's body" in finding["help"]


def test_the_compiled_phase_stays_the_runs_steps_and_the_output_is_the_programs(guarded):
    done, document = guarded
    assert (document["steps"]["mode"], document["steps"]["steps"]) == ("compiled", 16)
    assert done.stdout.splitlines() == ["epoch 0 True", "epoch 1 True", "epoch 2 True"]
