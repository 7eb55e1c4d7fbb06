"""Hover: the resolved instruction order on a context file; a skill as the model sees it.

* On a context file (``AGENTS.md``, ``CLAUDE.md``, …): its place in the instruction order of
  its folder.
* On the ``name:`` line of a skill file (the first line when there is no ``name:`` key): the
  skill's ``<available_skills>`` entry, which skills of the same name it beats or which one
  beats it, and why Pi does not load it when it does not (an untrusted project, a collision, a
  missing description).
* On a ``/skill:name`` reference in any Markdown file: the skill that command loads.

A skill belongs to a working directory: a project skill (``<project>/.pi/skills``,
``<project>/.agents/skills``) to its project folder, where Pi loads it; any other skill (the
agent dir's, ``~/.agents/skills``, a settings entry) to the workspace root.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

from lsprotocol import types

from pi_lsp.prompt.system_prompt import build_skill_entry
from pi_lsp.prompt.tokens import count_tokens
from pi_lsp.resources.agent_dir import home_dir, resolve_agent_dir
from pi_lsp.resources.context_files import CONTEXT_FILE_NAMES, loaded_as
from pi_lsp.resources.layout import AGENTS_DIR_NAME, PROJECT_DIR_NAMES, SKILLS_DIR_NAME
from pi_lsp.resources.loader import Resources
from pi_lsp.resources.shown_paths import shown_path
from pi_lsp.resources.skills import Skill
from pi_lsp.server.convert import code_point_column, path_of, utf16_column
from pi_lsp.server.features.completion import frontmatter_keys, frontmatter_lines, is_skill_file
from pi_lsp.server.features.navigation import ordinal
from pi_lsp.server.language_server import PiLanguageServer

if TYPE_CHECKING:
    from pi_lsp.server.state import WorkspaceState

COLLISION = "skill-name-collision"
_SKILL_COMMAND = re.compile(r"/skill:([^\s`'\"()\[\]<>]+)")


@dataclass(frozen=True, slots=True)
class HoverText:
    """Markdown to show, and the (line, code-point start, end) it is about."""

    value: str
    line: int | None = None
    start: int = 0
    end: int = 0


# --- where a file belongs ---------------------------------------------------------------------


def _same_path(a: str, b: str) -> bool:
    return a == b or os.path.realpath(a) == os.path.realpath(b)


def _inside(path: str, folder: str) -> bool:
    return os.path.realpath(path).startswith(os.path.realpath(folder).rstrip(os.sep) + os.sep)


def project_of(path: str, agent_dir: str, home: str) -> str | None:
    """The project a resource file belongs to (the folder holding its ``.pi`` or ``.agents``
    folder), or ``None`` for the user's own resources and files outside such folders."""
    if _inside(path, agent_dir) or _inside(path, os.path.join(home, AGENTS_DIR_NAME)):
        return None
    folder = os.path.dirname(path)
    while True:
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        if os.path.basename(folder) in PROJECT_DIR_NAMES:
            return parent
        folder = parent


def _agent_dir(state: WorkspaceState) -> str:
    return resolve_agent_dir(state.settings.agent_dir, home=home_dir())


def resource_cwd(state: WorkspaceState, path: str) -> str:
    """The working directory whose resources decide about the file ``path``."""
    project = project_of(path, _agent_dir(state), home_dir())
    if project is not None:
        return project
    if os.path.basename(path) in CONTEXT_FILE_NAMES:
        return state.cwd_for(path)
    return state.root


def _is_project_skill_path(path: str) -> bool:
    """Under ``.pi/skills`` or ``.agents/skills``: where only a trusted project's skills load."""
    parts = os.path.dirname(path).split(os.sep)
    return any(a in PROJECT_DIR_NAMES and b == SKILLS_DIR_NAME for a, b in pairwise(parts))


# --- what the hover says ----------------------------------------------------------------------


def _collisions(resources: Resources, side: str, path: str) -> list[dict[str, object]]:
    return [
        f.data
        for f in resources.findings
        if f.rule == COLLISION
        and isinstance(f.data.get(side), str)
        and _same_path(str(f.data[side]), path)
    ]


def _untrusted_note(resources: Resources) -> str | None:
    trust = resources.trust
    if trust.trusted or not trust.requirements:
        return None
    return (
        f"The skills of the project `{resources.cwd}` are not loaded: it is not trusted "
        f"({trust.reason}). None of them compete for this name."
    )


def _entry_lines(skill: Skill, resources: Resources) -> list[str]:
    entry = build_skill_entry(skill.name, skill.description, skill.file_path)
    lines = [
        f"**Skill `{skill.name}`** as the model sees it (working directory `{resources.cwd}`):",
        "",
        "```xml",
        entry,
        "```",
    ]
    if not skill.visible:
        lines += [
            "",
            "Hidden from the model (`disable-model-invocation: true`): only "
            f"`/skill:{skill.name}` loads it.",
        ]
    return lines


def _beats_lines(resources: Resources, path: str) -> list[str]:
    losers = [str(data["loserPath"]) for data in _collisions(resources, "winnerPath", path)]
    if not losers:
        return []
    lines = ["", "Wins over these skills of the same name (Pi ignores them):"]
    lines += [f"- `{loser}`" for loser in losers]
    return lines


def skill_file_text(state: WorkspaceState, path: str) -> str | None:
    """What Pi makes of the skill file ``path``: its entry and collisions, or why it does not
    load it. ``None`` for a Markdown file that is no skill."""
    resources = state.snapshot(resource_cwd(state, path))
    skill = next((s for s in resources.skills if _same_path(s.file_path, path)), None)
    if skill is not None:
        lines = _entry_lines(skill, resources) + _beats_lines(resources, path)
        note = _untrusted_note(resources) if skill.scope != "project" else None
        if note:
            lines += ["", note]
        return "\n".join(lines)
    beaten = _collisions(resources, "loserPath", path)
    if beaten:
        winner_path = str(beaten[0]["winnerPath"])
        name = beaten[0].get("name")
        lines = [
            f"Pi does not load this skill: the skill of the same name in `{winner_path}` wins "
            f"(Pi finds it first; working directory `{resources.cwd}`).",
        ]
        winner = next((s for s in resources.skills if _same_path(s.file_path, winner_path)), None)
        if winner is not None:
            lines += ["", f"The model and `/skill:{name}` get that skill:", ""]
            lines += ["```xml", build_skill_entry(winner.name, winner.description, winner_path)]
            lines += ["```"]
        return "\n".join(lines)
    if is_skill_file(path) and _is_project_skill_path(path) and not resources.trust.trusted:
        return (
            f"Pi does not load this skill: the project `{resources.cwd}` is not trusted "
            f"({resources.trust.reason}), so its skills are not read. Trust the project to "
            "load them."
        )
    problems = [
        f.message
        for f in resources.findings
        if f.rule.startswith("skill-")
        and _same_path(f.where.path, path)
        and f.severity in ("error", "warning")
    ]
    if any(_same_path(p, path) for p in resources.skill_load.files) and problems:
        return "\n".join(["Pi does not load this skill:", "", *(f"- {p}" for p in problems)])
    if is_skill_file(path):
        return (
            f"Pi does not find this skill from `{resources.cwd}`: it is not in a folder Pi reads "
            "skills from (`.pi/skills`, `.agents/skills`, the agent dir's `skills`, "
            "`~/.agents/skills`, or a `skills` entry of the settings)."
        )
    return None


def skill_command_text(state: WorkspaceState, path: str, name: str) -> str:
    """What ``/skill:name``, written in the file ``path``, loads."""
    resources = state.snapshot(resource_cwd(state, path))
    skill = next((s for s in resources.skills if s.name == name), None)
    if skill is None:
        lines = [f"No skill named `{name}` is loaded for `{resources.cwd}`."]
        trust = resources.trust
        if not trust.trusted and trust.requirements:
            lines += [
                "",
                f"The project's own skills are not loaded: it is not trusted ({trust.reason}).",
            ]
        return "\n".join(lines)
    lines = [f"`/skill:{name}` loads `{skill.file_path}`.", ""]
    lines += _entry_lines(skill, resources) + _beats_lines(resources, skill.file_path)
    return "\n".join(lines)


def skill_name_line(text: str) -> int:
    """The line of the frontmatter's ``name:`` key; else the file's first line."""
    lines = text.split("\n")
    block = frontmatter_lines(lines)
    if block is None:
        return 0
    return frontmatter_keys(lines, block).get("name", 0)


def skill_command_at(line_text: str, column: int) -> tuple[str, int, int] | None:
    """The ``/skill:name`` reference around code-point ``column``: (name, start, end)."""
    for match in _SKILL_COMMAND.finditer(line_text):
        name = match.group(1).rstrip(".,;:!?")
        end = match.start(1) + len(name)
        if name and match.start() <= column <= end:
            return name, match.start(), end
    return None


def context_hover_text(state: WorkspaceState, path: str) -> str:
    """The numbered instruction order for the folder of ``path``, this file marked."""
    folder = os.path.dirname(path)
    inside = folder == state.root or folder.startswith(state.root.rstrip(os.sep) + os.sep)
    resources = state.snapshot(state.cwd_for(path) if inside else state.root)
    files = resources.context_files.files
    prompt_tokens = state.prompt(resources.cwd).tokens
    home = home_dir()

    def shown(file_path: str) -> str:
        return shown_path(file_path, state.root, home)

    loaded = loaded_as(files, path)
    lines = [f"**Instruction order for `{shown(resources.cwd)}`** (as Pi builds the prompt)", ""]
    for index, file in enumerate(files, 1):
        tokens = count_tokens(file.content)
        share = tokens / prompt_tokens if prompt_tokens else 0
        mark = "**" if file is loaded else ""
        here = ""
        if file is loaded:
            link = os.path.basename(path)
            here = " ← this file" if file.path == path else f" ← this file (`{link}` links to it)"
        lines.append(
            f"{index}. {mark}`{shown(file.path)}`{mark}{here} — {tokens} tokens "
            f"({share:.0%} of the prompt)"
        )
    if loaded is None:
        winner = next((f for f in files if path in f.shadows), None)
        lines += [
            "",
            f"Pi does not read this file: `{shown(winner.path)}` wins."
            if winner is not None
            else f"Pi does not read this file from `{shown(resources.cwd)}`.",
        ]
    elif loaded.shadows:
        shadowed = ", ".join(f"`{os.path.basename(s)}`" for s in loaded.shadows)
        lines += ["", f"Shadows {shadowed} in the same folder (Pi never reads them)."]
    elsewhere = _other_working_directories(state, loaded.path if loaded else path, resources.cwd)
    if elsewhere:
        lines += ["", "Also in the prompt of:"]
        lines += [
            f"- `{shown(cwd)}` ({ordinal(index)} of {total})" for cwd, index, total in elsewhere
        ]
    return "\n".join(lines)


def _other_working_directories(
    state: WorkspaceState, path: str, shown: str
) -> list[tuple[str, int, int]]:
    """The other working directories whose prompt reads ``path``: (cwd, place, of how many)."""
    found = []
    for cwd, resources in sorted(state.snapshots.items()):
        if cwd == shown:
            continue
        paths = resources.context_files.paths
        if path in paths:
            found.append((cwd, list(paths).index(path) + 1, len(paths)))
    return found


def hover_at(state: WorkspaceState, path: str, line: int, column: int) -> HoverText | None:
    """The hover for code-point position (``line``, ``column``) of the file ``path``."""
    if not path.lower().endswith(".md"):
        return None
    text = state.text_of(path) or ""
    lines = text.split("\n")
    line_text = lines[line].removesuffix("\r") if 0 <= line < len(lines) else ""
    command = skill_command_at(line_text, column)
    if command is not None:
        name, start, end = command
        return HoverText(skill_command_text(state, path, name), line, start, end)
    if os.path.basename(path) in CONTEXT_FILE_NAMES:
        return HoverText(context_hover_text(state, path))
    if line != skill_name_line(text):
        return None
    value = skill_file_text(state, path)
    return HoverText(value, line, 0, len(line_text)) if value is not None else None


def register(server: PiLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: PiLanguageServer, params: types.HoverParams) -> types.Hover | None:
        path = path_of(params.text_document.uri)
        line = params.position.line
        lines = (ls.state.text_of(path) or "").split("\n")
        line_text = lines[line] if 0 <= line < len(lines) else ""
        column = code_point_column(line_text, params.position.character)
        found = hover_at(ls.state, path, line, column)
        if found is None:
            return None
        where = None
        if found.line is not None:
            where = types.Range(
                types.Position(found.line, utf16_column(line_text, found.start)),
                types.Position(found.line, utf16_column(line_text, found.end)),
            )
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=found.value),
            range=where,
        )


def skill_hover_text(state: WorkspaceState, path: str) -> str | None:
    """What Pi makes of the skill file ``path`` (see :func:`skill_file_text`)."""
    return skill_file_text(state, path)
