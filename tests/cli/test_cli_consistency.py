"""The command line behaves the same way everywhere: codes in any case, runtime codes explained, usage errors on one
line, ``--placement [N]`` never taking the script, ``-`` reading stdin (``--fix`` printing the fixed source)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from cli_helpers import TF

from tfguard.cli.main import build_parser

REPO = Path(__file__).resolve().parents[2]
SOURCE = TF + "bad()\nmeh()\n"


def codes(document) -> list:
    return sorted({f["code"] for f in document["findings"]})


@pytest.mark.parametrize("args, expected", [
    (("--select", "tfg901"), ["TFG901"]),
    (("--select", "Tfg9", "--ignore", "tfg902"), ["TFG901"]),
    (("--select", "tfg951", "--extend-select", "tfg901"), ["TFG901", "TFG951"]),
    (("--select", "all", "--ignore", "tfg95,tFg902"), ["TFG901"]),
])
def test_codes_are_case_insensitive_on_the_command_line(project, write, run_json, args, expected):
    write("a.py", SOURCE + "rare()\n")
    assert codes(run_json(*args, "a.py")[1]) == expected
    upper = [arg if arg.startswith("--") else arg.upper() for arg in args]
    assert codes(run_json(*upper, "a.py")[1]) == expected


def test_codes_are_case_insensitive_in_configuration_and_noqa(project, write, run_json):
    write("a.py", TF + "bad()\nmeh()  # noqa: tfg902\nrare()\n")
    write("tests/t.py", SOURCE)
    Path("pyproject.toml").write_text('[tool.tfguard]\nselect = ["all"]\nignore = ["tfg951"]\n'
                                      '[tool.tfguard.per-file-ignores]\n"tests/*" = ["tfg9"]\n')
    status, document = run_json(".")
    assert [(f["path"], f["code"]) for f in document["findings"]] == [("a.py", "TFG901")]


@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-select"])
def test_a_runtime_code_says_where_runtime_codes_are_chosen(empty_project, run, option):
    Path("a.py").write_text(TF)
    status, out, err = run("check", option, "tfg903", "a.py")
    assert (status, out) == (2, "")
    assert err == (f"tfguard: error: {option}: TFG903 is a runtime diagnostic, not a rule of the checker: "
                   "`tfguard run` reports it, and `tfguard run --fail-on NAMES` chooses which fail the run "
                   "(--fail-on input-bound)\n")
    Path("pyproject.toml").write_text('[tool.tfguard]\nselect = ["TFG907"]\n')
    status, _, err = run("check", "a.py")
    assert status == 2 and "TFG907 is a runtime diagnostic" in err and len(err.splitlines()) == 1


def test_fail_on_takes_names_or_codes_in_any_case():
    from tfguard.cli.run import _fail_on_codes
    from tfguard.integrations.pytest_plugin import fail_on_codes

    assert _fail_on_codes("Growth,tfg902") == {"growth": "TFG901", "slowdown": "TFG902"}
    assert fail_on_codes("TFG901, Slowdown") == {"growth": "TFG901", "slowdown": "TFG902"}
    assert fail_on_codes("NONE") == {}


@pytest.mark.parametrize("argv, message", [
    (["check", "--output-format", "foo"], "tfguard: error: argument --output-format/--format: invalid choice"),
    (["check", "--color", "pink"], "tfguard: error: argument --color: invalid choice"),
    (["chek"], "tfguard: error: argument COMMAND: invalid choice: 'chek'"),
    (["check", "-j", "0"], "tfguard: error: argument -j/--jobs: must be at least 1"),
])
def test_usage_errors_are_one_line(empty_project, run, argv, message):
    status, out, err = run(*argv)
    assert (status, out) == (2, "") and err.startswith(message) and len(err.splitlines()) == 1, err


@pytest.mark.parametrize("argv, placement, target", [
    (["--placement", "train.py"], "5", ["train.py"]),
    (["--placement", "3", "train.py", "--epochs", "2"], "3", ["train.py", "--epochs", "2"]),
    (["--placement=7", "train.py"], "7", ["train.py"]),
    (["--placement", "-m", "pkg.train"], "5", ["pkg.train"]),
    (["train.py", "--placement", "3"], None, ["train.py", "--placement", "3"]),  # the script's own arguments
])
def test_placement_never_takes_the_script(argv, placement, target):
    args = build_parser().parse_args(["run", *argv])
    assert (args.placement, args.target) == (placement, target)


@pytest.fixture
def stdin(monkeypatch):
    def _feed(data: bytes) -> None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))

    return _feed


def test_a_dash_reads_stdin_with_or_without_a_file_name(project, write, run, stdin):
    Path("pyproject.toml").write_text('[tool.tfguard]\n[tool.tfguard.per-file-ignores]\n"tests/*" = ["TFG901"]\n')
    stdin(SOURCE.encode())
    status, out, err = run("check", "-")
    assert status == 1 and out.splitlines()[0].startswith("-:2:1: TFG901 ")
    stdin(SOURCE.encode())
    status, out, err = run("check", "--stdin-filename", "tests/t.py", "-")
    assert status == 1 and [line.split()[1] for line in out.splitlines() if line.startswith("tests/t.py:")] == [
        "TFG902"]


def test_fix_on_stdin_prints_the_fixed_source(empty_project, run, stdin):
    bad = (REPO / "rules" / "TFG103-initializer-in-session-loop" / "bad.py").read_bytes()
    fixed = (REPO / "tests" / "data" / "fixes" / "TFG103.py").read_text()
    stdin(bad)
    status, out, err = run("check", "--fix", "--unsafe-fixes", "--select", "tfg103", "-")
    assert out == fixed
    assert status == 0 and "TFG103" not in err  # what is left goes to stderr: nothing
    stdin(bad)
    status, out, _ = run("check", "--diff", "--select", "TFG103", "--stdin-filename", "train.py", "-")
    assert status == 1 and out.startswith("--- train.py\n+++ train.py\n")
    stdin(b"import tensorflow as tf\nx = 1\n")
    assert run("check", "--fix", "-") == (0, "import tensorflow as tf\nx = 1\n", "All checks passed (1 file).\n")
