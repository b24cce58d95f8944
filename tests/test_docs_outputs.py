"""Every output block of the docs is real output of the current code (issue 31).

A fenced ``console``/``text``/plain block in README.md, CONTRIBUTING.md or docs/ carries a marker comment on the
line before it (MkDocs does not render it):

- ``<!-- output: checked -->``: each ``$ command`` line is run from the repository root and what it prints (stdout
  and stderr, as a terminal shows them) must equal the lines that follow it;
- ``<!-- output: checked in a copy of examples/ -->``: the same, run in a scratch folder holding a copy of that
  folder of the repository (for commands that write files);
- ``<!-- output: checked, masked -->``: the same for runtime output, with every number read as ``N``, runs of
  spaces as one, and a ``...`` line standing for any lines (timings and table widths change from run to run);
- ``<!-- output: measured by CMD -->``: output too slow to rerun in the tests (a benchmark, a long run), made by
  CMD, whose script must exist;
- ``<!-- commands -->`` (lines to type, no output) or ``<!-- diagram -->`` (not output at all;
  ``<!-- diagram: NAME -->`` names one that a test reads).

When a change alters what a checked command prints, rerun it and paste its output into the block.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.console import console_script
from tests.once import once

REPO_ROOT = Path(__file__).resolve().parent.parent
PAGES = [REPO_ROOT / "README.md", REPO_ROOT / "CONTRIBUTING.md", *sorted((REPO_ROOT / "docs").rglob("*.md"))]
BLOCK = re.compile(r"^```(?P<lang>[\w-]*)\n(?P<body>.*?)^```", re.S | re.M)
MARKER = re.compile(r"<!-- (output: checked(?:, masked)?(?: in a copy of [\w/.-]+/)?|output: measured by .+?|commands"
                    r"|diagram(?:: [\w-]+)?) -->")
#: Lines TensorFlow's C++ libraries print on import, whatever the program does.
TF_NOISE = re.compile(r"^(WARNING: All log messages before absl|I0000 |E0000 |W0000 |.*port\.cc:|.*cpu_feature_guard"
                      r"|To enable the following instructions|.*oneDNN custom operations)")


def blocks():
    """Yield (page, line, marker or None, language, body) for every console/text/plain block."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            if match.group("lang") not in ("console", "text", ""):
                continue
            before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            marker = MARKER.fullmatch(before.strip())
            line = text.count("\n", 0, match.start()) + 1
            yield page, line, marker.group(1) if marker else None, match.group("body")


def block_id(case) -> str:
    page, line = case[0], case[1]
    return f"{page.relative_to(REPO_ROOT).as_posix()}:{line}"


ALL = list(blocks())
CHECKED = [case for case in ALL if case[2] and case[2].startswith("output: checked")]


def test_every_output_block_says_where_it_comes_from():
    unmarked = [block_id(case) for case in ALL if case[2] is None]
    assert unmarked == [], f"blocks without an <!-- output: ... --> / <!-- commands --> marker: {unmarked}"


def test_measured_blocks_name_an_existing_script():
    """A measured block names the command that made it; the repository's scripts it names exist."""
    for page, line, marker, _ in ALL:
        if marker and marker.startswith("output: measured by "):
            words = shlex.split(marker[len("output: measured by "):])
            assert words[0] in ("python", "tfguard", "pytest"), f"{page.name}:{line}"
            for word in words:
                if word.startswith(("bench/", "examples/", "tfguard/", "tools/")):
                    assert (REPO_ROOT / word).exists(), f"{page.name}:{line}: {word} does not exist"


def sessions(body: str):
    """Split a checked block into (command, expected output lines)."""
    result = []
    for line in body.splitlines():
        if line.startswith("$ "):
            result.append((line[2:], []))
        else:
            assert result, "a checked block starts with a $ command line"
            result[-1][1].append(line)
    return result


def run(command: str, scratch: Path, cwd: Path = REPO_ROOT) -> list:
    """Run one documented command in ``cwd`` (the repository root); return its output lines (stdout and stderr
    merged)."""
    words = shlex.split(command, comments=True)
    env = dict(os.environ, COLUMNS="120", NO_COLOR="1", PYTHONPATH=str(REPO_ROOT))
    if words[0] == "tfguard":
        words = [sys.executable, str(console_script(scratch))] + words[1:]
    elif words[0] in ("pytest", "python"):
        # a reader's pytest runs without this repository's addopts (its test suite's -n auto)
        words = [sys.executable] + (["-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts="]
                                    if words[0] == "pytest" else []) + words[1:]
    done = subprocess.run(words, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=600)
    return done.stdout.splitlines()


def masked(line: str) -> str:
    return re.sub(r" +", " ", re.sub(r"\d+(\.\d+)?", "N", line)).strip()


def matches(expected: list, actual: list) -> bool:
    """Whether ``actual`` is ``expected`` line for line, a ``...`` line in ``expected`` standing for any lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[index:]) for index in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


@pytest.mark.parametrize("case", CHECKED, ids=block_id)
def test_checked_block_is_the_commands_output(case, tmp_path, tmp_path_factory):
    page, line, marker, body = case
    cwd = REPO_ROOT
    if " in a copy of " in marker:
        folder = marker.split(" in a copy of ", 1)[1].rstrip("/")
        cwd = tmp_path / "work"
        shutil.copytree(REPO_ROOT / folder, cwd / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for command, expected in sessions(body):
        if cwd == REPO_ROOT:  # writes nothing (else its block says "in a copy"): two pages showing it share one run
            _, actual = once(tmp_path_factory, "docs command in the repository root: " + command,
                             lambda _folder, command=command: run(command, tmp_path, cwd))
        else:
            actual = run(command, tmp_path, cwd)
        if ", masked" in marker:
            actual = [masked(text) for text in actual if not TF_NOISE.match(text)]
            wanted = [text if text == "..." else masked(text) for text in expected]
            assert matches(wanted, actual), "\n".join([f"{page.name}:{line}: `{command}` printed:"] + actual)
        else:
            assert actual == expected, "\n".join([f"{page.name}:{line}: `{command}` printed:"] + actual)
