"""``tfguard rules`` and ``tfguard rule CODE``: the rule list and one rule's catalog page."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import textwrap
from typing import Any, List, Sequence

from tfguard.catalog import group_title, rule_folder, rule_group, rule_readme
from tfguard.cli.errors import EXIT_CLEAN, UsageError
from tfguard.static.fixes.availability import fix_line
from tfguard.static.registry import PARSE_ERROR_CODE, PARSE_ERROR_NAME, PARSE_ERROR_SUMMARY, all_rules


def add_parsers(commands: Any) -> None:
    """Register ``tfguard rules`` and ``tfguard rule`` on the CLI's subcommand parsers."""
    rules = commands.add_parser("rules", help="list every rule and runtime diagnostic code")
    rules.add_argument("--output-format", "--format", dest="format", type=str.lower,
                       choices=("text", "json", "markdown"), default="text",
                       help="list format (default: text; markdown is the README's rule table)")

    rule = commands.add_parser("rule", help="explain one rule (prints its catalog page)")
    rule.add_argument("code", metavar="CODE", help="rule code such as TFG101, or its name")


def rule_rows() -> List[dict]:
    """Return one row per code, for ``tfguard rules``: the built-in TFG000, the static rules, then the runtime
    diagnostics of ``tfguard run`` (``kind``: ``static`` or ``runtime``; a runtime code is always on; ``group``: its
    group of :data:`tfguard.catalog.RULE_GROUPS`, TF 1 graphs, TF 2 functions and costs, runtime...)."""
    rows = [dict(code=PARSE_ERROR_CODE, name=PARSE_ERROR_NAME, default_enabled=True, severity="error",
                 summary=PARSE_ERROR_SUMMARY, kind="static", fix="-")]
    from tfguard.runtime.judge import all_diagnostics

    static = all_rules()
    for code, rule in static.items():
        rows.append(dict(code=code, name=rule.name, default_enabled=bool(rule.default_enabled),
                         severity=rule.severity, summary=rule.summary, kind="static", fix=_fix(code)))
    for code, runtime in all_diagnostics().items():
        if code not in static:
            rows.append(dict(code=code, name=runtime.name, default_enabled=True, severity=runtime.severity,
                             summary=runtime.summary, kind="runtime", fix="-"))
    for row in rows:
        row["group"] = rule_group(row["code"], row["kind"])
    return rows


def _default(row: dict) -> str:
    if row["kind"] == "runtime":
        return "runtime"
    return "on" if row["default_enabled"] else "off"


def _fix(code: str) -> str:
    """What ``--fix`` does for ``code``: ``safe``, ``unsafe`` (with ``--unsafe-fixes``) or ``-`` (no fix)."""
    rule = all_rules().get(code)
    return rule.fix.applicability if rule is not None and rule.fix is not None else "-"


def run_rules(args: argparse.Namespace) -> int:
    """Run ``tfguard rules``: a table that fits the terminal (``COLUMNS``; 80 when not a terminal), or JSON with
    ``--format json``."""
    rows = rule_rows()
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return EXIT_CLEAN
    if args.format == "markdown":
        print(rules_markdown(rows))
        return EXIT_CLEAN
    print(rules_text(rows, shutil.get_terminal_size((80, 24)).columns))
    return EXIT_CLEAN


def rules_text(rows: Sequence[dict], width: int) -> str:
    """Return the rule table at most ``width`` columns wide: one line per rule with its summary wrapped in the last
    column when that leaves the summary 40 columns or more, else each summary on its own lines under its rule."""
    headers = ["code", "name", "default", "severity", "fix"]
    table = [[r["code"], r["name"], _default(r), r["severity"], _fix(r["code"])] for r in rows]
    widths = [max(len(str(line[i])) for line in [headers] + table) for i in range(len(headers))]
    fixed = sum(widths) + 2 * len(widths)
    beside = width - fixed >= 40

    def line(cells: Sequence[str]) -> str:
        return "  ".join(str(cell).ljust(w) for cell, w in zip(cells, widths))

    if beside:
        out = [line(headers) + "  summary", "  ".join("-" * w for w in widths) + "  " + "-" * 7]
        for cells, row, group in zip(table, rows, _group_starts(rows)):
            out += group
            wrapped = textwrap.wrap(row["summary"], width - fixed) or [""]
            out.append(line(cells) + "  " + wrapped[0])
            out += [" " * fixed + more for more in wrapped[1:]]
        return "\n".join(out)
    out = [line(headers).rstrip(), "  ".join("-" * w for w in widths)]
    indent = " " * (widths[0] + 2)
    for cells, row, group in zip(table, rows, _group_starts(rows)):
        out += group
        out.append(line(cells).rstrip())
        out += textwrap.wrap(row["summary"], max(20, width), initial_indent=indent, subsequent_indent=indent)
    return "\n".join(out)


def _group_starts(rows: Sequence[dict]) -> List[List[str]]:
    """For each row, the heading lines to print above it: the group's title where a new group starts."""
    starts, last = [], None
    for row in rows:
        group = row.get("group", rule_group(row["code"], row.get("kind", "static")))
        starts.append([] if group == last else ([""] if last is not None else []) + [group_title(group) + ":"])
        last = group
    return starts


def rules_markdown(rows: Sequence[dict]) -> str:
    """Return the rule tables of README.md, one per group (TF 1 graphs, training costs, TF 2 functions and costs,
    runtime...) under its bold title, each code linked to its catalog page."""
    from tfguard.runtime.judge import all_diagnostics

    runtime = all_diagnostics()
    lines: List[str] = []
    for row, group in zip(rows, _group_starts(rows)):
        if group:
            lines += ([""] if lines else []) + ["**%s**" % group[-1].rstrip(":"), "",
                                                "| code | name | default | severity | fix | what it flags |",
                                                "|---|---|---|---|---|---|"]
        code = row["code"]
        rule = all_rules().get(code)
        slug = rule.catalog_slug() if rule is not None else runtime[code].slug if code in runtime else None
        if code == PARSE_ERROR_CODE and rule_folder(code) is not None:
            slug = rule_folder(code).name
        link = f"[{code}](rules/{slug}/README.md)" if slug is not None else code
        default = _default(row)
        summary_text = row["summary"].replace("|", "\\|")
        fix = row.get("fix", "-")
        lines.append(f"| {link} | {row['name']} | {default} | {row['severity']} | {fix} | {summary_text} |")
    return "\n".join(lines)


def run_rule(args: argparse.Namespace) -> int:
    """Run ``tfguard rule CODE``: print the rule's catalog README, then whether ``--fix`` can fix it."""
    wanted = args.code.strip()
    by_name = {rule.name: code for code, rule in all_rules().items()}
    code = by_name.get(wanted, wanted.upper())
    if code == PARSE_ERROR_CODE or wanted == PARSE_ERROR_NAME:
        text = rule_readme(PARSE_ERROR_CODE)
        print(text if text is not None else f"# {PARSE_ERROR_CODE} {PARSE_ERROR_NAME}\n\n{PARSE_ERROR_SUMMARY}")
        return EXIT_CLEAN
    from tfguard.runtime.judge import all_diagnostics

    runtime_codes = all_diagnostics()
    runtime_by_name = {runtime.name: runtime_code for runtime_code, runtime in runtime_codes.items()}
    code = runtime_by_name.get(wanted, code)
    if code in runtime_codes and code not in all_rules():
        text = rule_readme(code)
        if text is None:
            raise UsageError(f"{code} has no catalog page ({runtime_codes[code].page})")
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        fail_on = runtime_codes[code].fail_on
        print("\nReported by `tfguard run` (and tfguard.watch/frozen/GuardHook); "
              + (f"`tfguard run --fail-on {fail_on}` fails on it." if fail_on else "it never fails a run."))
        return EXIT_CLEAN
    if code not in all_rules():
        raise UsageError(f"unknown rule: {args.code} (see 'tfguard rules')")
    text = rule_readme(code)
    if text is None:
        raise UsageError(f"rule {code} has no catalog page (rules/{all_rules()[code].catalog_slug()}/README.md)")
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    print(f"\n{fix_line(code)}")
    return EXIT_CLEAN
