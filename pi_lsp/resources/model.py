"""The plain data of the Resource boundary: where things come from, and what is wrong with them.

Positions are 0-based lines and columns counted in code points; a range's end is exclusive
(LSP's convention, so the server converts only the column encoding). Display code adds 1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

Severity = Literal["error", "warning", "information", "hint"]


@dataclass(frozen=True, slots=True)
class SourceRange:
    """A region of a file: lines ``start_line`` .. ``end_line`` (columns optional)."""

    path: str
    start_line: int = 0
    start_column: int = 0
    end_line: int = 0
    end_column: int = 0

    @classmethod
    def whole_text(cls, path: str, text: str) -> SourceRange:
        """The range covering all of ``text`` (as the file ``path`` holds it)."""
        lines = text.split("\n")
        return cls(path, 0, 0, len(lines) - 1, len(lines[-1]))

    @classmethod
    def line(cls, path: str, line: int, start: int = 0, end: int = 0) -> SourceRange:
        return cls(path, line, start, line, end)

    def through(self, last: SourceRange) -> SourceRange:
        """From this range's start to the end of ``last`` (a later range of the same file)."""
        return SourceRange(
            self.path, self.start_line, self.start_column, last.end_line, last.end_column
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "startLine": self.start_line,
            "startColumn": self.start_column,
            "endLine": self.end_line,
            "endColumn": self.end_column,
        }


@dataclass(frozen=True, slots=True)
class RelatedLocation:
    """Another place a finding points at (the earlier instruction, the winning skill)."""

    where: SourceRange
    message: str


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem with the resources, located in a file.

    ``rule`` is a stable kebab-case name (``skill-name-collision``); ``pi_message`` is the text
    Pi itself prints for the same problem, when Pi reports it at all.
    """

    where: SourceRange
    severity: Severity
    rule: str
    message: str
    related: tuple[RelatedLocation, ...] = ()
    pi_message: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            **self.where.to_json(),
            "severity": self.severity,
            "rule": self.rule,
            "message": self.message,
        }
        if self.related:
            out["related"] = [{**r.where.to_json(), "message": r.message} for r in self.related]
        return out

    def to_text(self, show_path: Callable[[str], str] | None = None) -> str:
        """The finding as one terminal line: ``file:line:column: severity: message [rule]``;
        ``show_path`` writes the file's path for the reader (default: as it is)."""
        where = self.where
        path = show_path(where.path) if show_path else where.path
        return (
            f"{path}:{where.start_line + 1}:{where.start_column + 1}: "
            f"{self.severity}: {self.message} [{self.rule}]"
        )


class NamedResource(Protocol):
    """A loaded resource that name collisions are reported for (a skill, a prompt template)."""

    @property
    def name(self) -> str: ...

    @property
    def file_path(self) -> str: ...

    @property
    def location(self) -> SourceRange: ...


def name_collision_finding(
    loser: NamedResource,
    winner: NamedResource,
    *,
    resource_type: str,
    rule: str,
    message: str,
    related: str,
    pi_name: str,
) -> Finding:
    """The warning for ``loser``, ignored because ``winner`` already took its name.

    ``related`` describes the winner; ``pi_name`` is the name as Pi prints it in its own
    ``name "…" collision`` message.
    """
    details = {
        "resourceType": resource_type,
        "name": loser.name,
        "winnerPath": winner.file_path,
        "loserPath": loser.file_path,
    }
    return Finding(
        loser.location,
        "warning",
        rule,
        message,
        related=(RelatedLocation(winner.location, related),),
        pi_message=f'name "{pi_name}" collision',
        data={"piType": "collision", "collision": details, **details},
    )


def pi_diagnostics(
    findings: Iterable[Finding], default_type: str | None = None
) -> list[dict[str, Any]]:
    """The findings Pi itself reports, as Pi's ``{type, message, path, collision?}`` records.

    ``type`` is the finding's ``piType``, else ``default_type``, else its severity.
    """
    out: list[dict[str, Any]] = []
    for finding in findings:
        if finding.pi_message is None:
            continue
        entry: dict[str, Any] = {
            "type": finding.data.get("piType", default_type or finding.severity),
            "message": finding.pi_message,
            "path": finding.where.path,
        }
        if "collision" in finding.data:
            entry["collision"] = finding.data["collision"]
        out.append(entry)
    return out
