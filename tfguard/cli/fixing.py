"""The ``tfguard check`` options that fix code: ``--fix``, ``--unsafe-fixes``, ``--diff``, ``--fix-only``.

Kept apart from :mod:`tfguard.cli.check` like :mod:`tfguard.cli.adoption`: the command adds these options
with :func:`add_options` and calls :func:`run_fixes` when one is given.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Dict, List, Tuple

from tfguard.cli.errors import PROG
from tfguard.printable import printable_line
from tfguard.static.config import Settings
from tfguard.static.finding import SAFE, CheckResult, Finding

if TYPE_CHECKING:  # pragma: no cover
    from tfguard.static.fixes.fix_files import FileFix


def add_options(check: argparse.ArgumentParser) -> None:
    """Add the fix options to the ``check`` subcommand."""
    group = check.add_argument_group("fixes")
    group.add_argument("--fix", action="store_true",
                       help="apply the safe fixes in place, then report what is left")
    group.add_argument("--unsafe-fixes", action="store_true",
                       help="with --fix or --diff, also apply fixes that may change what the program does")
    group.add_argument("--diff", action="store_true",
                       help="print a unified diff of what --fix would change and write nothing (exit 1 if any)")
    group.add_argument("--fix-only", action="store_true",
                       help="apply the fixes (like --fix) and report nothing else")
    group.add_argument("--show-fixes", action="store_true",
                       help="in the text output, give under each finding its fix (safe or unsafe) or why it has none")


def wanted(args: argparse.Namespace) -> bool:
    """Return whether the command line asks for fixes."""
    return bool(args.fix or args.fix_only or args.diff)


#: The settings of a file (each file has those of its closest configuration file).
SettingsFor = Callable[[str], Settings]


def allowed_fixes(result: CheckResult, settings_for: SettingsFor) -> CheckResult:
    """Drop the fixes of codes that ``fixable``/``unfixable`` exclude, so that no report offers them."""
    findings = [f if f.fix is None or settings_for(f.path).may_fix(f.code) else dataclasses.replace(
                    f, fix=None, no_fix=f"the configuration's `fixable`/`unfixable` keys exclude {f.code}")
                for f in result.findings]
    return dataclasses.replace(result, findings=findings)


@dataclass
class FixRun:
    """What ``--fix``/``--diff`` did over all files."""

    fixed: int = 0
    files_changed: int = 0
    diffs: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)


def run_fixes(args: argparse.Namespace, result: CheckResult, settings_for: SettingsFor) -> FixRun:
    """Fix (or with ``--diff`` only plan) every file with a fix to apply, each with its own settings; print
    nothing."""
    from tfguard.static.analysis.project import Project
    from tfguard.static.fixes.fix_files import Fixer
    from tfguard.static.project_root import find_project_root

    def choose(finding: Finding) -> bool:
        fix = finding.fix
        settings = settings_for(finding.path)
        return fix is not None and settings.may_fix(finding.code) and (
            args.unsafe_fixes or settings.unsafe_fixes or fix.applicability == SAFE)

    paths = sorted({f.path for f in result.findings if choose(f)})
    run = FixRun()
    fixers: Dict[Tuple[Settings, str], Fixer] = {}
    for path in paths:
        settings = settings_for(path)
        key = (settings, find_project_root(path))
        if key not in fixers:
            fixers[key] = Fixer(settings, choose, Project(key[1], paths, python2=settings.python2))
        fixer = fixers[key]
        outcome = fixer.plan_file(path)
        if outcome.changed and not args.diff:
            fixer.write(outcome)
        if outcome.skipped:
            run.notes.append(f"{PROG}: warning: {path}: not fixed: {outcome.skipped}")
            continue
        for message in outcome.forbidden:
            run.notes.append(f"{PROG}: warning: {path}: fix not applied, the result would not check cleanly: "
                             f"{message}")
        if outcome.changed:
            run.fixed += outcome.fixed_count
            run.files_changed += 1
            if args.diff:
                run.diffs.append(outcome.diff())
    return run


def fix_stdin(args: argparse.Namespace, data: bytes, path: str, settings: Settings) -> "FileFix":
    """Work out the fixed source of ``data`` read from stdin (``path``: ``--stdin-filename`` or ``-``)."""
    from tfguard.static.analysis.project import Project
    from tfguard.static.fixes.fix_files import Fixer
    from tfguard.static.project_root import find_project_root

    def choose(finding: Finding) -> bool:
        fix = finding.fix
        return fix is not None and settings.may_fix(finding.code) and (
            args.unsafe_fixes or settings.unsafe_fixes or fix.applicability == SAFE)

    named = path != "-"
    project = Project(find_project_root(path if named else "."), [path] if named else [], python2=settings.python2)
    return Fixer(settings, choose, project).plan_bytes(path, data)


def print_summary(args: argparse.Namespace, run: FixRun) -> None:
    """Print the fix notes and the ``Fixed N findings`` (or ``Would fix``) line to stderr."""
    for note in run.notes:
        print(printable_line(note), file=sys.stderr)  # file names and fix messages: escaped for the terminal
    if getattr(args, "quiet", False):
        return
    files = f"{run.files_changed} file{'' if run.files_changed == 1 else 's'}"
    noun = f"finding{'' if run.fixed == 1 else 's'}"
    if args.diff:
        print(f"Would fix {run.fixed} {noun} in {files}.", file=sys.stderr)
    else:
        print(f"Fixed {run.fixed} {noun} in {files}.", file=sys.stderr)
