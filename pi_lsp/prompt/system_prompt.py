"""Building the system prompt as a document: its text, and where every part of it comes from.

The layout follows Pi 0.85.0 (spec §3.3, §6.5) byte for byte wherever a part is data — custom
prompt, appended text, ``<project_context>``, the skills list, the working-directory line. The
prose parts (role, tool lines, guidelines, the paragraph before the skills list) are pi-lsp's
own words, in ``default_text.py``.

Every region of the text is a :class:`PromptSpan` with a kind, an optional source range and
token counts, so an editor can link any line of the prompt back to the file it came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from pi_lsp.prompt import default_text
from pi_lsp.prompt.tokens import count_tokens, estimate_tokens
from pi_lsp.resources.model import SourceRange
from pi_lsp.resources.system_files import PromptText
from pi_lsp.tools.registry import DEFAULT_ACTIVE_TOOLS

#: The tools that can load a skill's file, in the order Pi prefers them.
SKILL_READING_TOOLS = ("read", "bash")


@dataclass(frozen=True, slots=True)
class PromptContextFile:
    path: str
    content: str


@dataclass(frozen=True, slots=True)
class PromptSkill:
    name: str
    description: str
    file_path: str
    visible: bool = True  # False for ``disable-model-invocation: true``
    source: SourceRange | None = None


@dataclass(frozen=True, slots=True)
class PromptInputs:
    cwd: str
    tools: tuple[str, ...] = DEFAULT_ACTIVE_TOOLS
    custom_prompt: PromptText | None = None
    append: tuple[PromptText, ...] = ()
    context_files: tuple[PromptContextFile, ...] = ()
    skills: tuple[PromptSkill, ...] = ()
    #: whether bash sees the agent's PI_* variables (adds a guideline, as Pi does)
    session_environment: bool = True


@dataclass(frozen=True, slots=True)
class PromptSpan:
    """One region of the prompt text: ``text[start:end]``."""

    start: int
    end: int
    kind: str
    source: SourceRange | None
    label: str = ""

    def to_json(self, text: str, tokens: int) -> dict[str, Any]:
        start_line = text.count("\n", 0, self.start)
        out: dict[str, Any] = {
            "kind": self.kind,
            "start": self.start,
            "end": self.end,
            "startLine": start_line,
            "endLine": start_line + text.count("\n", self.start, self.end),
            "tokens": tokens,
            "estimate": estimate_tokens(text[self.start : self.end]),
        }
        if self.label:
            out["label"] = self.label
        if self.source is not None:
            out["source"] = self.source.to_json()
        return out


@dataclass(frozen=True)
class PromptDocument:
    """The prompt text and its regions; token counts are computed when first asked for."""

    text: str
    spans: tuple[PromptSpan, ...]
    tools: tuple[str, ...]

    @cached_property
    def tokens(self) -> int:
        return count_tokens(self.text)

    @cached_property
    def estimate(self) -> int:
        return estimate_tokens(self.text)

    @cached_property
    def span_tokens(self) -> tuple[int, ...]:
        return tuple(count_tokens(self.text[s.start : s.end]) for s in self.spans)

    def tokens_by_kind(self) -> dict[str, int]:
        totals: dict[str, int] = {}
        for span, tokens in zip(self.spans, self.span_tokens, strict=True):
            totals[span.kind] = totals.get(span.kind, 0) + tokens
        return totals

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tools": list(self.tools),
            "tokens": self.tokens,
            "estimate": self.estimate,
            "tokenizer": "cl100k_base",
            "tokensByKind": self.tokens_by_kind(),
            "spans": [
                span.to_json(self.text, tokens)
                for span, tokens in zip(self.spans, self.span_tokens, strict=True)
            ],
        }


class _Writer:
    """Appends text region by region, recording a span for each."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._spans: list[tuple[int, int, str, SourceRange | None, str]] = []
        self._length = 0

    def add(self, text: str, kind: str, source: SourceRange | None = None, label: str = "") -> None:
        if not text:
            return
        self._parts.append(text)
        self._spans.append((self._length, self._length + len(text), kind, source, label))
        self._length += len(text)

    def finish(self, tools: tuple[str, ...]) -> PromptDocument:
        spans = tuple(PromptSpan(*span) for span in self._spans)
        return PromptDocument("".join(self._parts), spans, tools)


def skill_reading_tool(tools: Sequence[str]) -> str | None:
    """The first tool able to load a skill file, if any is active."""
    return next((t for t in SKILL_READING_TOOLS if t in tools), None)


def _escape_xml(value: str) -> str:
    return (
        value.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


def build_skill_entry(name: str, description: str, file_path: str) -> str:
    """One skill's entry in ``<available_skills>`` (without the final newline)."""
    return (
        "  <skill>\n"
        f"    <name>{_escape_xml(name)}</name>\n"
        f"    <description>{_escape_xml(description)}</description>\n"
        f"    <location>{_escape_xml(file_path)}</location>\n"
        "  </skill>"
    )


def _write_project_context(out: _Writer, files: Sequence[PromptContextFile]) -> None:
    if not files:
        return
    out.add(
        "\n\n<project_context>\n\nProject-specific instructions and guidelines:\n\n",
        "context-wrapper",
    )
    for file in files:
        out.add(f'<project_instructions path="{file.path}">\n', "context-wrapper", label=file.path)
        out.add(
            file.content,
            "context-file",
            SourceRange.whole_text(file.path, file.content),
            label=file.path,
        )
        out.add("\n</project_instructions>\n\n", "context-wrapper", label=file.path)
    out.add("</project_context>\n", "context-wrapper")


def _write_skills(out: _Writer, skills: Sequence[PromptSkill], reader: str | None) -> None:
    visible = [s for s in skills if s.visible]
    if reader is None or not visible:
        return
    out.add(f"\n\n{default_text.skills_preamble(reader)}\n\n<available_skills>\n", "skills")
    for skill in visible:
        entry = build_skill_entry(skill.name, skill.description, skill.file_path) + "\n"
        out.add(entry, "skill", skill.source or SourceRange(skill.file_path), label=skill.name)
    out.add("</available_skills>", "skills")


def _write_default_head(out: _Writer, inputs: PromptInputs) -> None:
    out.add(default_text.ROLE, "role")
    out.add(default_text.tools_section(inputs.tools), "tools")
    out.add(default_text.guidelines_section(inputs.tools, inputs.session_environment), "guidelines")


def build_system_prompt(inputs: PromptInputs) -> PromptDocument:
    """The system prompt Pi would send for these inputs, as a :class:`PromptDocument`."""
    out = _Writer()
    prompt_cwd = inputs.cwd.replace("\\", "/")
    custom = inputs.custom_prompt
    if custom is not None and custom.text:
        out.add(custom.text, "custom-prompt", custom.where)
    else:
        _write_default_head(out, inputs)
    if "\n\n".join(piece.text for piece in inputs.append):
        out.add("\n\n", "append")
        for index, piece in enumerate(inputs.append):
            if index:
                out.add("\n\n", "append")
            out.add(piece.text, "append", piece.where)
    _write_project_context(out, inputs.context_files)
    _write_skills(out, inputs.skills, skill_reading_tool(inputs.tools))
    cwd_line = f"\nCurrent working directory: {prompt_cwd}"
    if custom is not None and custom.text:
        cwd_line += "\n"
    out.add(cwd_line, "cwd")
    return out.finish(inputs.tools)
