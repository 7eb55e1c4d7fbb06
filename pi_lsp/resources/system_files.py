"""The replacement and appended system prompts (spec §3.2).

``--system-prompt`` wins; otherwise ``<cwd>/.pi/SYSTEM.md`` when the project is trusted, else
``<agentDir>/SYSTEM.md``. ``--append-system-prompt`` values (any number) replace discovery of
``APPEND_SYSTEM.md``, looked up the same way. Only the cwd's own ``.pi`` counts, never an
ancestor's. A value naming an existing path is replaced by the file's text (BOM removed);
otherwise the value itself is the text. File-backed values keep their source path.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pi_lsp.resources.agent_dir import (
    decode_text,
    node_error_text,
    offset_to_position,
    resolve_path,
)
from pi_lsp.resources.file_source import DISK, FileSource
from pi_lsp.resources.layout import CONFIG_DIR_NAME
from pi_lsp.resources.model import Finding, SourceRange

SYSTEM_FILE_NAME = "SYSTEM.md"
APPEND_SYSTEM_FILE_NAME = "APPEND_SYSTEM.md"

PromptOrigin = Literal["cli", "project", "global"]
PromptKind = Literal["system prompt", "append system prompt"]


@dataclass(frozen=True, slots=True)
class PromptText:
    """One system-prompt or append value: its text and, when it came from a file, that file."""

    text: str
    origin: PromptOrigin = "cli"
    source_path: str | None = None
    had_bom: bool = False
    version: object = None

    @property
    def where(self) -> SourceRange | None:
        if self.source_path is None:
            return None
        return SourceRange.whole_text(self.source_path, self.text)


@dataclass(frozen=True, slots=True)
class SystemPrompts:
    """The custom prompt (``None``: the default prompt is built) and the append values."""

    system_prompt: PromptText | None
    append: tuple[PromptText, ...]
    findings: tuple[Finding, ...] = ()

    @property
    def append_text(self) -> str:
        """The appends as the session joins them (a blank line between values)."""
        return "\n\n".join(part.text for part in self.append)

    @property
    def system_prompt_source(self) -> str | None:
        return None if self.system_prompt is None else self.system_prompt.source_path

    @property
    def append_sources(self) -> tuple[str, ...]:
        return tuple(p.source_path for p in self.append if p.source_path is not None)


def _exists(path: str, source: FileSource) -> bool:
    return source.is_file(path) or os.path.exists(path)


def discover_prompt_file(
    name: str, cwd: str, agent_dir: str, *, project_trusted: bool, source: FileSource = DISK
) -> tuple[str, PromptOrigin] | None:
    """Where ``name`` (``SYSTEM.md`` or ``APPEND_SYSTEM.md``) is found, if anywhere."""
    project = os.path.join(resolve_path(cwd), CONFIG_DIR_NAME, name)
    if project_trusted and _exists(project, source):
        return project, "project"
    global_path = os.path.join(resolve_path(agent_dir), name)
    if _exists(global_path, source):
        return global_path, "global"
    return None


def resolve_prompt_input(
    value: str,
    origin: PromptOrigin,
    kind: PromptKind,
    *,
    cwd: str,
    source: FileSource = DISK,
) -> tuple[PromptText | None, tuple[Finding, ...]]:
    """Pi's ``resolvePromptInput``: empty → nothing; an existing path → its text (a read error
    leaves the value itself as the text); anything else → the value as text."""
    if not value:
        return None, ()
    path = value if os.path.isabs(value) else os.path.join(cwd, value)
    if not _exists(path, source):
        return PromptText(value, origin), ()
    source_path = resolve_path(value, cwd)
    version = source.version(path)
    try:
        raw = source.read_bytes(path)
    except OSError as error:
        finding = Finding(
            SourceRange(source_path),
            "warning",
            "system-prompt-unreadable",
            f"Cannot read the {kind} file {value} ({error.strerror or error}); the value "
            "itself is used as the text",
            pi_message=f"Warning: Could not read {kind} file {value}: "
            f"Error: {node_error_text(error, 'open', value)}",
        )
        return PromptText(value, origin, source_path, version=version), (finding,)
    text, had_bom, first_bad = decode_text(raw)
    findings: tuple[Finding, ...] = ()
    if first_bad is not None:
        line, column = offset_to_position(text, first_bad)
        findings = (
            Finding(
                SourceRange(source_path, line, column, line, column + 1),
                "warning",
                "system-prompt-invalid-utf8",
                f"The {kind} file is not valid UTF-8; invalid bytes are read as U+FFFD",
            ),
        )
    return PromptText(text, origin, source_path, had_bom, version), findings


def load_system_prompts(
    cwd: str,
    agent_dir: str,
    *,
    project_trusted: bool,
    system_prompt: str | None = None,
    append_system_prompt: Sequence[str] | None = None,
    source: FileSource = DISK,
) -> SystemPrompts:
    """Resolve the custom system prompt and the append values as Pi's resource loader does.

    ``system_prompt`` / ``append_system_prompt`` are the CLI values (``None``: not given).
    Relative paths among them are taken relative to ``cwd``.
    """
    resolved_cwd = resolve_path(cwd)
    findings: list[Finding] = []

    prompt: PromptText | None = None
    if system_prompt is not None:
        prompt, problems = resolve_prompt_input(
            system_prompt, "cli", "system prompt", cwd=resolved_cwd, source=source
        )
        findings.extend(problems)
    else:
        found = discover_prompt_file(
            SYSTEM_FILE_NAME, cwd, agent_dir, project_trusted=project_trusted, source=source
        )
        if found is not None:
            prompt, problems = resolve_prompt_input(
                found[0], found[1], "system prompt", cwd=resolved_cwd, source=source
            )
            findings.extend(problems)

    values: list[tuple[str, PromptOrigin]]
    if append_system_prompt is not None:
        values = [(value, "cli") for value in append_system_prompt]
    else:
        found = discover_prompt_file(
            APPEND_SYSTEM_FILE_NAME,
            cwd,
            agent_dir,
            project_trusted=project_trusted,
            source=source,
        )
        values = [] if found is None else [found]
    appends: list[PromptText] = []
    for value, origin in values:
        part, problems = resolve_prompt_input(
            value, origin, "append system prompt", cwd=resolved_cwd, source=source
        )
        findings.extend(problems)
        if part is not None:
            appends.append(part)
    return SystemPrompts(prompt, tuple(appends), tuple(findings))
