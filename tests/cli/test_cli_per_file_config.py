"""Configuration per file, as ruff resolves it: each file gets the settings of the closest configuration file
above it (pyproject.toml with ``[tool.tfguard]``, tfguard.toml, .tfguard.toml), ``extend`` inherits, the command
line's options win; the result is the same whatever the order of the paths and the working folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_helpers import TF

SOURCE = TF + "bad()\nmeh()\n"


def configure(folder: str, text: str, name: str = "pyproject.toml") -> None:
    Path(folder).mkdir(parents=True, exist_ok=True)
    Path(folder, name).write_text(text)


def found(run_json, *args: str) -> list:
    """(absolute path, code) of every finding, whatever the working folder spells the paths as."""
    status, document = run_json(*args)
    assert status in (0, 1)
    return sorted((os.path.realpath(f["path"]), f["code"]) for f in document["findings"])


def where(*parts: str) -> str:
    return os.path.realpath(os.path.join(*parts))


@pytest.fixture
def two_projects(project, write):
    """``sub/`` ignores TFG901 in its own pyproject.toml; ``b.py`` is under the root's empty table."""
    write("sub/a.py", SOURCE)
    write("b.py", SOURCE)
    configure("sub", '[tool.tfguard]\nignore = ["TFG901"]\n')
    return project


def test_the_order_of_the_paths_changes_nothing(two_projects, run_json):
    expected = [(where("b.py"), "TFG901"), (where("b.py"), "TFG902"), (where("sub/a.py"), "TFG902")]
    assert found(run_json, "sub/a.py", "b.py") == expected
    assert found(run_json, "b.py", "sub/a.py") == expected
    assert found(run_json, ".") == expected
    assert found(run_json, "sub", "b.py") == found(run_json, "b.py", "sub") == expected


def test_the_working_folder_changes_nothing(two_projects, run_json):
    expected = found(run_json, ".")
    os.chdir("sub")
    assert found(run_json, "a.py", "../b.py") == expected
    assert found(run_json, "..") == expected
    os.chdir("..")
    Path("elsewhere").mkdir()
    os.chdir("elsewhere")
    assert found(run_json, "../b.py", "../sub") == expected


def test_the_same_with_the_cache_and_with_worker_processes(two_projects, write, run_json):
    for index in range(12):  # enough files for two worker processes
        write(f"sub/m{index}.py", SOURCE)
        write(f"top/t{index}.py", SOURCE)
    one = found(run_json, "--no-cache", "-j", "1", "b.py", "top", "sub")
    assert found(run_json, "-j", "2", "sub", "b.py", "top") == one
    assert found(run_json, "-j", "2", ".") == one  # served from the cache, one pack per settings
    assert {code for path, code in one if "/sub/" in path} == {"TFG902"}
    configure("sub", '[tool.tfguard]\nignore = ["TFG902"]\n')  # the cache is keyed by the settings too
    assert {code for path, code in found(run_json, "-j", "2", ".") if "/sub/" in path} == {"TFG901"}


def test_nesting_the_closest_file_wins_and_tfguard_toml_first(project, write, run_json):
    write("sub/deeper/c.py", SOURCE)
    write("sub/a.py", SOURCE)
    configure(".", '[tool.tfguard]\nselect = ["TFG901"]\n')
    configure("sub", 'select = ["TFG902"]\n', name="tfguard.toml")
    configure("sub/deeper", '[tool.tfguard]\nselect = ["TFG901"]\n')
    configure("sub/deeper", 'select = ["TFG902", "TFG901"]\n', name=".tfguard.toml")
    assert found(run_json, ".") == [(where("sub/a.py"), "TFG902"), (where("sub/deeper/c.py"), "TFG901"),
                                    (where("sub/deeper/c.py"), "TFG902")]


def test_a_pyproject_without_the_table_is_passed_over(project, write, run_json):
    write("sub/a.py", SOURCE)
    configure(".", '[tool.tfguard]\nignore = ["TFG902"]\n')
    configure("sub", '[project]\nname = "sub"\n')
    assert found(run_json, "sub/a.py") == [(where("sub/a.py"), "TFG901")]


def test_extend_inherits_and_the_extending_file_wins(project, write, run_json):
    write("sub/a.py", SOURCE)
    write("sub/tests/t.py", SOURCE)
    configure(".", '[tool.tfguard]\nignore = ["TFG902"]\nextend-select = ["TFG951"]\n'
                   '[tool.tfguard.per-file-ignores]\n"sub/tests/*" = ["TFG901"]\n')
    configure("sub", '[tool.tfguard]\nextend = "../pyproject.toml"\n')
    assert found(run_json, "sub") == [(where("sub/a.py"), "TFG901")]  # the base's globs keep their folder
    configure("sub", '[tool.tfguard]\nextend = "../pyproject.toml"\nignore = []\n')
    assert found(run_json, "sub") == [(where("sub/a.py"), "TFG901"), (where("sub/a.py"), "TFG902"),
                                      (where("sub/tests/t.py"), "TFG902")]


def test_extend_errors_are_one_line(project, write, run):
    write("sub/a.py", SOURCE)
    configure("sub", '[tool.tfguard]\nextend = "../pyproject.toml"\n')
    configure(".", '[tool.tfguard]\nextend = "sub/pyproject.toml"\n')
    status, out, err = run("check", "sub/a.py")
    assert (status, out) == (2, "") and "'extend' goes round in a circle" in err and len(err.splitlines()) == 1
    configure(".", '[tool.tfguard]\nextend = "missing.toml"\n')
    status, out, err = run("check", ".")
    assert (status, err) == (2, "tfguard: error: pyproject.toml: 'extend': configuration file not found: "
                                "missing.toml\n")


def test_options_win_over_every_file(two_projects, run_json):
    assert found(run_json, "--select", "TFG902", ".") == [(where("b.py"), "TFG902"), (where("sub/a.py"), "TFG902")]
    assert found(run_json, "--select", "TFG901", ".") == [(where("b.py"), "TFG901")]  # sub's ignore still holds
    assert found(run_json, "--ignore", "TFG902", ".") == [(where("b.py"), "TFG901"), (where("sub/a.py"), "TFG901")]
    assert found(run_json, "--isolated", "sub/a.py") == [(where("sub/a.py"), "TFG901"), (where("sub/a.py"), "TFG902")]
    Path("other.toml").write_text('[tool.tfguard]\nignore = ["TFG902"]\n')
    assert found(run_json, "--config", "other.toml", ".") == [(where("b.py"), "TFG901"),
                                                              (where("sub/a.py"), "TFG901")]


def test_exclude_of_a_nested_configuration_applies_to_its_files(project, write, run_json):
    write("sub/gen/x.py", SOURCE)
    write("sub/a.py", SOURCE)
    configure("sub", '[tool.tfguard]\nextend-exclude = ["gen"]\n')
    assert {path for path, _ in found(run_json, ".")} == {where("sub/a.py")}


def test_show_settings_names_the_file_that_configured_it(two_projects, run):
    status, out, err = run("check", "--show-settings", "sub/a.py")
    assert status == 0 and err == ""
    assert f"Settings path: {where('sub/pyproject.toml')} [tool.tfguard]" in out.splitlines()
    assert "ignore = ['TFG901']" in out.splitlines()
    status, out, _ = run("check", "--show-settings", "--ignore", "tfg902", "b.py")
    assert f"Settings path: {where('pyproject.toml')} [tool.tfguard]" in out.splitlines()
    assert "ignore = ['TFG902']" in out.splitlines()
    status, out, _ = run("check", "--show-settings", "--isolated", "b.py")
    assert "Settings path: none (the defaults)" in out.splitlines()


def test_a_config_key_typo_gets_a_did_you_mean(project, write, run):
    write("a.py", SOURCE)
    configure(".", 'extend-selct = ["TFG901"]\n', name="tfguard.toml")
    assert run("check", "a.py") == (2, "", "tfguard: error: tfguard.toml: unknown key 'extend-selct' in "
                                           "tfguard.toml (did you mean 'extend-select'?)\n")
