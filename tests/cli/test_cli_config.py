"""``[tool.tfguard]`` in pyproject.toml: keys, precedence, per-file-ignores and config errors."""

from __future__ import annotations

import os

import pytest
from cli_helpers import TF, located

SOURCE = TF + "bad()\nmeh()\nrare()\n"


def configure(text: str, folder: str = ".") -> None:
    with open(os.path.join(folder, "pyproject.toml"), "w", encoding="utf-8") as handle:
        handle.write(text)


def codes(document):
    return sorted({f["code"] for f in document["findings"]})


def test_select_ignore_extend_select_from_config(project, write, run_json):
    write("a.py", SOURCE)
    configure('[tool.tfguard]\nselect = ["TFG902"]\nextend-select = ["TFG951"]\n')
    assert codes(run_json("a.py")[1]) == ["TFG902", "TFG951"]
    configure('[tool.tfguard]\nignore = ["TFG902"]\n')
    assert codes(run_json("a.py")[1]) == ["TFG901"]


def test_command_line_wins(project, write, run_json):
    write("a.py", SOURCE)
    configure('[tool.tfguard]\nselect = ["TFG902"]\nignore = ["TFG951"]\nextend-select = ["TFG951"]\n')
    assert codes(run_json("a.py")[1]) == ["TFG902"]
    assert codes(run_json("--select", "TFG901", "a.py")[1]) == ["TFG901"]
    assert codes(run_json("--ignore", "TFG902", "a.py")[1]) == ["TFG951"]
    assert codes(run_json("--extend-select", "TFG901", "a.py")[1]) == ["TFG901", "TFG902"]


def test_per_file_ignores_relative_to_the_project_root(project, write, run_json):
    write("src/a.py", SOURCE)
    write("tests/deep/test_a.py", SOURCE)
    write("src/model_pb2.py", SOURCE)
    configure(
        '[tool.tfguard]\n[tool.tfguard.per-file-ignores]\n"tests/**" = ["TFG9"]\n"*_pb2.py" = ["TFG901"]\n'
    )
    assert located(run_json(".")[1]) == [
        ("src/a.py", 2, "TFG901"),
        ("src/a.py", 3, "TFG902"),
        ("src/model_pb2.py", 3, "TFG902"),
    ]
    os.chdir("tests")
    status, document = run_json(".")
    assert (status, document["findings"]) == (0, [])
    os.chdir("../src")
    assert located(run_json("a.py", "../tests")[1]) == [("a.py", 2, "TFG901"), ("a.py", 3, "TFG902")]


def test_exclude_and_extend_exclude_from_config(project, write, run_json):
    write("a.py", TF + "bad()\n")
    write("gen/b.py", TF + "bad()\n")
    write("build/c.py", TF + "bad()\n")
    write("pkg/d_pb2.py", TF + "bad()\n")
    configure('[tool.tfguard]\nextend-exclude = ["gen", "*_pb2.py"]\n')
    assert [p for p, _, _ in located(run_json(".")[1])] == ["a.py"]
    configure('[tool.tfguard]\nexclude = ["gen"]\n')
    assert [p for p, _, _ in located(run_json(".")[1])] == ["a.py", "build/c.py", "pkg/d_pb2.py"]


def test_nearest_pyproject_above_the_first_path_is_used(project, write, run_json, monkeypatch):
    write("sub/a.py", SOURCE)
    configure('[tool.tfguard]\nselect = ["TFG901"]\n')
    configure('[tool.tfguard]\nselect = ["TFG902"]\n', folder="sub")
    assert codes(run_json("sub")[1]) == ["TFG902"]
    assert codes(run_json("sub/a.py")[1]) == ["TFG902"]
    os.mkdir("elsewhere")
    monkeypatch.chdir("elsewhere")
    assert codes(run_json("../sub/a.py")[1]) == ["TFG902"]


def test_pyproject_without_table_defers_to_a_parent_with_one(project, write, run_json):
    write("sub/a.py", SOURCE)
    configure('[tool.tfguard]\nselect = ["TFG901"]\n')
    configure('[project]\nname = "sub"\n', folder="sub")
    assert codes(run_json("sub")[1]) == ["TFG901"]


def test_config_option_and_isolated(project, write, run, run_json):
    write("a.py", SOURCE)
    configure('[tool.tfguard\n')  # malformed, but not read
    with open("other.toml", "w", encoding="utf-8") as handle:
        handle.write('[tool.tfguard]\nselect = ["TFG902"]\n')
    assert codes(run_json("--config", "other.toml", "a.py")[1]) == ["TFG902"]
    assert codes(run_json("--isolated", "a.py")[1]) == ["TFG901", "TFG902"]
    status, out, err = run("check", "--config", "missing.toml", "a.py")
    assert (status, out, err) == (2, "", "tfguard: error: config file not found: missing.toml\n")
    with open("empty.toml", "w", encoding="utf-8") as handle:
        handle.write("[tool.other]\n")
    assert run("check", "--config", "empty.toml", "a.py") == (
        2, "", "tfguard: error: empty.toml: no [tool.tfguard] table\n"
    )


@pytest.mark.parametrize(
    "table, message",
    [
        ('selct = ["TFG901"]', "pyproject.toml: unknown key 'selct' in [tool.tfguard] (did you mean 'select'?)"),
        ('colour = "always"', "pyproject.toml: unknown key 'colour' in [tool.tfguard]"),
        ("baseline = 1", "pyproject.toml: 'baseline' must be the path of a baseline file"),
        ('baseline = "missing.json"', "baseline file not found: missing.json"),
        ('select = "TFG901"', "pyproject.toml: 'select' must be a list of strings"),
        ("select = []", "pyproject.toml: 'select' is empty; leave it out for the default rules, or name the rules "
                        "to check"),
        ("exclude = [1]", "pyproject.toml: 'exclude' must be a list of strings"),
        ('select = ["TFG77"]', "pyproject.toml: select: unknown rule code or prefix 'TFG77'"),
        ('ignore = ["ALL", "X1"]', "pyproject.toml: ignore: unknown rule code or prefix 'X1'"),
        ('per-file-ignores = ["a"]', "pyproject.toml: 'per-file-ignores' must be a table of glob = [codes]"),
        ('per-file-ignores = {"a.py" = "TFG901"}', "pyproject.toml: per-file-ignores 'a.py' must be a list of strings"),
        (
            'per-file-ignores = {"a.py" = ["TFG7"]}',
            "pyproject.toml: per-file-ignores 'a.py': unknown rule code or prefix 'TFG7'",
        ),
    ],
)
def test_config_errors_are_one_line(project, write, run, table, message):
    write("a.py", SOURCE)
    configure(f"[tool.tfguard]\n{table}\n")
    assert run("check", "a.py") == (2, "", f"tfguard: error: {message}\n")


@pytest.mark.parametrize(
    "text", ["[tool.tfguard\n", 'select = ["TFG901"\n', "[tool]\ntfguard = 3\n", b"\xff\xfe[tool]\n"]
)
def test_malformed_toml_is_a_one_line_error(project, write, run, text):
    write("a.py", SOURCE)
    if isinstance(text, bytes):
        with open("pyproject.toml", "wb") as handle:
            handle.write(text)
    else:
        configure(text)
    status, out, err = run("check", "a.py")
    assert (status, out) == (2, "")
    assert err.startswith("tfguard: error: pyproject.toml: ")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_an_empty_select_option_is_a_usage_error(project, write, run):
    write("a.py", SOURCE)
    assert run("check", "--select", "", "a.py") == (
        2, "", "tfguard: error: --select names no rule; leave it out for the default rules\n")
