"""One skill file read and validated as Pi 0.85's ``loadSkillFromFile`` does (spec §6.3).

The outcome depends only on the file's path and content, so it can be cached per file
version (:class:`~pi_lsp.resources.skills.SkillParseCache`); where the file was found (scope,
source) is added later, when it becomes a :class:`~pi_lsp.resources.skills.Skill`.

Pi's rules, in order:

* a read error is a warning with the error's message, and the file is skipped;
* a YAML error is a warning for files named ``SKILL.md`` only; other ``*.md`` files are
  skipped silently, and so is any non-``SKILL.md`` file without a non-blank string
  ``description``;
* description missing or blank → ``description is required`` (skipped); longer than 1024
  UTF-16 units → ``description exceeds 1024 characters (N)`` (still loaded);
* name = the frontmatter ``name`` when it is a non-empty string, else the parent folder's name;
  warnings (still loaded) for more than 64 units, characters outside ``[a-z0-9-]``, a hyphen at
  either end, two hyphens in a row;
* ``disable-model-invocation`` counts only when it is the boolean ``true``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from pi_lsp.js.text import js_trim, utf16_len
from pi_lsp.resources.agent_dir import node_error_text
from pi_lsp.resources.file_source import FileSource
from pi_lsp.resources.frontmatter import FieldSpan, Frontmatter, FrontmatterError, parse_frontmatter
from pi_lsp.resources.model import Finding, SourceRange

__all__ = [
    "MAX_DESCRIPTION_LENGTH",
    "MAX_NAME_LENGTH",
    "SkillFile",
    "analyze_skill_text",
    "read_skill_file",
]

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
_NAME_CHARS = re.compile(r"[a-z0-9-]+")


@dataclass(frozen=True, slots=True)
class SkillFile:
    """What one file contributes: a loadable skill (``loadable``) and/or warnings.

    ``name``/``description`` are set when the file is loadable. The ranges point at the
    ``name:`` and ``description:`` keys (``None`` when a key is absent) and at the
    frontmatter's first line (or the file's first line without frontmatter).
    """

    path: str
    loadable: bool
    name: str | None
    description: str | None
    disable_model_invocation: bool
    name_range: SourceRange | None
    description_range: SourceRange | None
    head_range: SourceRange
    findings: tuple[Finding, ...]
    #: every top-level frontmatter key and where it is (for checks Pi does not make)
    fields: tuple[tuple[str, SourceRange], ...] = ()


def read_skill_file(path: str, file_source: FileSource) -> SkillFile:
    """Read ``path`` through ``file_source`` and analyze it; never raises for I/O problems."""
    try:
        data = file_source.read_bytes(path)
    except OSError as exc:
        return _unreadable(path, exc)
    return analyze_skill_text(path, data.decode("utf-8", "replace"))


def _unreadable(path: str, exc: OSError) -> SkillFile:
    pi_message = node_error_text(exc, "open", path)
    reason = exc.strerror or str(exc)
    head = SourceRange.line(path, 0)
    finding = Finding(
        head,
        "warning",
        "skill-read-error",
        f"Cannot read this skill file ({reason}); it is not loaded.",
        pi_message=pi_message,
    )
    return SkillFile(path, False, None, None, False, None, None, head, (finding,))


def analyze_skill_text(path: str, text: str) -> SkillFile:
    """Validate the skill file ``path`` whose content is ``text`` (see the module notes)."""
    declared = os.path.basename(path) == "SKILL.md"
    head = _head_range(path, text)
    try:
        frontmatter = parse_frontmatter(text)
    except FrontmatterError as exc:
        if not declared:
            return SkillFile(path, False, None, None, False, None, None, head, ())
        where = SourceRange.line(path, exc.line, exc.column, exc.column + 1)
        finding = Finding(
            where,
            "warning",
            "skill-invalid-frontmatter",
            f"The frontmatter is not valid YAML ({exc.problem}); Pi skips this skill.",
            pi_message=exc.message,
        )
        return SkillFile(path, False, None, None, False, None, None, head, (finding,))

    data = frontmatter.data
    description = data.get("description")
    has_description = isinstance(description, str) and js_trim(description) != ""
    if not declared and not has_description:
        return SkillFile(path, False, None, None, False, None, None, head, ())

    description_range = _key_range(path, frontmatter, "description")
    name_range = _key_range(path, frontmatter, "name")
    findings: list[Finding] = []
    if not isinstance(description, str) or not has_description:
        findings.append(
            Finding(
                description_range or head,
                "warning",
                "skill-description-required",
                "A skill needs a non-empty `description` in its frontmatter; Pi does not load "
                "this one.",
                pi_message="description is required",
            )
        )
    else:
        length = utf16_len(description)
        if length > MAX_DESCRIPTION_LENGTH:
            findings.append(
                Finding(
                    description_range or head,
                    "warning",
                    "skill-description-too-long",
                    f"The description is {length} characters long, over the limit of "
                    f"{MAX_DESCRIPTION_LENGTH}; Pi still loads the skill.",
                    pi_message=(
                        f"description exceeds {MAX_DESCRIPTION_LENGTH} characters ({length})"
                    ),
                    data={"length": length},
                )
            )

    raw_name = data.get("name")
    from_frontmatter = isinstance(raw_name, str) and raw_name != ""
    name = raw_name if isinstance(raw_name, str) and raw_name else _folder_name(path)
    findings.extend(_name_findings(name, name_range if from_frontmatter else None, head))

    disabled = data.get("disable-model-invocation") is True
    loadable = isinstance(description, str) and has_description
    return SkillFile(
        path,
        loadable,
        name if loadable else None,
        description if loadable else None,
        disabled,
        name_range,
        description_range,
        head,
        tuple(findings),
        tuple(
            (key, range_)
            for key in frontmatter.fields
            if (range_ := _key_range(path, frontmatter, key)) is not None
        ),
    )


def _name_findings(name: str, where: SourceRange | None, head: SourceRange) -> list[Finding]:
    location = where or head
    subject = f'The skill name "{name}"' + ("" if where else " (taken from its folder)")
    data = {"name": name}
    findings: list[Finding] = []
    length = utf16_len(name)
    if length > MAX_NAME_LENGTH:
        findings.append(
            Finding(
                location,
                "warning",
                "skill-name-too-long",
                f"{subject} is {length} characters long, over the limit of {MAX_NAME_LENGTH}.",
                pi_message=f"name exceeds {MAX_NAME_LENGTH} characters ({length})",
                data=data,
            )
        )
    if _NAME_CHARS.fullmatch(name) is None:
        findings.append(
            Finding(
                location,
                "warning",
                "skill-name-invalid-characters",
                f"{subject} may only use lowercase letters a-z, digits 0-9 and hyphens.",
                pi_message=(
                    "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"
                ),
                data=data,
            )
        )
    if name.startswith("-") or name.endswith("-"):
        findings.append(
            Finding(
                location,
                "warning",
                "skill-name-hyphen-edge",
                f"{subject} begins or ends with a hyphen.",
                pi_message="name must not start or end with a hyphen",
                data=data,
            )
        )
    if "--" in name:
        findings.append(
            Finding(
                location,
                "warning",
                "skill-name-consecutive-hyphens",
                f"{subject} has two hyphens in a row.",
                pi_message="name must not contain consecutive hyphens",
                data=data,
            )
        )
    return findings


def _folder_name(path: str) -> str:
    return os.path.basename(os.path.dirname(path))


def _key_range(path: str, frontmatter: Frontmatter, key: str) -> SourceRange | None:
    span: FieldSpan | None = frontmatter.fields.get(key)
    if span is None:
        return None
    return SourceRange(path, span.line, span.column, span.end_line, span.end_column)


def _head_range(path: str, text: str) -> SourceRange:
    """The first line of the file (the opening ``---`` of a frontmatter block)."""
    end = len(text)
    for separator in ("\n", "\r"):
        found = text.find(separator, 0, end)
        if found != -1:
            end = found
    return SourceRange(path, 0, 0, 0, end)
