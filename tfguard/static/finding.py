"""The results of the static checker: one finding, a file it could not check, and a whole run."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Tuple


@dataclass(frozen=True)
class ChainLink:
    """One hop from a call inside a loop down to the line that builds the op."""

    path: str
    line: int
    function: str


@dataclass(frozen=True)
class Edit:
    """Replace the text from (line, column) up to (end_line, end_column) with ``content``.

    Lines and columns are 1-based and count characters of the decoded source; the
    end is exclusive.  An insertion has its end equal to its start.
    """

    line: int
    column: int
    end_line: int
    end_column: int
    content: str


#: How sure a fix is to keep the program's behaviour: ``--fix`` applies safe ones, ``--unsafe-fixes`` both.
SAFE, UNSAFE = "safe", "unsafe"


@dataclass(frozen=True)
class Fix:
    """The edits that fix one finding, applied together or not at all."""

    applicability: str
    message: str
    edits: Tuple[Edit, ...]

    def to_dict(self) -> Dict[str, Any]:
        """Return the JSON form: ``applicability``, ``message``, ``edits`` (each with its location)."""
        return {"applicability": self.applicability, "message": self.message,
                "edits": [asdict(edit) for edit in self.edits]}

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Fix":
        """Rebuild a Fix from :meth:`to_dict` output; raises on a malformed dict."""
        edits = tuple(Edit(**edit) for edit in data["edits"])
        if data["applicability"] not in (SAFE, UNSAFE) or not isinstance(data["message"], str) or not all(
            isinstance(value, int) for edit in edits for value in (edit.line, edit.column, edit.end_line,
                                                                    edit.end_column)
        ) or not all(isinstance(edit.content, str) for edit in edits):
            raise ValueError("fix has a field of the wrong type")
        return cls(data["applicability"], data["message"], edits)


@dataclass(frozen=True)
class Finding:
    """A rule violation at a source location; lines and columns are 1-based.

    ``end_column`` points one past the last character, as in SARIF.
    ``chain`` lists the helper-function hops when the offending op is built
    inside a function called from the reported line, then every other line the
    headline or help names (a session, a default, an earlier run; the loop's
    header aside), so that tools can place them (issue 44).  ``fix`` is the edit that
    ``tfguard check --fix`` would make, when there is one (see :mod:`tfguard.static.fixes`);
    ``no_fix`` says why there is none.  The ``headline`` and the ``help`` stay apart: each output
    lays them out its own way (a ``help:`` line, a table cell, a diagnostic's second line), and
    :attr:`message` joins them for the outputs that print one line.
    """

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    name: str
    severity: str
    #: What is wrong, in a few words ("`tf.train.Saver()` builds new save/restore ops on every iteration of ...").
    headline: str
    #: What to do about it ("create the Saver once, before the loop, ..."), "" when the headline says it all.
    help: str = ""
    #: The dotted name of the ``def`` or ``class`` around the finding's line (``Trainer.fit``), "" at module level:
    #: with the line's text, what a baseline entry matches the finding on (see :mod:`tfguard.static.fingerprints`).
    scope: str = ""
    chain: Tuple[ChainLink, ...] = field(default=())
    fix: Optional[Fix] = None
    #: Why there is no fix (``fix`` is None): the rule has none, or what made this one impossible or unsafe to
    #: plan ("" when there is a fix, or for a finding made before fixes were planned).
    no_fix: str = ""

    @property
    def message(self) -> str:
        """The finding in one line, as the one-line outputs (concise, pylint, SARIF...) print it: the headline, then
        ``; `` and the help when there is one."""
        return f"{self.headline}; {self.help}" if self.help else self.headline

    def sort_key(self) -> tuple:
        """Order findings by path, line, column, code."""
        return (self.path, self.line, self.column, self.code)

    def to_dict(self) -> Dict[str, Any]:
        """Return the JSON-ready form used by the json reporter."""
        data = asdict(self)
        # ``message`` (the one-line form) keeps its place among the keys; ``headline`` and ``help`` come after it.
        data = {**{key: data[key] for key in ("path", "line", "column", "end_line", "end_column", "code", "name",
                                              "severity")},
                "message": self.message, **data}
        data["chain"] = [asdict(link) for link in self.chain]  # after ``scope`` (asdict keeps the fields' order)
        data["fix"] = self.fix.to_dict() if self.fix is not None else None
        data["no_fix"] = self.no_fix or None if self.fix is None else None
        return data


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
    #: Files that are not Python 3 and were checked as Python 2 (converted line for line), sorted.
    python2_files: List[str] = field(default_factory=list)
    #: Files and folders met while walking a folder that could not be checked (a FIFO, a broken link...), skipped.
    skipped: List[FileError] = field(default_factory=list)
