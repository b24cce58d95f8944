"""``tfguard rules``, ``tfguard rule CODE``, ``--version`` and the last-resort error handling."""

from __future__ import annotations

import json

import tfguard
from tfguard import catalog
from tfguard.cli import check as cli_check


def test_rules_table_lists_builtin_and_registered_rules(test_rules, run):
    status, out, err = run("rules")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].split() in (["code", "name", "default", "severity", "fix", "summary"],
                                ["code", "name", "default", "severity", "fix"])  # summaries under their rule
    rows = {line.split()[0]: line.split()[:4] for line in lines[2:] if line.startswith("TFG")}
    assert rows["TFG000"] == ["TFG000", "parse-error", "on", "error"]
    assert rows["TFG901"] == ["TFG901", "test-bad-call", "on", "error"]
    assert rows["TFG951"] == ["TFG951", "test-rare-call", "off", "info"]
    assert "Every call to rare() (test rule, off by default)." in out


def test_rules_json(test_rules, run):
    status, out, _ = run("rules", "--format", "json")
    assert status == 0
    rows = json.loads(out)
    assert [r["code"] for r in rows][:1] == ["TFG000"]
    assert {"code": "TFG951", "name": "test-rare-call", "default_enabled": False, "severity": "info",
            "summary": "Every call to rare() (test rule, off by default).", "kind": "static", "fix": "-",
            "group": "other"} in rows


def test_rule_prints_its_catalog_readme(test_rules, run, tmp_path, monkeypatch):
    (tmp_path / "TFG901-test-bad-call").mkdir()
    (tmp_path / "TFG901-test-bad-call" / "README.md").write_text("# TFG901 test-bad-call\n\nWhat it does.\n")
    monkeypatch.setattr(catalog, "catalog_dir", lambda: tmp_path)
    expected = (0, "# TFG901 test-bad-call\n\nWhat it does.\n\nFix: none\n", "")
    assert run("rule", "TFG901") == expected
    assert run("rule", "tfg901") == expected
    assert run("rule", "test-bad-call") == expected


def test_rule_errors(test_rules, run, tmp_path, monkeypatch):
    monkeypatch.setattr(catalog, "catalog_dir", lambda: tmp_path)
    assert run("rule", "TFG777") == (2, "", "tfguard: error: unknown rule: TFG777 (see 'tfguard rules')\n")
    assert run("rule", "TFG902") == (
        2, "", "tfguard: error: rule TFG902 has no catalog page (rules/TFG902-test-meh-call/README.md)\n"
    )


def test_rule_tfg000_is_explained_without_a_catalog_page(test_rules, run, tmp_path, monkeypatch):
    monkeypatch.setattr(catalog, "catalog_dir", lambda: tmp_path)
    status, out, _ = run("rule", "TFG000")
    assert status == 0 and out.startswith("# TFG000 parse-error\n")


def test_catalog_is_found_in_the_checkout():
    found = catalog.catalog_dir()
    assert found is not None and (found / "README.md").is_file()


def test_version(run):
    status, out, _ = run("--version")
    assert (status, out) == (0, f"tfguard {tfguard.__version__}\n")


def test_usage_errors_exit_two(run):
    assert run()[0] == 2
    assert run("check", "--format", "xml")[0] == 2
    assert run("lint")[0] == 2


def test_unexpected_exception_is_one_line(project, run, monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("something broke")

    monkeypatch.setattr(cli_check, "check_configured", broken)
    assert run("check") == (2, "", "tfguard: error: internal error: ValueError: something broke\n")


def test_keyboard_interrupt_exits_130(project, run, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_check, "check_configured", interrupted)
    assert run("check") == (130, "", "tfguard: interrupted\n")


def test_rules_are_grouped_tf1_graphs_then_tf2_then_runtime(run, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    out = run("rules")[1]
    headings = [line for line in out.splitlines() if line and not line.startswith(("TFG", " ", "code", "-"))]
    assert [h.split(":")[0] for h in headings] == ["The checker itself", "TF 1 graphs", "Training costs, TF 1 and TF 2",
                                                   "TF 1 devices", "TF 2 functions and costs", "Runtime diagnostics"]
    group_of, group = {}, None
    for line in out.splitlines():
        if line in headings:
            group = line
        elif line.startswith("TFG"):
            group_of[line.split()[0]] = group.split(":")[0]
    assert group_of["TFG102"] == "TF 1 graphs" and group_of["TFG401"] == "TF 2 functions and costs"
    assert group_of["TFG204"] == "Training costs, TF 1 and TF 2" and group_of["TFG908"] == "Runtime diagnostics"
    rows = json.loads(run("rules", "--format", "json")[1])
    assert {r["code"]: r["group"] for r in rows}["TFG901"] == "runtime"


def test_rules_fit_the_terminal_and_say_which_fix_each_has(run, monkeypatch):
    for columns in (80, 100, 160):
        monkeypatch.setenv("COLUMNS", str(columns))
        status, out, _ = run("rules")
        assert status == 0 and max(len(line) for line in out.splitlines()) <= columns, columns
        rows = {line.split()[0]: line.split()[:5] for line in out.splitlines()[2:] if line.startswith("TFG")}
        assert rows["TFG101"][4] == "safe" and rows["TFG107"][4] == "unsafe" and rows["TFG105"][4] == "-"
    monkeypatch.setenv("COLUMNS", "160")
    assert "graph op built inside a loop that runs the graph" in run("rules")[1]  # one line when it fits
