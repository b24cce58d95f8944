"""What the language server keeps between requests: open buffers, projects, settings, the last checks.

Every method here is called on the server's one checking thread (see :mod:`tfguard.server.protocol`), so the
projects' analyses are never shared between two checks at once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

from tfguard.server.checking import MAX_TEXT_CHARS, BufferCheck, check_buffer, fix_all_safe
from tfguard.server.configuration import Configuration, FileSettings
from tfguard.server.overlay import OverlayProject
from tfguard.server.runtime_findings import RuntimeFinding, RuntimeReports
from tfguard.static.finding import Finding
from tfguard.static.project_root import find_project_root


@dataclass
class Buffer:
    """One open file: its text as the editor holds it, and the editor's version of it."""

    text: str
    version: Optional[int]


class ServerState:
    """Open buffers by absolute path, the projects around them, and what was found in each."""

    def __init__(self) -> None:
        self.buffers: Dict[str, Buffer] = {}
        self.configuration = Configuration()
        self.runtime = RuntimeReports()
        self._projects: Dict[Tuple[str, bool], OverlayProject] = {}
        self._checks: Dict[str, BufferCheck] = {}
        #: path -> (the check, the same text's findings with fixes planned)
        self._fixed: Dict[str, Tuple[BufferCheck, BufferCheck]] = {}
        #: path -> (the check, the text with every safe fix applied or None)
        self._fixed_all: Dict[str, Tuple[BufferCheck, Optional[str]]] = {}
        #: Configuration problems already reported to the user (each is said once).
        self.reported: set = set()

    # -- buffers ------------------------------------------------------------------------

    def open(self, path: str, text: str, version: Optional[int]) -> None:
        """Note an opened or changed buffer."""
        self.buffers[path] = Buffer(text, version)

    def close(self, path: str) -> None:
        """Forget a closed buffer and what was found in it."""
        self.buffers.pop(path, None)
        self._checks.pop(path, None)
        self._fixed.pop(path, None)
        self._fixed_all.pop(path, None)

    def buffer_text(self, path: str) -> Optional[str]:
        """Return the unsaved text of an open file, None when it is not open."""
        buffer = self.buffers.get(path)
        return buffer.text if buffer is not None else None

    def reload(self) -> None:
        """Start over with settings and runtime reports (a configuration or report file changed)."""
        self.configuration.reload()
        self.runtime = RuntimeReports()
        self.invalidate()

    def invalidate(self) -> None:
        """Forget the last checks (a file they may follow into was saved): the next ones are made afresh."""
        self._checks.clear()
        self._fixed.clear()
        self._fixed_all.clear()

    # -- checks ---------------------------------------------------------------------------

    def settings(self, path: str) -> FileSettings:
        """Return the settings of an open file."""
        return self.configuration.settings_for(path)

    def check(self, path: str, fresh: bool = False) -> Optional[BufferCheck]:
        """Return the check of the buffer's current text; None if it is not open.

        ``fresh``: check again even if this text was checked (a file it follows into may have changed);
        else the last check of this text under these settings is reused (code actions, hover).
        """
        buffer = self.buffers.get(path)
        if buffer is None:
            return None
        known = self._checks.get(path)
        file_settings = self.settings(path)
        if not fresh and known is not None and known.version == buffer.version and known.text is buffer.text \
                and known.settings == file_settings.settings:
            return known
        skipped = self._skip_reason(path, buffer.text, file_settings)
        if skipped:
            result = BufferCheck(path, buffer.version, buffer.text, skipped=skipped, settings=file_settings.settings)
        else:
            findings = check_buffer(path, buffer.text, file_settings.settings, self._project(path, file_settings))
            result = BufferCheck(path, buffer.version, buffer.text, findings, settings=file_settings.settings)
        self._checks[path] = result
        return result

    def fixes(self, path: str) -> Optional[BufferCheck]:
        """Return the current text's findings with their fixes planned (the settings' allowing them)."""
        checked = self.check(path)
        if checked is None or checked.skipped:
            return checked
        def planned() -> BufferCheck:
            file_settings = self.settings(path)
            findings = check_buffer(path, checked.text, file_settings.settings, self._project(path, file_settings),
                                    plan_fixes=True)
            return BufferCheck(path, checked.version, checked.text, findings, settings=checked.settings)

        return _once_per_check(self._fixed, path, checked, planned)

    def fix_all(self, path: str) -> Optional[str]:
        """Return the buffer's text with every safe fix applied, None when there is none to apply."""
        checked = self.check(path)
        if checked is None or checked.skipped:
            return None
        def fixed() -> Optional[str]:
            file_settings = self.settings(path)
            return fix_all_safe(path, checked.text, file_settings.settings, self._project(path, file_settings))

        return _once_per_check(self._fixed_all, path, checked, fixed)

    def runtime_findings(self, path: str) -> List[RuntimeFinding]:
        """Return the runtime report's findings on an open file, while the file is as the run saw it."""
        buffer = self.buffers.get(path)
        settings = self.settings(path).settings
        if buffer is None or settings is None or not settings.runtime_report:
            return []
        return self.runtime.findings_for(settings.runtime_report, path, buffer.text,
                                         [settings.root, find_project_root(path)])

    def findings_on_line(self, path: str, line: int) -> List[Finding]:
        """Return the last check's findings that cover ``line`` of an open file."""
        checked = self._checks.get(path)
        if checked is None:
            return []
        return [f for f in checked.findings if f.line <= line <= max(f.line, f.end_line)]

    def _skip_reason(self, path: str, text: str, file_settings: FileSettings) -> str:
        if file_settings.settings is None:
            return f"not checked: {file_settings.error}"
        if file_settings.excludes(path):
            return "not checked: the configuration excludes it"
        if len(text) > MAX_TEXT_CHARS:
            return f"not checked: larger than {MAX_TEXT_CHARS // 1024} KiB"
        return ""

    def _project(self, path: str, file_settings: FileSettings) -> OverlayProject:
        python2 = file_settings.settings.python2 if file_settings.settings is not None else True
        key = (find_project_root(path), python2)
        project = self._projects.get(key)
        if project is None:
            project = self._projects[key] = OverlayProject(key[0], self._overlay_text, python2)
        return project

    def _overlay_text(self, path: str) -> Optional[str]:
        return self.buffer_text(os.path.abspath(path))


def _once_per_check(memo: Dict[str, Tuple[BufferCheck, Any]], path: str, checked: BufferCheck,
                    compute: Callable[[], Any]) -> Any:
    """``compute()`` for the buffer's current check, remembered in ``memo`` until the buffer is checked again."""
    known = memo.get(path)
    if known is not None and known[0] is checked:
        return known[1]
    value = compute()
    memo[path] = (checked, value)
    return value
