"""pi-lsp's own wording of the default system prompt (role, tool lines, guidelines, skills intro).

Pi's default prompt has the same parts in the same order (spec §3.3); the words here are
pi-lsp's. Only the labels that structure the prompt are shared.
"""

from __future__ import annotations

from collections.abc import Sequence

ROLE = (
    "You are a senior software engineer acting as a coding agent inside the user's project. "
    "You work by looking at files, running commands and changing code, one careful step at a time."
)

#: One line per built-in tool for the "Available tools" list.
TOOL_LINES = {
    "read": "Show a file's text, or an image",
    "bash": "Run a shell command in the project (git, tests, builds, rg, find, ls)",
    "edit": "Replace exact snippets of a file; several separate replacements can go in one call",
    "write": "Create a file, or replace a file's whole content",
    "grep": "Search file contents with a regular expression (skips what .gitignore excludes)",
    "find": "List files whose paths match a glob (skips what .gitignore excludes)",
    "ls": "List the entries of a folder",
}

#: Extra guideline bullets that come with a tool when it is active.
TOOL_GUIDELINES: dict[str, tuple[str, ...]] = {
    "read": ("Look at files with read rather than cat, head or sed.",),
    "edit": (
        "Copy each edits[].oldText character for character from the file, and make it unique.",
        "Change one file in one edit call: list every replacement in edits[]; each is located "
        "in the original text, so they must not overlap.",
        "Keep each oldText as short as it can be while staying unique; do not pad it with "
        "unchanged lines.",
    ),
    "write": ("Use write for new files or complete rewrites; use edit for changes.",),
}
SESSION_ENVIRONMENT_GUIDELINE = (
    "Variables named PI_* in bash tell which model and session you are running in."
)
EXPLORE_WITH_BASH = "Explore files with bash: rg to search, find to locate, ls to list."
CLOSING_GUIDELINES = (
    "Keep answers short and to the point.",
    "Name files by their paths when you talk about them.",
)
OTHER_TOOLS = "A project may add tools of its own; they are listed with their descriptions."


def tools_section(tools: Sequence[str]) -> str:
    lines = [f"- {name}: {TOOL_LINES[name]}" for name in tools if name in TOOL_LINES]
    listing = "\n".join(lines) if lines else "(none)"
    return f"\n\nAvailable tools:\n{listing}\n\n{OTHER_TOOLS}"


def guidelines(tools: Sequence[str], session_environment: bool) -> list[str]:
    bullets: list[str] = []
    if "bash" in tools and not {"grep", "find", "ls"} & set(tools):
        bullets.append(EXPLORE_WITH_BASH)
    for name in tools:
        bullets.extend(TOOL_GUIDELINES.get(name, ()))
        if name == "bash" and session_environment:
            bullets.append(SESSION_ENVIRONMENT_GUIDELINE)
    bullets.extend(CLOSING_GUIDELINES)
    return list(dict.fromkeys(bullets))


def guidelines_section(tools: Sequence[str], session_environment: bool) -> str:
    bullets = "\n".join(f"- {b}" for b in guidelines(tools, session_environment))
    return f"\n\nGuidelines:\n{bullets}"


def skills_preamble(reader: str) -> str:
    """The paragraph before ``<available_skills>``, worded for the tool that loads a skill."""
    how = "open its file with read" if reader == "read" else "print its file with bash (cat)"
    return (
        "Skills are files of instructions for particular kinds of task. When a task matches a "
        f"skill's description, {how} before you start. Paths written inside a skill file are "
        "relative to that skill's folder: make them absolute before using them in a tool call."
    )
