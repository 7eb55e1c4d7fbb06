"""Hover: the resolved instruction order on a context file; a skill as the model sees it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lsprotocol import types

from pi_lsp.prompt.assemble import build_prompt
from pi_lsp.prompt.system_prompt import build_skill_entry
from pi_lsp.prompt.tokens import count_tokens
from pi_lsp.resources.context_files import CONTEXT_FILE_NAMES
from pi_lsp.server.convert import path_of
from pi_lsp.server.language_server import PiLanguageServer

if TYPE_CHECKING:
    from pi_lsp.server.state import WorkspaceState


def skill_hover_text(state: WorkspaceState, path: str) -> str | None:
    """How a skill file appears to the model, and whether another skill beats it."""
    resources = state.snapshot(state.root)
    skill = next((s for s in resources.skills if s.file_path == path), None)
    beaten_by = next(
        (
            f.data.get("winnerPath")
            for f in resources.findings
            if f.rule == "skill-name-collision" and f.data.get("loserPath") == path
        ),
        None,
    )
    if skill is None and beaten_by is None:
        return None
    if skill is None:
        return f"Pi does not load this skill: a skill of the same name in `{beaten_by}` wins."
    entry = build_skill_entry(skill.name, skill.description, skill.file_path)
    lines = [f"**Skill `{skill.name}`** as the model sees it:", "", "```xml", entry, "```"]
    if not skill.visible:
        lines += [
            "",
            "Hidden from the model (`disable-model-invocation: true`): only "
            f"`/skill:{skill.name}` loads it.",
        ]
    return "\n".join(lines)


def context_hover_text(state: WorkspaceState, path: str) -> str:
    """The numbered instruction order for the folder of ``path``, this file marked."""
    resources = state.snapshot(state.cwd_for(path))
    files = resources.context_files.files
    prompt_tokens = build_prompt(resources).tokens
    lines = [f"**Instruction order for `{resources.cwd}`** (as Pi builds the prompt)", ""]
    for index, file in enumerate(files, 1):
        tokens = count_tokens(file.content)
        share = tokens / prompt_tokens if prompt_tokens else 0
        mark = "**" if file.path == path else ""
        here = " ← this file" if file.path == path else ""
        lines.append(
            f"{index}. {mark}`{file.path}`{mark}{here} — {tokens} tokens "
            f"({share:.0%} of the prompt)"
        )
    loaded = next((f for f in files if f.path == path), None)
    if loaded is None:
        winner = next((f for f in files if path in f.shadows), None)
        lines += ["", f"Pi does not read this file: `{winner.path if winner else '?'}` wins."]
    elif loaded.shadows:
        shadowed = ", ".join(f"`{os.path.basename(s)}`" for s in loaded.shadows)
        lines += ["", f"Shadows {shadowed} in the same folder (Pi never reads them)."]
    return "\n".join(lines)


def hover_text(state: WorkspaceState, path: str) -> str | None:
    if os.path.basename(path) in CONTEXT_FILE_NAMES:
        return context_hover_text(state, path)
    if path.endswith(".md"):
        return skill_hover_text(state, path)
    return None


def register(server: PiLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: PiLanguageServer, params: types.HoverParams) -> types.Hover | None:
        text = hover_text(ls.state, path_of(params.text_document.uri))
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))
