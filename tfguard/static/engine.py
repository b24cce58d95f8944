"""The static checker's entry points: check one source text, or files and folders."""

from __future__ import annotations

import ast
import contextlib
import gc
import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from tfguard.static.cache import Dependency, ResultCache, content_hash, hash_dependencies
from tfguard.static.config import Settings
from tfguard.static.deep_stack import call_with_deep_stack
from tfguard.static.discovery import DEFAULT_EXCLUDE, iter_python_files, not_a_regular_file
from tfguard.static.drivers import DriverScan
from tfguard.static.finding import CheckResult, FileError, Finding
from tfguard.static.project_root import find_project_root
from tfguard.static.registry import PARSE_ERROR_CODE, PARSE_ERROR_NAME, SuppressionRule, all_rules
from tfguard.static.workers import automatic_jobs, chunked_in_order, map_in_processes, worth_a_pool

# astroid and everything built on it (parsing, analysis, the rules) is imported
# only when a file has to be analysed: a run served from the cache never needs it.
if TYPE_CHECKING:  # pragma: no cover
    from tfguard.static.analysis.module import ModuleAnalysis
    from tfguard.static.analysis.project import Project
    from tfguard.static.parsing import ParseFailure
    from tfguard.static.suppression import SuppressionAudit

#: Files that mention neither this nor Keras are analysed only as driver scripts (see ``drivers.py``).
TF_MARKER = "tensorflow"
TF_MARKER_BYTES = TF_MARKER.encode("ascii")
#: Standalone Keras 2 (``from keras import backend as K``) builds and runs TensorFlow graphs too.
KERAS_MARKER = "keras"
KERAS_MARKER_BYTES = KERAS_MARKER.encode("ascii")


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
        headline=f"cannot parse this file: {failure.reason}",
    )


@dataclass(frozen=True)
class FileCheck:
    """The findings of one file, and the other project files its analysis read.

    ``dependencies`` lists the paths of the other files whose content went into
    the findings (modules followed across imports); a cached result of this file
    is only valid while they are unchanged.  ``python2`` is set when the file is
    not Python 3 and was checked as Python 2.
    """

    findings: Tuple[Finding, ...]
    dependencies: Tuple[str, ...] = ()
    python2: bool = False


def mentions_tensorflow(data: bytes) -> bool:
    """Return whether file bytes mention TensorFlow (or Keras) at all; files that do not are parsed only as drivers.

    The test runs on the raw bytes, before decoding: every encoding Python
    accepts for source code writes ASCII letters as ASCII bytes.
    """
    return TF_MARKER_BYTES in data or KERAS_MARKER_BYTES in data


def unreadable_source_findings(data: bytes, path: str, settings: Settings) -> Tuple[Finding, ...]:
    """Return the TFG000 finding of a file that is not analysed (it never mentions TensorFlow) but is no
    Python source CPython compiles: a binary file, undecodable bytes or a syntax error, as ruff reports
    every such file instead of passing it.

    CPython's own parser judges first (fast, next to astroid's parse, which such files are spared); only a
    file it refuses is read further: its Python 2 conversion, ``skip-file`` and ``noqa`` apply as in the
    files tfguard analyses.
    """
    from tfguard.static.parsing import ParseFailure, decode_source

    if not settings.is_enabled(PARSE_ERROR_CODE, path):
        return ()
    try:
        compile(data, "<tfguard>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        return ()
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        pass
    try:
        source = decode_source(data)
    except ParseFailure as failure:
        return (parse_error_finding(path, failure),)
    checked = _check_text(source, path, settings, driver=True)
    return tuple(f for f in checked.findings if f.code == PARSE_ERROR_CODE)


def check_source(
    source: str, path: str = "<string>", settings: Optional[Settings] = None, project: Optional[Project] = None
) -> List[Finding]:
    """Check one module's source text and return its findings, sorted.

    The source is parsed, never imported or executed.  A file that does not
    parse yields a single TFG000 finding.  With a ``project``, calls into the
    project's other files are followed (see :class:`~tfguard.static.analysis.project.Project`).
    """
    return list(_check_text(source, path, settings or Settings(), project).findings)


def _check_text(
    source: str, path: str, settings: Settings, project: Optional[Project] = None, driver: bool = False,
    plan_fixes: bool = True,
) -> FileCheck:
    # Deep but valid code (a long elif chain) recurses further than the main thread's stack allows.
    return call_with_deep_stack(_check_text_here, source, path, settings, project, driver, plan_fixes)


def _check_text_here(
    source: str, path: str, settings: Settings, project: Optional[Project] = None, driver: bool = False,
    plan_fixes: bool = True,
) -> FileCheck:
    from tfguard.static.analysis.module import ModuleAnalysis
    from tfguard.static.parsing import ParseFailure, parse_module
    from tfguard.static.suppression import SuppressionAudit, apply_suppressions, read_suppressions

    if TF_MARKER not in source and KERAS_MARKER not in source and not driver:
        return FileCheck(())
    suppressions = read_suppressions(source)
    if suppressions.skip_file:
        return FileCheck(())
    dependencies: Tuple[str, ...] = ()
    conversion = None
    analysis = project.checked_analysis(path, source) if project is not None else None
    try:
        if analysis is None:
            analysis = ModuleAnalysis(parse_module(source, path, settings.python2), path, project)
    except ParseFailure as failure:
        kept = [f for f in [parse_error_finding(path, failure)] if settings.is_enabled(f.code, path)]
    else:
        conversion = getattr(analysis.module, "python2", None)
        if conversion is not None:
            suppressions = read_suppressions(conversion.source)  # comments survive the conversion
        try:
            kept = [f for f in _run_rules(analysis, path, settings) if settings.is_enabled(f.code, path)]
            if conversion is not None:
                kept = [_original_columns(f, conversion) for f in kept]
            if project is not None:
                dependencies = tuple(project.dependencies(path))
        finally:
            if project is not None:
                project.adopt(analysis)
        audit = SuppressionAudit(path, suppressions, tuple(kept), lambda code: settings.is_enabled(code, path))
        kept.extend(_run_suppression_rules(audit))
    findings = tuple(sorted(apply_suppressions(kept, suppressions), key=Finding.sort_key))
    # A Python 2 file's text is not what was analysed: no fix, and no scope (its baseline entries name none).
    if plan_fixes and analysis is not None and findings and conversion is None:
        from tfguard.static.fixes.planner import attach_fixes

        findings = tuple(attach_fixes(analysis, source, findings, suppressions))
    elif plan_fixes and findings and conversion is not None:  # the language server plans fixes on demand
        from tfguard.static.fixes.planner import explain_python2

        findings = tuple(explain_python2(findings))
    if analysis is not None and findings and conversion is None:
        findings = tuple(_with_scopes(findings, analysis))
    return FileCheck(findings, dependencies, python2=conversion is not None)


def _with_scopes(findings: Sequence[Finding], analysis: ModuleAnalysis) -> Iterator[Finding]:
    """Each finding with the dotted name of the ``def`` or ``class`` around its line (what baselines match on)."""
    for finding in findings:
        scope = analysis.scope_at(finding.line)
        yield replace(finding, scope=scope) if scope != finding.scope else finding


def _original_columns(finding: Finding, conversion) -> Finding:
    """Map a finding's columns on a converted Python 2 file back to the original text (tabs unexpanded)."""
    column = conversion.original_column(finding.line, finding.column)
    end_column = conversion.original_column(finding.end_line, finding.end_column)
    if (column, end_column) == (finding.column, finding.end_column):
        return finding
    return replace(finding, column=column, end_column=end_column)


def _run_rules(analysis: ModuleAnalysis, path: str, settings: Settings) -> Iterable[Finding]:
    for code, rule in all_rules().items():
        if settings.is_enabled(code, path) and not isinstance(rule, SuppressionRule):
            yield from rule.check(analysis)


def _run_suppression_rules(audit: SuppressionAudit) -> Iterable[Finding]:
    for code, rule in all_rules().items():
        if isinstance(rule, SuppressionRule) and audit.is_enabled(code):
            yield from rule.check_suppressions(audit)


def check_bytes(
    data: bytes, path: str, settings: Optional[Settings] = None, project: Optional[Project] = None,
    plan_fixes: bool = True,
) -> FileCheck:
    """Check the bytes of one file; undecodable bytes yield a TFG000 finding.

    A file that never mentions TensorFlow is analysed only when, with a ``project``, it imports
    (directly or through other project modules) a project module that does: a driver script.
    Its result then depends on the project files its imports led to, which are in its dependencies.
    ``plan_fixes=False`` leaves every finding without ``fix`` and ``no_fix`` (faster: the language server's
    diagnostics as you type).
    """
    from tfguard.static.parsing import ParseFailure, decode_source

    settings = settings or Settings()
    driver_deps: Tuple[str, ...] = ()
    if not mentions_tensorflow(data):
        reaches, driver_deps = project.drivers.reaches_tensorflow(path, data) if project is not None else (False, ())
        if not reaches:
            return FileCheck(unreadable_source_findings(data, path, settings), driver_deps)
    try:
        source = decode_source(data)
    except ParseFailure as failure:
        finding = parse_error_finding(path, failure)
        return FileCheck((finding,) if settings.is_enabled(finding.code, path) else (), driver_deps)
    checked = _check_text(source, path, settings, project, driver=bool(driver_deps), plan_fixes=plan_fixes)
    if driver_deps:
        checked = replace(checked, dependencies=tuple(sorted({*checked.dependencies, *driver_deps})))
    return checked


def read_file(path: str) -> bytes:
    """Return the bytes of ``path`` (raises OSError)."""
    with open(path, "rb") as handle:
        return handle.read()


@dataclass(frozen=True)
class FileOutcome:
    """What checking one file produced, as passed back from a worker process.

    ``content_hash`` identifies the bytes that were checked (None when the file
    could not be read); ``dependencies`` pairs each other file the analysis read
    with its content hash; ``error`` is set instead of findings when the file
    could not be checked, and such an outcome is never cached.
    """

    path: str
    content_hash: Optional[str]
    findings: Tuple[Finding, ...] = ()
    dependencies: Tuple[Dependency, ...] = ()
    error: Optional[str] = None
    python2: bool = False


def check_one(
    path: str, settings: Settings, data: Optional[bytes] = None, project: Optional[Project] = None
) -> FileOutcome:
    """Check one file (reading it unless ``data`` is given); failures become ``error``, never exceptions."""
    try:
        if data is None:
            data = read_file(path)
    except OSError as exc:
        return FileOutcome(path, None, error=f"cannot read: {exc.strerror or exc}")
    digest = content_hash(data)
    try:
        checked = check_bytes(data, path, settings, project)
        dependencies = hash_dependencies(checked.dependencies)
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop the run
        if caused_by_interrupt(exc):  # Ctrl-C that Python wrapped (a RuntimeError from __set_name__...)
            raise KeyboardInterrupt from None
        return FileOutcome(path, digest, error=f"internal error: {type(exc).__name__}: {exc}")
    return FileOutcome(path, digest, checked.findings, dependencies, python2=checked.python2)


def caused_by_interrupt(exc: Optional[BaseException]) -> bool:
    """Return whether ``exc`` is, or was raised while handling, a KeyboardInterrupt.

    Python wraps an exception raised in some places (``__set_name__`` while a
    class is created, so while astroid is imported) in a RuntimeError: a Ctrl-C
    there must still read as Ctrl-C, not as an internal error.
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


#: The settings and project of the run a worker process serves, set once by :func:`_start_worker`.
_worker_settings: Optional[Settings] = None
_worker_project: Optional[Project] = None


def _start_worker(settings: Settings, project_root: str, paths: List[str]) -> None:
    global _worker_settings, _worker_project

    _worker_settings = settings
    _worker_project = _project(project_root, settings, paths)
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])


def _check_chunk(paths: List[str]) -> List[FileOutcome]:
    assert _worker_settings is not None, "worker started without settings"
    return check_batch([(path, None) for path in paths], _worker_settings, _worker_project)


#: Files read but not yet checked, in one process: checked together on the large-stack thread.
_BATCH_FILES = 64
_BATCH_BYTES = 1024 * 1024


def check_batch(files: List[Tuple[str, Optional[bytes]]], settings: Settings,
                project: Optional[Project]) -> List[FileOutcome]:
    """Check (path, bytes or None to read it) pairs in one go on the large-stack thread (see deep_stack).

    One hand-over per batch rather than per file: on a busy machine each wake-up of
    the waiting thread can cost a scheduler time slice.
    """
    return call_with_deep_stack(_check_batch_here, files, settings, project)


def _check_batch_here(files: List[Tuple[str, Optional[bytes]]], settings: Settings,
                      project: Optional[Project]) -> List[FileOutcome]:
    return [check_one(path, settings, data, project) for path, data in files]


def _lost_outcome(path: str, exc: BaseException) -> FileOutcome:
    return FileOutcome(path, None, error=f"internal error: the worker process stopped ({type(exc).__name__}: {exc})")


def check_paths(
    paths: Iterable[str],
    settings: Optional[Settings] = None,
    force_exclude: bool = False,
    jobs: Optional[int] = 1,
    cache: Optional[ResultCache] = None,
) -> CheckResult:
    """Check every Python file under ``paths``; one file's failure never stops the others.

    With ``jobs`` > 1 and enough files, files are checked in that many worker
    processes; the result is the same as with ``jobs=1``.  ``jobs=None`` picks
    the number (:func:`~tfguard.static.workers.automatic_jobs`): one per CPU,
    fewer for a small project, none (this process) for a very small one.  With a ``cache``,
    files whose content, settings and dependencies are unchanged are not
    checked again, and newly checked files are stored; the cache is flushed
    (written to disk) once, when the run ends.  Files that never mention
    tensorflow (or keras) are read but not parsed, unless they import project modules that do.

    A file named in ``paths`` that cannot be read (a FIFO, a broken symbolic
    link, no permission) is an error of the result; one met while walking a
    folder is skipped and listed in ``skipped``, as is a sub-folder that cannot
    be listed.  Raises FileNotFoundError for a path that does not exist.
    """
    settings = settings or Settings()
    paths = list(paths)
    for path in paths:
        if not os.path.lexists(path):
            raise FileNotFoundError(path)
    exclude = tuple(settings.exclude or DEFAULT_EXCLUDE) + tuple(settings.extend_exclude)
    root = settings.root or None
    skipped: List[FileError] = []
    try:
        with fewer_garbage_collections():
            files = iter_python_files(paths, exclude, force_exclude=force_exclude, root=root,
                                      on_skip=lambda path, reason: skipped.append(FileError(path, reason)),
                                      respect_gitignore=settings.respect_gitignore)
            result = _check_files(files, find_project_root(paths[0] if paths else "."), paths, settings, jobs,
                                  cache)
            result.skipped = sorted(skipped, key=lambda error: error.path)
            return result
    finally:
        if cache is not None:
            cache.flush()


def check_files(files: Sequence[str], settings: Settings, project_root: str, run_paths: Sequence[str],
                jobs: Optional[int] = 1, cache: Optional[ResultCache] = None) -> CheckResult:
    """Check files already found (no walking, no exclusions), as :func:`check_paths` checks what it finds.

    ``project_root`` is where imports are resolved from; ``run_paths`` are the paths of the whole run as
    given (how followed modules are named). The cache, if any, is flushed when the check ends.
    """
    try:
        with fewer_garbage_collections():
            return _check_files(files, project_root, list(run_paths), settings, jobs, cache)
    finally:
        if cache is not None:
            cache.flush()


#: Allocations between two young-generation collections while checking (Python's default is 700).
GC_YOUNG_THRESHOLD = 100_000


@contextlib.contextmanager
def fewer_garbage_collections() -> Iterator[None]:
    """Collect garbage less often for the length of a check, then restore the thresholds.

    Parse trees are large graphs of small objects that live a file long; with
    Python's default thresholds the collector runs every 700 allocations and
    checking spends about a third of its time in it (measured by bench/lint_speed.py).
    Trees are still freed: by the next, rarer collection.
    """
    previous = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *previous[1:])
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def _check_files(
    files: Iterable[str], project_root: str, paths: List[str], settings: Settings, jobs: Optional[int],
    cache: Optional[ResultCache],
) -> CheckResult:
    run = _CheckRun(project_root, paths, settings, jobs, cache)
    for path in files:
        run.result.files_checked += 1
        data = run.read_unless_known(path)
        if data is not None:
            run.queue(path, data)
    run.check_queued()
    return run.sorted_result()


class _CheckRun:
    """One run of the checker over files, in its steps: read each file unless the cache or the driver scan
    already knows its findings (`read_unless_known`), queue it for analysis (`queue`: in batches in this process,
    or for worker processes), analyse what is queued (`check_queued`), then the result in order."""

    def __init__(self, project_root: str, paths: List[str], settings: Settings, jobs: Optional[int],
                 cache: Optional[ResultCache]) -> None:
        self.result = CheckResult()
        self.project_root, self.paths, self.settings, self.jobs, self.cache = project_root, paths, settings, jobs, cache
        self._project: Optional[Project] = None  # built (importing astroid) only when a file has to be checked
        self._drivers: Optional[DriverScan] = None  # built at the first file that does not mention TensorFlow
        self._pending: List[Tuple[int, str]] = []  # (size, path) for worker processes
        self._batch: List[Tuple[str, Optional[bytes]]] = []
        self._batch_bytes = 0
        self._outcomes: List[FileOutcome] = []
        self._stats: Dict[str, os.stat_result] = {}

    def read_unless_known(self, path: str) -> Optional[bytes]:
        """The file's bytes when it has to be analysed; None when it was settled here (an error, a cached result,
        a file that never reaches TensorFlow)."""
        result, cache = self.result, self.cache
        try:
            stat = os.stat(path)
            problem = not_a_regular_file(stat.st_mode)
            if problem is not None:  # a FIFO named on the command line: reading it would wait forever
                result.errors.append(FileError(path, problem))
                return None
            if cache is not None:
                self._stats[path] = stat
                cached = cache.lookup_unchanged(path, stat)
                if cached is not None:
                    _add_cached(result, path, cached, cache)
                    return None
            data = read_file(path)
        except OSError as exc:
            result.errors.append(FileError(path, f"cannot read: {exc.strerror or exc}"))
            return None
        if not mentions_tensorflow(data) and not self._reaches_tensorflow(path, data):
            return None
        if cache is not None:
            cached = cache.lookup(path, content_hash(data), self._stats.get(path))
            if cached is not None:
                _add_cached(result, path, cached, cache)
                return None
        return data

    def _reaches_tensorflow(self, path: str, data: bytes) -> bool:
        """Whether a file that never names TensorFlow drives a module that does; if not, its findings (a syntax
        error, unreadable bytes) are settled here."""
        if self._drivers is None:
            self._drivers = DriverScan(self.project_root)
        reaches, looked_at = self._drivers.reaches_tensorflow(path, data)
        if not reaches:
            unreadable = unreadable_source_findings(data, path, self.settings)
            self.result.findings.extend(unreadable)
            if self.cache is not None:
                self.cache.store(path, content_hash(data), unreadable, hash_dependencies(looked_at),
                                 self._stats.get(path))
        return reaches

    def queue(self, path: str, data: bytes) -> None:
        """Queue a file for analysis: for the worker processes, or in a batch checked here when it is full."""
        if self.jobs is None or self.jobs > 1:
            self._pending.append((len(data), path))
            return
        self._batch.append((path, data))
        self._batch_bytes += len(data)
        if len(self._batch) >= _BATCH_FILES or self._batch_bytes >= _BATCH_BYTES:
            self._check_here(self._batch)
            self._batch, self._batch_bytes = [], 0

    def _check_here(self, files: List[Tuple[str, Optional[bytes]]]) -> None:
        if self._project is None:
            self._project = _project(self.project_root, self.settings, self.paths)
        self._outcomes.extend(check_batch(files, self.settings, self._project))

    def check_queued(self) -> None:
        """Analyse what is still queued (the last batch, the files for workers) and collect every outcome."""
        if self._batch:
            self._check_here(self._batch)
        if self._pending:
            todo = [path for _, path in self._pending]
            jobs = self.jobs if self.jobs is not None else automatic_jobs(sum(size for size, _ in self._pending))
            if worth_a_pool(len(todo), jobs):
                _load_the_checker()  # once, before the workers fork, instead of once in each of them
                chunks = chunked_in_order(todo, [size for size, _ in self._pending], jobs)
                worker_args = (self.settings, self.project_root, self.paths)
                self._outcomes.extend(map_in_processes(_check_chunk, chunks, jobs, _lost_outcome, _start_worker,
                                                       worker_args))
            else:
                self._check_here([(path, None) for path in todo])
        for outcome in self._outcomes:
            self._collect(outcome)

    def _collect(self, outcome: FileOutcome) -> None:
        result, cache = self.result, self.cache
        if outcome.error is not None:
            result.errors.append(FileError(outcome.path, outcome.error))
            return
        result.findings.extend(outcome.findings)
        if outcome.python2:
            result.python2_files.append(outcome.path)
        if cache is not None and outcome.content_hash is not None:
            cache.store(outcome.path, outcome.content_hash, outcome.findings, outcome.dependencies,
                        self._stats.get(outcome.path), python2=outcome.python2)

    def sorted_result(self) -> CheckResult:
        """The run's result, findings, errors and Python 2 files in order."""
        result = self.result
        result.findings.sort(key=Finding.sort_key)
        result.errors.sort(key=lambda error: error.path)
        result.python2_files.sort()
        return result


def _add_cached(result: CheckResult, path: str, findings: Tuple[Finding, ...], cache: ResultCache) -> None:
    result.findings.extend(findings)
    if cache.was_python2(path):
        result.python2_files.append(path)


def _load_the_checker() -> None:
    """Import astroid, the analysis and the rules, and build astroid's model of the builtins, in this process."""
    from tfguard.static.analysis.module import ModuleAnalysis  # noqa: F401 - imported for its side effect
    from tfguard.static.parsing import ParseFailure, parse_module

    all_rules()
    try:
        parse_module(TF_MARKER + " = 1\n", "<tfguard warm-up>")
    except ParseFailure:  # pragma: no cover - the line is valid Python
        pass


def check_stdin(data: bytes, path: str, settings: Settings) -> CheckResult:
    """Check source read from stdin as if it were the file ``path`` (``--stdin-filename``; ``-`` when none).

    The project around ``path`` is analysed as on disk (imports, driver scripts); the text checked is ``data``.
    """
    result = CheckResult(files_checked=1)
    root = find_project_root(path if path != "-" else ".")
    for outcome in check_batch([(path, data)], settings, _project(root, settings, [path] if path != "-" else [])):
        if outcome.error is not None:
            result.errors.append(FileError(outcome.path, outcome.error))
        result.findings.extend(outcome.findings)
        if outcome.python2:
            result.python2_files.append(outcome.path)
    result.findings.sort(key=Finding.sort_key)
    return result


def _project(root: str, settings: Settings, paths: Sequence[str] = ()) -> Project:
    from tfguard.static.analysis.project import Project

    return Project(root, paths, python2=settings.python2)
