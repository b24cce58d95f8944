"""The static checker's entry points: check one source text, or files and folders."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable, List, Optional

from tfguard.analysis.module import ModuleAnalysis
from tfguard.analysis.project import Project
from tfguard.config import Settings
from tfguard.discovery import DEFAULT_EXCLUDE, iter_python_files
from tfguard.finding import Finding
from tfguard.parsing import ParseFailure, decode_source, parse_module
from tfguard.registry import PARSE_ERROR_CODE, PARSE_ERROR_NAME, SuppressionRule, all_rules
from tfguard.suppression import SuppressionAudit, apply_suppressions, read_suppressions

#: Files that never mention this are not analysed: they cannot build TF graphs.
TF_MARKER = "tensorflow"


@dataclass(frozen=True)
class FileError:
    """A file that could not be checked because of an internal or I/O error."""

    path: str
    message: str


@dataclass
class CheckResult:
    """Everything one run of the checker found."""

    findings: List[Finding] = field(default_factory=list)
    errors: List[FileError] = field(default_factory=list)
    files_checked: int = 0


def parse_error_finding(path: str, failure: ParseFailure) -> Finding:
    """Return the TFG000 finding for a file that does not parse."""
    return Finding(
        path=path,
        line=failure.line,
        column=failure.column,
        end_line=failure.line,
        end_column=failure.column,
        code=PARSE_ERROR_CODE,
        name=PARSE_ERROR_NAME,
        severity="error",
        message=f"cannot parse this file: {failure.reason}",
    )


def check_source(
    source: str, path: str = "<string>", settings: Optional[Settings] = None, project: Optional[Project] = None
) -> List[Finding]:
    """Check one module's source text and return its findings, sorted.

    The source is parsed, never imported or executed.  A file that does not
    parse yields a single TFG000 finding.  With a ``project``, calls into the
    project's other files are followed (see :class:`~tfguard.analysis.project.Project`).
    """
    settings = settings or Settings()
    suppressions = read_suppressions(source)
    if suppressions.skip_file or TF_MARKER not in source:
        return []
    try:
        module = parse_module(source, path)
    except ParseFailure as failure:
        kept = [f for f in [parse_error_finding(path, failure)] if settings.is_enabled(f.code, path)]
    else:
        analysis = ModuleAnalysis(module, path, project)
        try:
            kept = [f for f in _run_rules(analysis, path, settings) if settings.is_enabled(f.code, path)]
        finally:
            if project is not None:
                project.release(analysis)
        audit = SuppressionAudit(path, suppressions, tuple(kept), lambda code: settings.is_enabled(code, path))
        kept.extend(_run_suppression_rules(audit))
    return sorted(apply_suppressions(kept, suppressions), key=Finding.sort_key)


def _run_rules(analysis: ModuleAnalysis, path: str, settings: Settings) -> Iterable[Finding]:
    for code, rule in all_rules().items():
        if settings.is_enabled(code, path) and not isinstance(rule, SuppressionRule):
            yield from rule.check(analysis)


def _run_suppression_rules(audit: SuppressionAudit) -> Iterable[Finding]:
    for code, rule in all_rules().items():
        if isinstance(rule, SuppressionRule) and audit.is_enabled(code):
            yield from rule.check_suppressions(audit)


def check_file(path: str, settings: Optional[Settings] = None, project: Optional[Project] = None) -> List[Finding]:
    """Read and check one file; undecodable bytes yield a TFG000 finding."""
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        source = decode_source(data)
    except ParseFailure as failure:
        if TF_MARKER.encode() not in data:
            return []
        finding = parse_error_finding(path, failure)
        return [finding] if (settings or Settings()).is_enabled(finding.code, path) else []
    return check_source(source, path, settings, project)


def check_paths(paths: Iterable[str], settings: Optional[Settings] = None, force_exclude: bool = False) -> CheckResult:
    """Check every Python file under ``paths``; one file's failure never stops the others.

    Raises FileNotFoundError for a path that does not exist.
    """
    settings = settings or Settings()
    paths = list(paths)
    for path in paths:
        if not os.path.exists(path):
            raise FileNotFoundError(path)
    exclude = tuple(settings.exclude or DEFAULT_EXCLUDE) + tuple(settings.extend_exclude)
    result = CheckResult()
    root = settings.root or None
    project = Project.for_paths(paths)
    for path in iter_python_files(paths, exclude, force_exclude=force_exclude, root=root):
        result.files_checked += 1
        try:
            result.findings.extend(check_file(path, settings, project))
        except OSError as exc:
            result.errors.append(FileError(path, f"cannot read: {exc.strerror or exc}"))
        except Exception as exc:  # noqa: BLE001 - one bad file must not stop the run
            result.errors.append(FileError(path, f"internal error: {type(exc).__name__}: {exc}"))
    result.findings.sort(key=Finding.sort_key)
    return result
