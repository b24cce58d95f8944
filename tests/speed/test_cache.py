"""The result cache: hits, every kind of invalidation, broken entries and folders, and its location."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict

import pytest
from speed_rules import TF, Calls

import tfguard
from tfguard.analysis.project import find_project_root
from tfguard.cache import (
    CACHE_DIR_NAME,
    ResultCache,
    content_hash,
    default_cache_dir,
    finding_from_dict,
)
from tfguard.config import Settings
from tfguard.finding import ChainLink, Finding


def _entries(cache: Path) -> Dict[str, Path]:
    """Return the cache entry files, keyed by the path of the file they hold."""
    found = {}
    for entry in cache.glob("*/*.json"):
        found.setdefault(json.loads(entry.read_text())["path"], []).append(entry)
    return found


def _check(run, *args):
    status, out, err = run("check", "--format", "json", *args)
    return status, json.loads(out), err


def test_second_run_reads_the_cache(project, write, run):
    write("a.py", TF + "bad()\n")
    write("b.py", TF + "bad()\nbad()\n")
    first = _check(run, "-j", "1", ".")
    assert Calls.count == 2 and first[0] == 1 and len(first[1]["findings"]) == 3
    second = _check(run, "-j", "1", ".")
    assert Calls.count == 2, "nothing may be re-checked"
    assert second == first
    assert sorted(_entries(project / CACHE_DIR_NAME)) == ["a.py", "b.py"]


def test_cache_dir_holds_tag_and_gitignore_and_is_not_checked(project, write, run):
    write("a.py", TF + "bad()\n")
    assert _check(run, ".")[0] == 1
    cache = project / CACHE_DIR_NAME
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (cache / ".gitignore").read_text() == "*\n"
    status, document, err = _check(run, "--no-cache", ".")
    assert err == "Found 1 finding (1 error) in 1 file.\n"


def test_content_change_rechecks_only_that_file(project, write, run):
    write("a.py", TF + "bad()\n")
    write("b.py", TF + "bad()\n")
    _check(run, "-j", "1", ".")
    write("a.py", TF + "x = 1\nbad()\nbad()\n")
    status, document, _ = _check(run, "-j", "1", ".")
    assert Calls.count == 3
    assert [(f["path"], f["line"]) for f in document["findings"]] == [("a.py", 3), ("a.py", 4), ("b.py", 2)]


def test_settings_change_is_a_miss(project, write, run):
    write("a.py", TF + "bad()\n")
    _check(run, "-j", "1", ".")
    status, document, _ = _check(run, "-j", "1", "--ignore", "TFG971", ".")
    assert Calls.count == 1 and document["findings"] == []  # ignored rules do not run, and nothing stale comes back
    status, document, _ = _check(run, "-j", "1", "--extend-select", "TFG972", ".")
    assert Calls.count == 2 and len(document["findings"]) == 1
    _check(run, "-j", "1", ".")
    assert Calls.count == 2, "the first settings' entry is still there"


def test_version_change_is_a_miss(project, write, run, monkeypatch):
    write("a.py", TF + "bad()\n")
    _check(run, "-j", "1", ".")
    monkeypatch.setattr(tfguard, "__version__", tfguard.__version__ + ".post1")
    assert _check(run, "-j", "1", ".")[1]["findings"][0]["line"] == 2
    assert Calls.count == 2


def test_changed_dependency_invalidates_the_entry(project, write, run):
    write("helpers.py", TF + "def helper():\n    pass\n")
    write("a.py", TF + "bad()\n")
    _check(run, "-j", "1", "a.py")
    [entry] = _entries(project / CACHE_DIR_NAME)["a.py"]
    data = json.loads(entry.read_text())
    assert data["dependencies"] == []

    helper = str((project / "helpers.py").resolve())
    data["dependencies"] = [[helper, content_hash((project / "helpers.py").read_bytes())]]
    entry.write_text(json.dumps(data))
    _check(run, "-j", "1", "a.py")
    assert Calls.count == 1, "an entry whose dependencies are unchanged is a hit"

    write("helpers.py", TF + "def helper():\n    return 1\n")
    status, document, _ = _check(run, "-j", "1", "a.py")
    assert Calls.count == 2 and document["findings"][0]["path"] == "a.py"
    assert json.loads(entry.read_text())["dependencies"] == [], "the entry is rewritten from the new check"

    data["dependencies"] = [[str(project / "deleted.py"), "0" * 32]]
    entry.write_text(json.dumps(data))
    _check(run, "-j", "1", "a.py")
    assert Calls.count == 3, "a dependency that is gone is a miss"


@pytest.mark.parametrize("garbage", [b"", b"{not json", b"[]", b'{"path": "a.py"}', b"\xff\xfe\x00",
                                     b'{"path": "a.py", "content": "x", "dependencies": [], "findings": [{}]}'])
def test_corrupt_entry_is_ignored_and_rewritten(project, write, run, garbage):
    write("a.py", TF + "bad()\n")
    expected = _check(run, "-j", "1", ".")
    [entry] = _entries(project / CACHE_DIR_NAME)["a.py"]
    entry.write_bytes(garbage)
    assert _check(run, "-j", "1", ".") == expected
    assert Calls.count == 2
    assert json.loads(entry.read_text())["path"] == "a.py"
    assert _check(run, "-j", "1", ".") == expected and Calls.count == 2


def test_entry_claiming_another_content_is_a_miss(project, write, run):
    write("a.py", TF + "bad()\n")
    _check(run, "-j", "1", ".")
    [entry] = _entries(project / CACHE_DIR_NAME)["a.py"]
    data = json.loads(entry.read_text())
    data["content"] = "0" * 32
    data["findings"] = []
    entry.write_text(json.dumps(data))
    assert len(_check(run, "-j", "1", ".")[1]["findings"]) == 1 and Calls.count == 2


def test_no_cache_neither_reads_nor_writes(project, write, run):
    write("a.py", TF + "bad()\n")
    _check(run, "-j", "1", "--no-cache", ".")
    assert not (project / CACHE_DIR_NAME).exists()
    _check(run, "-j", "1", ".")
    _check(run, "-j", "1", "--no-cache", ".")
    assert Calls.count == 3


def test_cache_dir_option(project, write, run, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "cache"
    write("a.py", TF + "bad()\n")
    _check(run, "-j", "1", "--cache-dir", str(elsewhere), ".")
    assert (elsewhere / "CACHEDIR.TAG").is_file() and not (project / CACHE_DIR_NAME).exists()
    _check(run, "-j", "1", "--cache-dir", str(elsewhere), ".")
    assert Calls.count == 1


def test_unwritable_cache_dir_warns_once_and_still_checks(project, write, run):
    write("a.py", TF + "bad()\n")
    write("b.py", TF + "bad()\n")
    Path("blocker").write_text("a file where the cache folder would go\n")
    status, out, err = run("check", "-j", "1", "--cache-dir", "blocker/cache", ".")
    assert status == 1 and out.count("TFG971") == 2
    lines = err.splitlines()
    assert len(lines) == 2 and lines[1] == "Found 2 findings (2 errors) in 2 files."
    assert lines[0].startswith("tfguard: warning: cannot write the cache in ") and "continuing without it" in lines[0]


def test_internal_errors_are_not_cached(project, write, run):
    write("a.py", TF + "explode()\n")
    for _ in range(2):
        status, document, _ = _check(run, "-j", "1", ".")
        assert status == 2 and document["errors"][0]["path"] == "a.py"
    assert "a.py" not in _entries(project / CACHE_DIR_NAME)


def test_parallel_runs_fill_and_use_the_cache(project, write, run):
    for index in range(10):
        write(f"m{index}.py", TF + "bad()\n" * (index % 3))
    cold = _check(run, "-j", "2", ".")
    assert len(_entries(project / CACHE_DIR_NAME)) == 10
    Calls.count = 0
    assert _check(run, "-j", "2", ".") == cold and Calls.count == 0


def test_findings_round_trip_through_json():
    finding = Finding("a/b.py", 3, 5, 4, 9, "TFG101", "saver-in-session-loop", "error", "msg “ü”",
                      (ChainLink("a/b.py", 10, "helper"), ChainLink("a/c.py", 2, "inner")))
    assert finding_from_dict(json.loads(json.dumps(finding.to_dict()))) == finding


def test_store_and_lookup_by_content(tmp_path):
    cache = ResultCache(str(tmp_path / "c"), Settings(root=str(tmp_path)))
    finding = Finding("x.py", 1, 1, 1, 2, "TFG101", "n", "error", "m")
    cache.store("x.py", "h1", [finding], [])
    assert cache.lookup("x.py", "h1") == (finding,)
    assert cache.lookup("x.py", "h2") is None and cache.lookup("./x.py", "h1") is None
    other = ResultCache(str(tmp_path / "c"), Settings(root=str(tmp_path), ignore=("TFG1",)))
    assert other.lookup("x.py", "h1") is None
    assert not list((tmp_path / "c").glob("*/.tmp-*")), "no temporary file is left behind"


def test_project_root_and_default_location(tmp_path, monkeypatch):
    (tmp_path / "proj" / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "proj" / "setup.py").write_text("")
    (tmp_path / "bare").mkdir()
    monkeypatch.chdir(tmp_path / "bare")
    assert find_project_root(str(tmp_path / "proj" / "src" / "pkg")) == str(tmp_path / "proj")
    assert find_project_root(str(tmp_path / "proj" / "src" / "pkg" / "m.py")) == str(tmp_path / "proj")
    assert default_cache_dir(".") == str(tmp_path / "bare" / CACHE_DIR_NAME)
    (tmp_path / "proj" / "src" / ".git").mkdir()
    assert find_project_root(str(tmp_path / "proj" / "src" / "pkg")) == str(tmp_path / "proj" / "src")
