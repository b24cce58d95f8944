"""Which files ``tfguard check`` visits: default exclusions, --exclude, --extend-exclude, --force-exclude."""

from __future__ import annotations

from cli_helpers import TF, located

BAD = TF + "bad()\n"


def paths_reported(run_json, *args):
    return [path for path, _, _ in located(run_json(*args)[1])]


def test_default_exclusions(project, write, run_json):
    write("src/a.py", BAD)
    write("src/b.pyi", BAD)
    write("src/notes.txt", BAD)
    for folder in (".git", "venv", ".venv", "build", "dist", "node_modules", "__pycache__",
                   "lib/python3.11/site-packages", "src/build"):
        write(f"{folder}/x.py", BAD)
    write("myenv/pyvenv.cfg", "home = /usr/bin\n")
    write("myenv/lib/x.py", BAD)
    assert paths_reported(run_json, ".") == ["src/a.py", "src/b.pyi"]


def test_exclude_and_extend_exclude_options(project, write, run_json):
    write("a.py", BAD)
    write("build/b.py", BAD)
    write("pkg/generated/c.py", BAD)
    write("pkg/d_pb2.py", BAD)
    write("pkg/e.py", BAD)
    assert paths_reported(run_json, "--extend-exclude", "*_pb2.py,pkg/generated") == ["a.py", "pkg/e.py"]
    assert paths_reported(run_json, "--extend-exclude", "*_pb2.py", "--extend-exclude", "generated") == [
        "a.py", "pkg/e.py"
    ]
    assert paths_reported(run_json, "--exclude", "e.py") == [
        "a.py", "build/b.py", "pkg/d_pb2.py", "pkg/generated/c.py"
    ]


def test_explicit_paths_are_checked_unless_force_exclude(project, write, run_json, run):
    write("build/b.py", BAD)
    write("pkg/d_pb2.py", BAD)
    assert paths_reported(run_json, "build/b.py", "pkg/d_pb2.py", "--extend-exclude", "*_pb2.py") == [
        "build/b.py", "pkg/d_pb2.py"
    ]
    forced = ("--force-exclude", "build/b.py", "pkg/d_pb2.py", "--extend-exclude", "*_pb2.py")
    assert paths_reported(run_json, *forced) == []
    status, out, err = run("check", "--force-exclude", "build")
    assert (status, out, err) == (0, "", "tfguard: warning: no Python files found under build\n"
                                         "All checks passed (0 files).\n")


def test_force_exclude_ignores_folders_above_the_project(tmp_path, monkeypatch, test_rules, write, run_json):
    project = tmp_path / "build" / "proj"
    project.mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.tfguard]\n")
    monkeypatch.chdir(project)
    write("a.py", BAD)
    absolute = str(project / "a.py")
    assert paths_reported(run_json, "--force-exclude", absolute) == [absolute]
    assert paths_reported(run_json, "--force-exclude", ".") == ["a.py"]
