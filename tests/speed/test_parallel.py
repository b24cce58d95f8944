"""-j/--jobs: worker processes give the same report as one process, and a crashing file stays one file's error."""

from __future__ import annotations

import json
import os

from speed_rules import TF

from tfguard.static import workers
from tfguard.static.engine import check_paths
from tfguard.static.workers import automatic_jobs, chunked_in_order, default_jobs, worth_a_pool


def _tree(write, files: int = 12) -> None:
    for index in range(files):
        calls = "\n".join("bad()" for _ in range(index % 3))
        write(f"pkg/sub{index % 3}/mod{index}.py", TF + calls + "\n")
    write("pkg/plain.py", "bad()\n")  # never mentions TF: not analysed
    write("pkg/broken.py", TF + "print 'python 2' +\n")
    write("pkg/explodes.py", TF + "explode()\nbad()\n")
    write("pkg/sub1/undecodable.py", "")
    with open("pkg/sub1/undecodable.py", "wb") as handle:
        handle.write(b"import tensorflow\n\xff\xfe bad()\n")


def test_jobs_give_the_same_report_as_one_process(project, write, run):
    _tree(write)
    reports = {}
    for jobs in ("1", "2", "3"):
        for output in ("json", "text"):
            status, out, err = run("check", "--no-cache", "-j", jobs, "--format", output, "pkg")
            reports[jobs, output] = (status, out, err)
    assert reports["1", "json"] == reports["2", "json"] == reports["3", "json"]
    assert reports["1", "text"] == reports["2", "text"] == reports["3", "text"]
    status, out, err = reports["1", "json"]
    document = json.loads(out)
    assert status == 2
    assert [e["path"] for e in document["errors"]] == ["pkg/explodes.py"]
    assert document["errors"][0]["message"] == "internal error: RuntimeError: test rule exploded"
    codes = sorted({(f["path"], f["code"]) for f in document["findings"]})
    assert ("pkg/broken.py", "TFG000") in codes and ("pkg/sub1/undecodable.py", "TFG000") in codes
    assert sum(f["code"] == "TFG971" for f in document["findings"]) == sum(i % 3 for i in range(12))
    assert err.strip().endswith("1 file could not be checked.")


def test_files_are_really_checked_in_worker_processes(project, write, run):
    for index in range(8):
        write(f"m{index}.py", TF + "whoami()\n")
    status, out, _ = run("check", "--no-cache", "-j", "2", "--select", "TFG972", "--format", "json", ".")
    pids = {f["message"] for f in json.loads(out)["findings"]}
    assert status == 1 and f"pid {os.getpid()}" not in pids and len(pids) >= 1

    status, out, _ = run("check", "--no-cache", "-j", "1", "--select", "TFG972", "--format", "json", ".")
    assert {f["message"] for f in json.loads(out)["findings"]} == {f"pid {os.getpid()}"}


def test_small_runs_stay_in_process(project, write, run):
    write("one.py", TF + "whoami()\n")
    write("two.py", TF + "whoami()\n")
    status, out, _ = run("check", "--no-cache", "-j", "4", "--select", "TFG972", "--format", "json", ".")
    assert {f["message"] for f in json.loads(out)["findings"]} == {f"pid {os.getpid()}"}
    assert not worth_a_pool(1, 8) and not worth_a_pool(7, 4) and worth_a_pool(8, 4) and not worth_a_pool(100, 1)


def test_library_check_paths_with_jobs_matches(project, write):
    _tree(write, files=9)
    one, many = check_paths(["pkg"], jobs=1), check_paths(["pkg"], jobs=2)
    assert (one.findings, one.errors, one.files_checked) == (many.findings, many.errors, many.files_checked)
    assert one.files_checked == 13 and len(one.errors) == 1


def test_chunks_are_runs_of_neighbours_heaviest_first():
    for count in (1, 2, 7, 8, 33, 200):
        for jobs in (2, 3, 8):
            items = list(range(count))
            weights = [1 + (item * 7919) % 13 for item in items]
            chunks = chunked_in_order(items, weights, jobs)
            assert sorted(item for chunk in chunks for item in chunk) == items
            assert all(chunk == list(range(chunk[0], chunk[-1] + 1)) for chunk in chunks), "runs of neighbours"
            totals = [sum(weights[item] for item in chunk) for chunk in chunks]
            assert totals == sorted(totals, reverse=True)
            assert len(chunks) <= jobs * 4 + 1


def test_automatic_jobs_give_each_process_enough_code():
    kib = 1024
    assert automatic_jobs(20 * kib, cpus=8) == 1
    assert automatic_jobs(70 * kib, cpus=8) == 2
    assert automatic_jobs(100 * 1024 * kib, cpus=8) == 8
    assert automatic_jobs(100 * 1024 * kib, cpus=1) == 1


def test_by_default_a_small_project_is_checked_in_this_process(project, write, run, monkeypatch):
    for index in range(8):
        write(f"m{index}.py", TF + "whoami()\n")
    status, out, _ = run("check", "--no-cache", "--select", "TFG972", "--format", "json", ".")
    assert {f["message"] for f in json.loads(out)["findings"]} == {f"pid {os.getpid()}"}

    if default_jobs() > 1:  # with little code asked of each worker, the default starts them
        monkeypatch.setattr(workers, "MIN_BYTES_PER_WORKER", 16)
        status, out, _ = run("check", "--no-cache", "--select", "TFG972", "--format", "json", ".")
        assert f"pid {os.getpid()}" not in {f["message"] for f in json.loads(out)["findings"]}


def test_bad_jobs_value_is_a_usage_error(project, run):
    for value in ("0", "-2", "many"):
        status, out, err = run("check", "-j", value)
        assert (status, out) == (2, "")
        assert "argument -j/--jobs" in err and "Traceback" not in err


def test_a_worker_process_that_dies_costs_its_files_not_the_run(project, write, run):
    for index in range(10):
        write(f"m{index}.py", TF + "bad()\n")
    write("killer.py", TF + "die()\n")
    status, out, err = run("check", "--no-cache", "-j", "2", "--format", "json", ".")
    document = json.loads(out)
    assert status == 2 and "Traceback" not in err
    lost = {e["path"] for e in document["errors"]}
    assert "killer.py" in lost
    assert all(e["message"].startswith("internal error: the worker process stopped") for e in document["errors"])
    reported = {f["path"] for f in document["findings"]}
    assert reported | lost == {f"m{index}.py" for index in range(10)} | {"killer.py"}
