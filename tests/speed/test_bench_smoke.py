"""The speed benchmark runs end to end on a tiny corpus (no timing is asserted: bench/ prints the ratios)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "bench"))

from tf1_corpus import IMPORT_STYLES, generate_corpus  # noqa: E402


@pytest.mark.slow
def test_benchmark_prints_the_table_and_the_targets(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "bench" / "lint_speed.py"), "--quick", "--files", "40", "--no-pylint",
         "--jobs", "2", "--corpus", str(tmp_path / "corpus"), "--layout-files", "60", "--repeat", "1"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"corpus: {tmp_path / 'corpus'}: 4") and " files (" in lines[0]
    assert lines[1].split() == ["step", "files", "parsed", "seconds", "lines/s", "peak", "RSS", "MiB"]
    steps = [line.split("  ")[0] for line in lines[3:9]]
    assert steps == ["ast.parse, every file", "astroid parse alone, TF files", "tfguard check, cold, -j 1",
                     "tfguard check, -j 1, --no-cache", "tfguard check, cold, -j 2", "tfguard check, warm, -j 2"]
    verdicts = [line.split()[0] for line in lines[10:14]]
    assert len(verdicts) == 4 and verdicts[2] == "skipped"
    assert all(v in ("PASS", "FAIL") for i, v in enumerate(verdicts) if i != 2)
    assert lines[13].startswith("PASS    cold -j 1, --no-cache, cold -j 2 and warm reports identical")
    parallel = lines[15:]
    assert parallel[0].split()[:3] == ["tree", "run", "wall"]
    runs = [line.split(")")[1].split()[:2] for line in parallel[2:11]]
    assert runs == [["-j", "1"], ["-j", "2"], ["default", "-j"]] * 3
    assert parallel[12].startswith("PASS    reports identical across -j 1, -j 2 and the default")
    assert parallel[13].startswith("PASS    default -j on the tiny project: in-process like -j 1")
    assert not (tmp_path / ".tfguard_cache").exists(), "the benchmark keeps its cache in its own temporary folder"


def test_corpus_is_deterministic_and_mixed(tmp_path):
    first = generate_corpus(str(tmp_path / "a"), 60, seed=7)
    second = generate_corpus(str(tmp_path / "b"), 60, seed=7)
    assert len(first) == 60
    texts = [Path(p).read_text() for p in first]
    assert texts == [Path(p).read_text() for p in second]
    assert any("tensorflow" not in t for t in texts) and any("sess.run" in t for t in texts)
    assert len({style for style in IMPORT_STYLES for text in texts if style in text}) >= 3
    for text in texts:
        compile(text, "corpus", "exec")


def test_real_layout_is_deterministic_and_imports_across_packages(tmp_path):
    from tf1_corpus import generate_real_layout

    first = generate_real_layout(str(tmp_path / "a"), 80, seed=7)
    second = generate_real_layout(str(tmp_path / "b"), 80, seed=7)
    assert len(first) == 80
    assert [Path(p).read_bytes() for p in first] == [Path(p).read_bytes() for p in second]
    sizes = sorted(Path(p).stat().st_size for p in first)
    assert sizes[-3] > 20 * sizes[len(sizes) // 2], "a few very large files"
    texts = [Path(p).read_text() for p in first]
    assert any("from common.zoo_" in text and "probe = " in text for text in texts), "loops call into common"
