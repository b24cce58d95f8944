"""Rule selection: --select, --ignore, --extend-select, prefixes, ALL, off-by-default rules."""

from __future__ import annotations

import pytest
from cli_helpers import TF

SOURCE = TF + "bad()\nmeh()\nrare()\n"


def codes_reported(run_json, *args):
    status, document = run_json(*args)
    assert document["errors"] == []
    return status, sorted({f["code"] for f in document["findings"]})


@pytest.mark.parametrize(
    "args, expected",
    [
        ((), ["TFG901", "TFG902"]),
        (("--select", "TFG901"), ["TFG901"]),
        (("--select", "TFG9"), ["TFG901", "TFG902"]),
        (("--select", "TFG"), ["TFG901", "TFG902"]),
        (("--select", "ALL"), ["TFG901", "TFG902", "TFG951"]),
        (("--select", "TFG951"), ["TFG951"]),
        (("--select", "TFG95"), []),
        (("--extend-select", "TFG951"), ["TFG901", "TFG902", "TFG951"]),
        (("--select", "TFG902", "--extend-select", "TFG901"), ["TFG901", "TFG902"]),
        (("--ignore", "TFG902"), ["TFG901"]),
        (("--select", "ALL", "--ignore", "TFG90"), ["TFG951"]),
        (("--select", "TFG901,TFG902"), ["TFG901", "TFG902"]),
        (("--select", "TFG901", "--select", "TFG951"), ["TFG901", "TFG951"]),
        (("--select", " TFG901 , TFG951 "), ["TFG901", "TFG951"]),
    ],
)
def test_selection(project, write, run_json, args, expected):
    write("a.py", SOURCE)
    status, codes = codes_reported(run_json, *args, "a.py")
    assert codes == expected
    assert status == (1 if expected else 0)


def test_ignoring_everything_exits_zero(project, write, run):
    write("a.py", SOURCE)
    assert run("check", "--ignore", "TFG9")[:2] == (0, "")


def test_parse_errors_survive_select_but_not_ignore(project, write, run_json):
    write("a.py", TF + "print 'x' +\n")
    assert codes_reported(run_json, "--select", "TFG901", "a.py") == (1, ["TFG000"])
    assert codes_reported(run_json, "--ignore", "TFG000", "a.py") == (0, [])


@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-select"])
@pytest.mark.parametrize("selector", ["TFG77", "XYZ", "tfg9011", "TFG9011"])
def test_unknown_code_is_a_one_line_error(project, write, run, option, selector):
    write("a.py", SOURCE)
    status, out, err = run("check", option, f"TFG901,{selector}", "a.py")
    assert (status, out) == (2, "")
    assert err == f"tfguard: error: {option}: unknown rule code or prefix {selector!r}\n"


@pytest.mark.parametrize("selector", ["ALL", "TFG000", "TFG0", "TFG990"])
def test_builtin_and_registered_selectors_are_known(project, write, run, selector):
    write("a.py", TF + "x = 1\n")
    assert run("check", "--select", selector, "a.py")[0] == 0
