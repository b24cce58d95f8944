"""`tfguard run` on TF2 programs fed by a slow Python input (TFG903's TF2 cases beyond a tf.data map): a generator
and a `keras.utils.PyDataset` (Keras 3) / `Sequence` (tf_keras) given to `fit`, a generator a custom loop iterates;
each named where it is defined, with the line that feeds it, in the text, the JSON and the HTML; the fixed twins
silent, the program's output unchanged. One TF child process per case, shared by the module's tests."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.run.conftest import tfguard, valid_document

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("tensorflow_installed")]
PROGRAM = Path(__file__).resolve().parent / "programs" / "tf2_python_input.py"
BAD = [("keras", "generator"), ("keras", "dataset"), ("tf_keras", "generator"), ("tf_keras", "dataset"),
       ("keras", "loop")]


def _line(marker):
    lines = PROGRAM.read_text(encoding="utf-8").splitlines()
    return next(number for number, text in enumerate(lines, 1) if marker in text)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """flavour, case -> (the finished process, its JSON document, its HTML page's text), each run once."""
    done = {}

    def run(flavour, case):
        if (flavour, case) not in done:
            if flavour == "tf_keras":
                pytest.importorskip("tf_keras")
            where = tmp_path_factory.mktemp("%s-%s" % (flavour, case))
            report, page = where / "run.json", where / "run.html"
            finished = tfguard("run", "--json", report, "--html", page, PROGRAM, where, flavour, case, cwd=where)
            html = re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8"))
            done[flavour, case] = (finished, valid_document(json.loads(report.read_text(encoding="utf-8"))), html)
        return done[flavour, case]

    return run


def _warnings(document):
    """The program-scope diagnostics above info: (code, blamed path, line, named lines) each."""
    found = []
    for d in document["diagnostics"]:
        if d["scope"] == "program" and d["severity"] != "info":
            lines = [(site["path"], site["line"]) for site in d["sites"]]
            found.append((d["code"], lines[0], lines[1:], d["headline"] + " — " + d["help"]))
    return found


#: (flavour, case) -> (the line blamed, the line named, what the help says)
EXPECTED = {
    ("keras", "generator"): ("# generator", "# fit generator", "the Python generator `batches`"),
    ("keras", "dataset"): ("# dataset", "# fit dataset", "the PyDataset `Batches`"),
    ("tf_keras", "generator"): ("# generator", "# fit generator", "the Python generator `batches`"),
    ("tf_keras", "dataset"): ("# fit dataset", "# dataset", "the Sequence `Batches`"),
    ("keras", "loop"): ("# generator", "# loop", "makes each batch on the loop's own thread"),
}


@pytest.mark.parametrize("flavour, case", BAD)
def test_a_slow_python_input_is_named_where_it_is_defined_in_text_json_and_html(runs, flavour, case):
    finished, document, html = runs(flavour, case)
    assert finished.returncode == 0, finished.stderr
    blamed, named, said = EXPECTED[flavour, case]
    ((code, site, others, text),) = _warnings(document)
    assert code == "TFG903" and site == (str(PROGRAM), _line(blamed)) and others == [(str(PROGRAM), _line(named))]
    assert said in text and "input-bound: the steps wait for the next batch" in text
    assert "TFG903 warning (program): input-bound" in finished.stderr
    shown = "%s:%d" % (PROGRAM.name, _line(blamed))
    assert shown in finished.stderr.replace("\n    ", " ") and "TFG903" in html and shown in html


@pytest.mark.parametrize("flavour, case", [("keras", "fixed"), ("tf_keras", "fixed"), ("keras", "loopfixed")])
def test_the_fixed_twins_are_silent(runs, flavour, case):
    finished, document, _ = runs(flavour, case)
    assert finished.returncode == 0, finished.stderr
    assert _warnings(document) == [] and document["steps"]["steps"] == 64


def test_the_program_runs_as_without_the_guard(runs, tmp_path):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    plain = subprocess.run([sys.executable, str(PROGRAM), str(tmp_path), "keras", "loop"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    guarded = runs("keras", "loop")[0]
    assert (guarded.returncode, guarded.stdout) == (plain.returncode, plain.stdout) == (0, "steps 64\n")
