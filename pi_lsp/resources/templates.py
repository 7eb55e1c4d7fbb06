"""Prompt templates and ``/skill:`` commands: loading and expanding them as Pi 0.85 does.

Loading (spec §7.1): a template is a ``*.md`` file; its name is the file name without ``.md``,
its content the body after the frontmatter (trimmed when there is a block). The description is
the frontmatter ``description`` when truthy, else the first non-blank body line cut to 60 UTF-16
units (``...`` appended when longer). Pi skips unreadable files and files with invalid YAML
silently; here they are findings without a Pi message. Duplicate names: the first wins, the
others are ``name "/{name}" collision`` findings.

Expansion (§7.2): ``/name args`` is replaced by the template's content with ``$1``, ``$@``,
``$ARGUMENTS``, ``${N:-default}``, ``${@:-default}``, ``${@:S}`` and ``${@:S:L}`` filled from
the bash-like split of ``args``, in one pass (values are never re-scanned).

``/skill:name args`` (§6.6) becomes a ``<skill name=… location=…>`` block with the skill file's
body, followed by a blank line and the arguments when there are any.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pi_lsp.js.text import JS_WHITESPACE, is_js_space, js_trim, utf16_len, utf16_prefix
from pi_lsp.resources.agent_dir import canonicalize_path, node_error_text
from pi_lsp.resources.file_source import DISK, FileSource
from pi_lsp.resources.frontmatter import FrontmatterError, parse_frontmatter
from pi_lsp.resources.model import Finding, SourceRange, name_collision_finding, pi_diagnostics
from pi_lsp.resources.resource_walk import PiIgnoreRules, list_directory
from pi_lsp.resources.skills import Skill
from pi_lsp.resources.yaml_core import js_key

__all__ = [
    "LoadTemplatesResult",
    "PromptTemplate",
    "SkillBlock",
    "SkillCommandExpansion",
    "TemplateRoot",
    "TemplateScope",
    "expand_prompt_template",
    "expand_skill_command",
    "find_template",
    "load_prompt_templates",
    "parse_command_args",
    "parse_skill_block",
    "substitute_args",
]

TemplateScope = Literal["user", "project", "temporary"]
DESCRIPTION_FALLBACK_UNITS = 60


# --- loading ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TemplateRoot:
    """A folder or file templates are loaded from.

    ``kind="auto"``: a discovered prompts folder (``agentDir/prompts``, ``.pi/prompts``): its
    ``*.md`` files, without names starting with ``.``, without ``node_modules``, honouring the
    folder's ignore files. ``kind="explicit"``: a path the user named (``--prompt-template``, a
    settings entry): every ``*.md`` file of a folder, or the file itself; a missing path is
    reported as Pi reports it. Neither looks into sub-folders.
    """

    path: str
    kind: Literal["auto", "explicit"] = "auto"
    scope: TemplateScope = "user"
    source: str = "auto"
    origin: str = "top-level"
    base_dir: str | None = None


@dataclass(frozen=True, slots=True)
class PromptTemplate:
    """A loaded template (Pi's ``PromptTemplate``) and where its parts are in the file."""

    name: str
    description: str
    content: str
    file_path: str
    argument_hint: str | None
    scope: TemplateScope
    source: str
    origin: str
    source_base_dir: str | None = None
    #: the ``description:`` key, when the description comes from the frontmatter
    description_range: SourceRange | None = None
    #: the line where ``content`` starts in the file
    content_line: int = 0

    @property
    def location(self) -> SourceRange:
        return SourceRange.line(self.file_path, 0)


@dataclass(frozen=True, slots=True)
class LoadTemplatesResult:
    """Templates in load order, and findings (problems in load order, then collisions)."""

    templates: tuple[PromptTemplate, ...]
    findings: tuple[Finding, ...]
    files: tuple[str, ...] = ()

    def by_name(self, name: str) -> PromptTemplate | None:
        return find_template(self.templates, name)

    def pi_diagnostics(self) -> list[dict[str, Any]]:
        """The diagnostics Pi itself reports, as its ``{type, message, path, collision?}``."""
        return pi_diagnostics(self.findings)


def find_template(templates: Sequence[PromptTemplate], name: str) -> PromptTemplate | None:
    """The first template called ``name``."""
    return next((template for template in templates if template.name == name), None)


def load_prompt_templates(
    roots: Sequence[TemplateRoot], file_source: FileSource = DISK
) -> LoadTemplatesResult:
    """Load the templates of ``roots`` in order; each file once (by real path)."""
    problems: list[Finding] = []
    collisions: list[Finding] = []
    loaded: dict[str, PromptTemplate] = {}
    files: list[str] = []
    seen: set[str] = set()
    for root in roots:
        for path in _template_files(root, file_source, problems):
            real = canonicalize_path(path)
            if real in seen:
                continue
            seen.add(real)
            files.append(path)
            template = _load_template(path, root, file_source, problems)
            if template is None:
                continue
            winner = loaded.get(template.name)
            if winner is None:
                loaded[template.name] = template
            else:
                collisions.append(_collision(template, winner))
    return LoadTemplatesResult(tuple(loaded.values()), tuple(problems + collisions), tuple(files))


def _template_files(
    root: TemplateRoot, file_source: FileSource, problems: list[Finding]
) -> list[str]:
    path = os.path.abspath(root.path)
    if root.kind == "explicit":
        if file_source.is_file(path):
            if path.endswith(".md"):
                return [path]
            problems.append(
                Finding(
                    SourceRange(path),
                    "warning",
                    "template-path-not-markdown",
                    "This prompt template path is not a markdown (.md) file; Pi ignores it.",
                )
            )
            return []
        if not os.path.isdir(path):
            if not os.path.exists(path):
                problems.append(
                    Finding(
                        SourceRange(path),
                        "error",
                        "template-path-missing",
                        "This prompt template path does not exist.",
                        pi_message="Prompt template path does not exist",
                        data={"piType": "error"},
                    )
                )
            return []
    elif not os.path.isdir(path):
        return [path] if path.endswith(".md") and file_source.is_file(path) else []
    try:
        items = list_directory(path)
    except OSError as exc:
        problems.append(
            Finding(
                SourceRange(path),
                "warning",
                "template-directory-unreadable",
                f"Cannot list this prompts folder ({exc.strerror or exc}); Pi skips it silently.",
            )
        )
        return []
    rules = PiIgnoreRules()
    if root.kind == "auto":
        rules = rules.extended(path, "", {item.name for item in items}, file_source)
    found: list[str] = []
    for item in items:
        if root.kind == "auto":
            if item.name.startswith(".") or item.name == "node_modules":
                continue
            if rules.ignores(item.name, False):
                continue
        if item.is_file and item.name.endswith(".md"):
            found.append(item.path)
    return found


def _load_template(
    path: str, root: TemplateRoot, file_source: FileSource, problems: list[Finding]
) -> PromptTemplate | None:
    try:
        text = file_source.read_bytes(path).decode("utf-8", "replace")
    except OSError as exc:
        problems.append(
            Finding(
                SourceRange.line(path, 0),
                "warning",
                "template-read-error",
                f"Cannot read this prompt template ({exc.strerror or exc}); Pi skips it silently.",
            )
        )
        return None
    try:
        frontmatter = parse_frontmatter(text)
    except FrontmatterError as exc:
        problems.append(
            Finding(
                SourceRange.line(path, exc.line, exc.column, exc.column + 1),
                "warning",
                "template-invalid-frontmatter",
                f"The frontmatter is not valid YAML ({exc.problem}); Pi skips this template "
                "silently.",
            )
        )
        return None
    data = frontmatter.data
    raw_description = data.get("description")
    description_range: SourceRange | None = None
    if _js_truthy(raw_description):
        description = js_key(raw_description)
        span = frontmatter.fields.get("description")
        if span is not None:
            description_range = SourceRange(
                path, span.line, span.column, span.end_line, span.end_column
            )
    else:
        description = _first_line_description(frontmatter.body)
    hint = data.get("argument-hint")
    name = os.path.basename(path)
    if name.endswith(".md"):
        name = name[:-3]
    return PromptTemplate(
        name=name,
        description=description,
        content=frontmatter.body,
        file_path=path,
        argument_hint=js_key(hint) if _js_truthy(hint) else None,
        scope=root.scope,
        source=root.source,
        origin=root.origin,
        source_base_dir=root.base_dir,
        description_range=description_range,
        content_line=frontmatter.body_line,
    )


def _first_line_description(body: str) -> str:
    for line in body.split("\n"):
        if js_trim(line):
            cut = utf16_prefix(line, DESCRIPTION_FALLBACK_UNITS)
            return cut + "..." if utf16_len(line) > DESCRIPTION_FALLBACK_UNITS else cut
    return ""


def _js_truthy(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, str):
        return value != ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0 and not math.isnan(value)
    return True


def _collision(loser: PromptTemplate, winner: PromptTemplate) -> Finding:
    return name_collision_finding(
        loser,
        winner,
        resource_type="prompt",
        rule="template-name-collision",
        message=f'A prompt template "/{loser.name}" was already loaded from {winner.file_path}; '
        "this one is ignored.",
        related=f'the template "/{winner.name}" that is used',
        pi_name=f"/{loser.name}",
    )


# --- expansion ----------------------------------------------------------------------------------


def parse_command_args(text: str) -> list[str]:
    """Split ``text`` like a shell would, minus escapes (Pi's ``parseCommandArgs``).

    ``"…"`` and ``'…'`` group (the quotes are dropped, and an argument may continue across
    them), any whitespace separates, and empty arguments are dropped.
    """
    args: list[str] = []
    current: list[str] = []
    quote: str | None = None
    for char in text:
        if quote is not None:
            if char == quote:
                quote = None
            else:
                current.append(char)
        elif char in "\"'":
            quote = char
        elif is_js_space(char):
            if current:
                args.append("".join(current))
                current = []
        else:
            current.append(char)
    if current:
        args.append("".join(current))
    return args


#: the start of a placeholder; a default's text (``${1:-text}``) runs to the first ``}`` after
#: its opener, which :func:`substitute_args` finds by itself: a pattern ``[^}]*\}`` would rescan
#: the rest of the text from every opener left unclosed (quadratic)
_PLACEHOLDER = re.compile(
    r"\$\{([0-9]+|ARGUMENTS|@):-"
    r"|\$\{@:([0-9]+)(?::([0-9]+))?\}"
    r"|\$(ARGUMENTS|@|[0-9]+)"
)
#: a number of digits past which an index is beyond any argument list (JavaScript: Infinity)
_HUGE = 10**18


def _number(digits: str) -> int:
    return int(digits) if len(digits) <= 18 else _HUGE


class _ClosingBraces:
    """The first ``}`` at or after a position, for positions asked in increasing order.

    Each answer is remembered until the position passes it, and "none" is final, so all the
    questions of one pass cost one scan of the text.
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self._found = -1  # the last ``}`` found: the answer for any position up to it
        self._exhausted = False  # no ``}`` after the last position asked

    def after(self, position: int) -> int:
        """The index of the first ``}`` at or after ``position``; -1 if there is none."""
        if self._exhausted:
            return -1
        if self._found < position:
            self._found = self._text.find("}", position)
            self._exhausted = self._found == -1
        return self._found


def substitute_args(content: str, args: Sequence[str]) -> str:
    """Fill the placeholders of ``content`` from ``args`` in a single pass (``substituteArgs``)."""
    everything = " ".join(args)

    def positional(digits: str) -> str | None:
        index = _number(digits) - 1
        return args[index] if 0 <= index < len(args) else None

    closing = _ClosingBraces(content)
    pieces: list[str] = []
    done = 0  # content[:done] is in pieces
    position = 0
    while (found := _PLACEHOLDER.search(content, position)) is not None:
        target, slice_start, slice_length, simple = found.groups()
        end = found.end()
        if target is not None:
            close = closing.after(end)
            if close == -1:
                # an opener never closed is text; no other placeholder starts inside it
                position = end
                continue
            value = everything if target in ("@", "ARGUMENTS") else positional(target)
            replacement = value if value else content[end:close]
            end = close + 1
        elif slice_start is not None:
            start = max(_number(slice_start) - 1, 0)
            if slice_length is not None:
                replacement = " ".join(args[start : start + _number(slice_length)])
            else:
                replacement = " ".join(args[start:])
        elif simple in ("@", "ARGUMENTS"):
            replacement = everything
        else:
            replacement = positional(simple) or ""
        pieces.append(content[done : found.start()])
        pieces.append(replacement)
        done = position = end
    pieces.append(content[done:])
    return "".join(pieces)


_SPACE_CLASS = "[" + re.escape(JS_WHITESPACE) + "]"
_COMMAND = re.compile(rf"/([^{re.escape(JS_WHITESPACE)}]+)(?:{_SPACE_CLASS}+(.*))?", re.DOTALL)


def expand_prompt_template(text: str, templates: Sequence[PromptTemplate]) -> str:
    """``/name args`` expanded with the template ``name``; any other text unchanged."""
    if not text.startswith("/"):
        return text
    found = _COMMAND.fullmatch(text)
    if found is None:
        return text
    template = find_template(templates, found.group(1))
    if template is None:
        return text
    return substitute_args(template.content, parse_command_args(found.group(2) or ""))


@dataclass(frozen=True, slots=True)
class SkillCommandExpansion:
    """The result of a ``/skill:`` command: the text to send, the skill used, or an error.

    On an error (the skill file cannot be read or parsed any more) ``text`` is the original
    input, as in Pi, which reports the error as an extension error (``skill_expansion``).
    """

    text: str
    skill: Skill | None = None
    error: str | None = None


def expand_skill_command(
    text: str, skills: Sequence[Skill], file_source: FileSource = DISK
) -> SkillCommandExpansion:
    """Expand ``/skill:name args`` into Pi's ``<skill …>`` block (spec §6.6)."""
    if not text.startswith("/skill:"):
        return SkillCommandExpansion(text)
    space = text.find(" ")
    name = text[7:] if space == -1 else text[7:space]
    args = "" if space == -1 else js_trim(text[space + 1 :])
    skill = next((candidate for candidate in skills if candidate.name == name), None)
    if skill is None:
        return SkillCommandExpansion(text)
    try:
        raw = file_source.read_bytes(skill.file_path).decode("utf-8", "replace")
        body = js_trim(parse_frontmatter(raw).body)
    except OSError as exc:
        return SkillCommandExpansion(text, skill, node_error_text(exc, "open", skill.file_path))
    except FrontmatterError as exc:
        return SkillCommandExpansion(text, skill, exc.message)
    block = (
        f'<skill name="{skill.name}" location="{skill.file_path}">\n'
        f"References are relative to {skill.base_dir}.\n\n{body}\n</skill>"
    )
    return SkillCommandExpansion(f"{block}\n\n{args}" if args else block, skill)


@dataclass(frozen=True, slots=True)
class SkillBlock:
    """A ``<skill …>`` block read back from a user message."""

    name: str
    location: str
    content: str
    args: str | None


_SKILL_BLOCK = re.compile(
    r'<skill name="([^"]+)" location="([^"]+)">\n(.*?)\n</skill>(?:\n\n(.+))?', re.DOTALL
)


def parse_skill_block(text: str) -> SkillBlock | None:
    """The parts of a message produced by :func:`expand_skill_command`, if it is one."""
    found = _SKILL_BLOCK.fullmatch(text)
    if found is None:
        return None
    return SkillBlock(found.group(1), found.group(2), found.group(3), found.group(4))
