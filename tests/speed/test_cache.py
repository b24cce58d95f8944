"""The result cache: hits, every kind of invalidation, broken packs and entries, merging, and its location."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest
from speed_rules import TF, Calls

import tfguard
from tfguard.static.analysis.project import find_project_root
from tfguard.static.cache import (
    CACHE_DIR_NAME,
    PACK_FORMAT,
    ResultCache,
    content_hash,
    default_cache_dir,
    finding_from_dict,
    ruleset_fingerprint,
    source_stamps,
)
from tfguard.static.config import Settings
from tfguard.static.finding import ChainLink, Finding

REPO_ROOT = Path(__file__).resolve().parents[2]


def _packs(cache: Path) -> List[Path]:
    """Return the pack files in the cache folder."""
    return sorted(cache.glob("*.json"))


def _pack(cache: Path) -> Path:
    """Return the only pack file in the cache folder."""
    [pack] = _packs(cache)
    return pack


def _entries(cache: Path) -> Dict[str, Dict[str, Any]]:
    """Return the entries of every pack, keyed by the path of the file they hold."""
    found: Dict[str, Dict[str, Any]] = {}
    for pack in _packs(cache):
        data = json.loads(pack.read_text())
        assert data["format"] == PACK_FORMAT
        for key, entry in data["entries"].items():
            assert key == os.path.abspath(entry["path"])
            assert entry["path"] not in found, "one entry per file and settings"
            found[entry["path"]] = entry
    return found


def _set_entry(cache: Path, path: str, entry: Any) -> None:
    """Replace the entry of ``path`` in the only pack with ``entry`` (any JSON value)."""
    pack = _pack(cache)
    data = json.loads(pack.read_text())
    data["entries"][os.path.abspath(path)] = entry
    pack.write_text(json.dumps(data))


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
    assert sorted(p.name for p in (project / CACHE_DIR_NAME).iterdir() if p.suffix != ".json") == [
        ".gitignore", "CACHEDIR.TAG"], "one pack file, no folder per entry, no temporary file left"


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
    cache = project / CACHE_DIR_NAME
    data = _entries(cache)["a.py"]
    assert data["dependencies"] == []

    helper = str((project / "helpers.py").resolve())
    data["dependencies"] = [[helper, content_hash((project / "helpers.py").read_bytes())]]
    _set_entry(cache, "a.py", data)
    _check(run, "-j", "1", "a.py")
    assert Calls.count == 1, "an entry whose dependencies are unchanged is a hit"

    write("helpers.py", TF + "def helper():\n    return 1\n")
    status, document, _ = _check(run, "-j", "1", "a.py")
    assert Calls.count == 2 and document["findings"][0]["path"] == "a.py"
    assert _entries(cache)["a.py"]["dependencies"] == [], "the entry is rewritten from the new check"

    data["dependencies"] = [[str(project / "deleted.py"), "0" * 32]]
    _set_entry(cache, "a.py", data)
    _check(run, "-j", "1", "a.py")
    assert Calls.count == 3, "a dependency that is gone is a miss"

    data["dependencies"] = [[helper, ""]]
    _set_entry(cache, "a.py", data)
    _check(run, "-j", "1", "a.py")
    assert Calls.count == 4, "a dependency that could not be read when the entry was made is a miss"


@pytest.mark.parametrize("garbage", [b"", b"{not json", b"[]", b"null", b"\xff\xfe\x00", b'{"format": 2}',
                                     b'{"format": 1, "entries": {}}', b'{"format": 2, "entries": []}'])
def test_corrupt_pack_is_ignored_and_rewritten(project, write, run, garbage):
    write("a.py", TF + "bad()\n")
    write("b.py", TF + "bad()\n")
    expected = _check(run, "-j", "1", ".")
    pack = _pack(project / CACHE_DIR_NAME)
    pack.write_bytes(garbage)
    assert _check(run, "-j", "1", ".") == expected
    assert Calls.count == 4, "every file is checked again"
    assert sorted(_entries(project / CACHE_DIR_NAME)) == ["a.py", "b.py"], "the pack is rewritten"
    assert _check(run, "-j", "1", ".") == expected and Calls.count == 4


@pytest.mark.parametrize("garbage", [
    [], "x", None, {}, {"path": "a.py"},
    {"path": "a.py", "content": "CONTENT", "dependencies": [], "findings": [{}]},
    {"path": "a.py", "content": "CONTENT", "dependencies": [], "findings": "x"},
    {"path": "a.py", "content": "CONTENT", "dependencies": [["only-a-path"]], "findings": []},
    {"path": "a.py", "content": "CONTENT", "dependencies": 7, "findings": []},
    {"path": 3, "content": "CONTENT", "dependencies": [], "findings": []},
])
def test_corrupt_entry_is_a_miss_and_rewritten(project, write, run, garbage):
    write("a.py", TF + "bad()\n")
    write("b.py", TF + "bad()\n")
    expected = _check(run, "-j", "1", ".")
    cache = project / CACHE_DIR_NAME
    digest = _entries(cache)["a.py"]["content"]
    if isinstance(garbage, dict) and garbage.get("content") == "CONTENT":
        garbage["content"] = digest  # right content, so only the broken part makes it a miss
    _set_entry(cache, "a.py", garbage)
    assert _check(run, "-j", "1", ".") == expected
    assert Calls.count == 3, "only the file with the broken entry is checked again"
    assert _entries(cache)["a.py"]["content"] == digest
    assert _check(run, "-j", "1", ".") == expected and Calls.count == 3


def test_entry_claiming_another_content_is_a_miss(project, write, run):
    write("a.py", TF + "bad()\n")
    _check(run, "-j", "1", ".")
    cache = project / CACHE_DIR_NAME
    data = _entries(cache)["a.py"]
    data["content"] = "0" * 32
    data["findings"] = []
    _set_entry(cache, "a.py", data)
    assert len(_check(run, "-j", "1", ".")[1]["findings"]) == 1 and Calls.count == 2


def test_entry_of_another_spelling_is_a_miss(project, write, run):
    write("a.py", TF + "bad()\n")
    _check(run, "-j", "1", "a.py")
    status, document, _ = _check(run, "-j", "1", "./a.py")
    assert Calls.count == 2 and document["findings"][0]["path"] == "./a.py", "findings keep the path as spelled"
    assert list(_entries(project / CACHE_DIR_NAME)) == ["./a.py"]


def test_deleted_file_is_dropped_from_the_pack(project, write, run):
    write("a.py", TF + "bad()\n")
    write("b.py", TF + "bad()\n")
    _check(run, "-j", "1", ".")
    Path("b.py").unlink()
    _check(run, "-j", "1", ".")
    assert Calls.count == 2 and list(_entries(project / CACHE_DIR_NAME)) == ["a.py"]


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
    write("b.py", TF + "bad()\n")
    status, document, _ = _check(run, "-j", "1", ".")
    assert status == 2 and list(_entries(project / CACHE_DIR_NAME)) == ["b.py"]


def test_parallel_runs_fill_and_use_the_cache(project, write, run):
    for index in range(10):
        write(f"m{index}.py", TF + "bad()\n" * (index % 3))
    cold = _check(run, "-j", "2", ".")
    assert len(_entries(project / CACHE_DIR_NAME)) == 10
    Calls.count = 0
    assert _check(run, "-j", "2", ".") == cold and Calls.count == 0


def test_findings_round_trip_through_json():
    finding = Finding("a/b.py", 3, 5, 4, 9, "TFG101", "saver-in-session-loop", "error", "msg “ü”",
                      chain=(ChainLink("a/b.py", 10, "helper"), ChainLink("a/c.py", 2, "inner")))
    assert finding_from_dict(json.loads(json.dumps(finding.to_dict()))) == finding


def _finding(path: str, line: int = 1) -> Finding:
    return Finding(path, line, 1, line, 2, "TFG101", "n", "error", "m")


def test_store_and_lookup_by_content(tmp_path):
    (tmp_path / "x.py").write_text("")
    x = str(tmp_path / "x.py")
    cache = ResultCache(str(tmp_path / "c"), Settings(root=str(tmp_path)))
    cache.store(x, "h1", [_finding(x)], [])
    assert not (tmp_path / "c").exists(), "store() only records in memory"
    cache.flush()
    again = ResultCache(str(tmp_path / "c"), Settings(root=str(tmp_path)))
    assert again.lookup(x, "h1") == (_finding(x),)
    assert again.lookup(x, "h2") is None and again.lookup(x + "/../x.py", "h1") is None
    other = ResultCache(str(tmp_path / "c"), Settings(root=str(tmp_path), ignore=("TFG1",)))
    assert other.lookup(x, "h1") is None and other.pack_path != again.pack_path
    assert not list((tmp_path / "c").glob(".tmp-*")), "no temporary file is left behind"


def test_flushes_one_after_the_other_keep_both_runs_entries(tmp_path):
    settings = Settings(root=str(tmp_path))
    x, y = str(tmp_path / "x.py"), str(tmp_path / "y.py")
    for path in (x, y):
        Path(path).write_text("")
    first = ResultCache(str(tmp_path / "c"), settings)
    second = ResultCache(str(tmp_path / "c"), settings)
    assert first.lookup(x, "hx") is None and second.lookup(y, "hy") is None  # both packs loaded (empty)
    first.store(x, "hx", [_finding(x)], [])
    second.store(y, "hy", [_finding(y, 2)], [])
    first.flush()
    second.flush()
    reader = ResultCache(str(tmp_path / "c"), settings)
    assert reader.lookup(x, "hx") == (_finding(x),) and reader.lookup(y, "hy") == (_finding(y, 2),)
    second.store(y, "hy2", [], [])  # a newer entry for the same file replaces the one on disk
    second.flush()
    reader = ResultCache(str(tmp_path / "c"), settings)
    assert reader.lookup(y, "hy") is None and reader.lookup(y, "hy2") == () and reader.lookup(x, "hx") is not None


def test_flush_drops_entries_of_deleted_files(tmp_path):
    settings = Settings(root=str(tmp_path))
    x, y = str(tmp_path / "x.py"), str(tmp_path / "y.py")
    for path in (x, y):
        Path(path).write_text("")
    cache = ResultCache(str(tmp_path / "c"), settings)
    cache.store(x, "hx", [], [])
    cache.store(y, "hy", [], [])
    cache.flush()
    os.unlink(y)
    ResultCache(str(tmp_path / "c"), settings).flush()
    entries = json.loads(Path(cache.pack_path).read_text())["entries"]
    assert list(entries) == [x]


def test_flush_without_changes_writes_nothing(tmp_path):
    settings = Settings(root=str(tmp_path))
    (tmp_path / "x.py").write_text("")
    cache = ResultCache(str(tmp_path / "c"), settings)
    cache.flush()
    assert not (tmp_path / "c").exists()
    cache.store(str(tmp_path / "x.py"), "hx", [], [])
    cache.flush()
    before = os.stat(cache.pack_path).st_mtime_ns, os.stat(cache.pack_path).st_ino
    again = ResultCache(str(tmp_path / "c"), settings)
    assert again.lookup(str(tmp_path / "x.py"), "hx") == ()
    again.flush()
    assert (os.stat(cache.pack_path).st_mtime_ns, os.stat(cache.pack_path).st_ino) == before


def test_flush_removes_only_the_old_per_file_layout(tmp_path):
    settings = Settings(root=str(tmp_path))
    (tmp_path / "x.py").write_text("")
    old = tmp_path / "c" / "ab"
    old.mkdir(parents=True)
    (old / ("0" * 40 + ".json")).write_text("{}")
    kept = tmp_path / "c" / "cd"
    kept.mkdir()
    (kept / "notes.txt").write_text("not tfguard's\n")
    cache = ResultCache(str(tmp_path / "c"), settings)
    cache.store(str(tmp_path / "x.py"), "hx", [], [])
    cache.flush()
    assert not old.exists() and (kept / "notes.txt").is_file()


def test_fingerprint_follows_the_tfguard_sources(tmp_path):
    package = Path(tfguard.__file__).parent
    stamps = source_stamps(str(package))
    assert any(stamp.startswith(os.path.join("static", "checks", "")) for stamp in stamps), "the rules are covered"
    module = tmp_path / "rule.py"
    module.write_text("CODE = 1\n")
    os.utime(module, ns=(1_000_000_000, 1_000_000_000))
    before = source_stamps(str(tmp_path))
    module.write_text("CODE = 2\n")
    os.utime(module, ns=(1_000_000_000, 1_000_000_000))
    assert source_stamps(str(tmp_path)) == before, "same name, size and time"
    os.utime(module, ns=(2_000_000_000, 2_000_000_000))
    assert source_stamps(str(tmp_path)) != before, "an edited module gets a new mtime"
    (tmp_path / "new_rule.py").write_text("")
    assert len(source_stamps(str(tmp_path))) == 2
    assert ruleset_fingerprint() == ruleset_fingerprint()


def test_a_fully_cached_run_never_imports_astroid(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.tfguard]\n")
    loop = "    for _ in range(30):\n        saver = tf.train.Saver()\n        sess.run(x)\n"
    (tmp_path / "train.py").write_text(TF + "x = tf.constant(1)\nwith tf.Session() as sess:\n" + loop)
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    code = ("import sys\nfrom tfguard.cli.main import main\nstatus = main(['check', '-j', '1', '.'])\n"
            "print(status, sorted({m.split('.')[0] for m in sys.modules} & {'astroid', 'tabulate'}))\n")
    outputs = [subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=120).stdout.splitlines()[-1] for _ in range(2)]
    assert outputs == ["1 ['astroid']", "1 []"]


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


def _age(path: Path, seconds: float = 60.0) -> None:
    """Give ``path`` a modification time old enough to be trusted by the cache."""
    old = time.time() - seconds
    os.utime(path, (old, old))


def _count_reads(monkeypatch):
    import tfguard.static.engine as engine

    reads = []
    original = engine.read_file

    def counting(path):
        reads.append(path)
        return original(path)

    monkeypatch.setattr(engine, "read_file", counting)
    return reads


def test_unchanged_files_are_not_even_read_on_a_warm_run(tmp_path, monkeypatch):
    from tfguard.static import cache as cache_module
    from tfguard.static.engine import check_paths

    monkeypatch.setattr(cache_module, "_RACY_SECONDS", 0.0)  # _age() cannot age the status-change time

    (tmp_path / "train.py").write_text(TF + "x = tf.constant(1)\nwith tf.Session() as s:\n    for i in range(3):\n"
                                      "        s.run(tf.train.Saver())\n")
    (tmp_path / "plain.py").write_text("print('no graph here')\n")
    for name in ("train.py", "plain.py"):
        _age(tmp_path / name)
    settings = Settings(root=str(tmp_path))

    def run():
        cache = ResultCache(str(tmp_path / "cache"), settings)
        return [(f.line, f.code) for f in check_paths([str(tmp_path)], settings, cache=cache).findings]

    first = run()
    reads = _count_reads(monkeypatch)
    assert run() == first and reads == []
    (tmp_path / "train.py").touch()  # same content, new time stamp: read and hashed, not re-checked
    assert run() == first and [os.path.basename(p) for p in reads] == ["train.py"]


def test_a_file_written_just_now_gets_no_time_stamp_entry(tmp_path, monkeypatch):
    from tfguard.static.engine import check_paths

    (tmp_path / "plain.py").write_text("print('no graph here')\n")
    settings = Settings(root=str(tmp_path))
    check_paths([str(tmp_path)], settings, cache=ResultCache(str(tmp_path / "cache"), settings))
    reads = _count_reads(monkeypatch)
    check_paths([str(tmp_path)], settings, cache=ResultCache(str(tmp_path / "cache"), settings))
    assert [os.path.basename(p) for p in reads] == ["plain.py"], "a fresh time stamp is not trusted"


def test_an_edit_that_keeps_size_and_modification_time_is_seen(project, write, run, monkeypatch):
    """``cp -p``, ``rsync -t`` and ``touch -r`` give new content of the same size the old modification time."""
    from tfguard.static import cache as cache_module

    monkeypatch.setattr(cache_module, "_RACY_SECONDS", 0.0)  # trust every time stamp: the fast path is taken
    one, two = TF + "bad()\n#####\n", TF + "bad()\nbad()\n"
    assert len(one) == len(two)
    write("train.py", one)
    _age(Path("train.py"))
    aged = os.stat("train.py")
    for source, lines in ((one, [2]), (one, [2]), (two, [2, 3]), (two, [2, 3]), (one, [2])):
        if Path("train.py").read_text() != source:
            Path("train.py").write_text(source)
            os.utime("train.py", ns=(aged.st_atime_ns, aged.st_mtime_ns))  # as touch -r does
        status, document, _ = _check(run, "-j", "1", ".")
        assert [f["line"] for f in document["findings"]] == lines
