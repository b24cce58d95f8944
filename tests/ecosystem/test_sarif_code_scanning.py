"""Issue 23: SARIF that code scanning can follow: helpUri, partialFingerprints, paths relative to the repository."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

from tests.console import tfguard_script
from tfguard.static.reporters.sarif import FINGERPRINT_KEY, rule_page_uri

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "data" / "sarif-schema-2.1.0.json").read_text("utf-8"))
LOOP = ("import tensorflow as tf\n"
        "with tf.Session() as sess:\n"
        "    for step in range(100):\n"
        "        sess.run(tf.add(1, 2))\n"
        "        sess.run(tf.add(1, 2))\n")


def sarif(cwd: Path, *paths: str) -> dict:
    done = tfguard_script("check", "--no-cache", "--output-format", "sarif", *paths, cwd=cwd)
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    jsonschema.Draft4Validator(SCHEMA).validate(document)
    return document


def prints(document: dict) -> list:
    return [r["partialFingerprints"][FINGERPRINT_KEY] for r in document["runs"][0]["results"]]


def test_every_rule_with_a_page_has_a_help_uri(tmp_path):
    (tmp_path / "train.py").write_text(LOOP)
    rules = sarif(tmp_path, "train.py")["runs"][0]["tool"]["driver"]["rules"]
    with_uri = {rule["id"]: rule["helpUri"] for rule in rules if "helpUri" in rule}
    # The console script may be a non-editable install whose pages lie in its own catalog, not this checkout's.
    assert "TFG102" in with_uri and with_uri["TFG102"].startswith(("https://", "file://"))
    assert rule_page_uri("TFG102").endswith("/TFG102-op-in-session-loop/README.md")
    assert with_uri["TFG102"].endswith("/TFG102-op-in-session-loop/README.md")
    assert all(rule["id"] in with_uri for rule in rules if rule["id"] != "TFG000")


def test_fingerprints_follow_moved_lines_and_tell_identical_lines_apart(tmp_path):
    (tmp_path / "train.py").write_text(LOOP)
    before = prints(sarif(tmp_path, "train.py"))
    assert len(set(before)) == len(before) >= 2  # the same line text twice: told apart
    (tmp_path / "train.py").write_text("# a new first line\n\n" + LOOP)
    assert prints(sarif(tmp_path, "train.py")) == before  # moved down two lines: the same findings


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_paths_outside_the_working_folder_stay_relative_inside_the_repository(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "src").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "src" / "train.py").write_text(LOOP)
    run = sarif(tmp_path / "tools", "../src/train.py")["runs"][0]
    location = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "src/train.py", "uriBaseId": "%SRCROOT%"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"
