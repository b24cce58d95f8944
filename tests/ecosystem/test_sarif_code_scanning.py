"""Issues 23 and 31: SARIF that code scanning can follow: helpUri on the docs site, partialFingerprints, paths
relative to the repository."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlparse

import jsonschema
import pytest

from tests.console import tfguard_script
from tfguard.catalog import PUBLISHED_DOCS_URL, rule_folder
from tfguard.static.formats.sarif import FINGERPRINT_KEY, rule_page_uri

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


def _is_page(uri: str, code: str) -> bool:
    """Whether ``uri`` is where a rule's page is by default: on the published site, else the README.md of its
    catalog folder that ships with the tfguard that ran (the checkout's rules/, or an installed copy's _catalog/)."""
    if PUBLISHED_DOCS_URL:
        return uri == f"{PUBLISHED_DOCS_URL}rules/{code}/"
    parsed = urlparse(uri)
    page = Path(unquote(parsed.path))
    return parsed.scheme == "file" and page.is_file() and page.parent.name == rule_folder(code).name \
        and page.name == "README.md"


def test_every_rule_links_to_its_page(tmp_path):
    (tmp_path / "train.py").write_text(LOOP)
    rules = sarif(tmp_path, "train.py")["runs"][0]["tool"]["driver"]["rules"]
    uris = {rule["id"]: rule.get("helpUri") for rule in rules}
    assert _is_page(uris["TFG000"], "TFG000")  # the parse error has a page too
    assert all(_is_page(uri, code) for code, uri in uris.items())
    assert _is_page(rule_page_uri("TFG102"), "TFG102")


def test_the_docs_site_address_comes_from_the_flag_over_the_configuration(tmp_path):
    (tmp_path / "train.py").write_text(LOOP)
    (tmp_path / "pyproject.toml").write_text('[tool.tfguard]\ndocs-url = "https://docs.example.com/tfguard"\n')
    rules = sarif(tmp_path, "train.py")["runs"][0]["tool"]["driver"]["rules"]
    assert {rule["helpUri"] for rule in rules if rule["id"] == "TFG102"} == {
        "https://docs.example.com/tfguard/rules/TFG102/"}
    rules = sarif(tmp_path, "--docs-url", "https://intra.example/lint/", "train.py")["runs"][0]["tool"]["driver"]
    assert rules["rules"][0]["helpUri"] == "https://intra.example/lint/rules/TFG000/"
    done = tfguard_script("check", "--docs-url", "file:///opt/site/", "train.py", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("tfguard: error: --docs-url must be the http(s):// address") and \
        done.stderr.count("\n") == 1


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
