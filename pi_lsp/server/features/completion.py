"""Completion in the YAML frontmatter of a skill file: its keys, and values where they are known.

Keys come from the engine's list of the fields Pi, the Agent Skills spec and Claude Code read
(:data:`pi_lsp.lint.checks.KNOWN_SKILL_FIELDS`, the same list the ``skill-unknown-field`` check
uses); keys already in the block are not offered again. Values are offered for the boolean
fields (``true``/``false``) and for ``name`` (the folder's name, which the spec asks for).
Nothing is offered outside the frontmatter.

The frontmatter is found as Pi finds it: the file starts with ``---`` and the block ends at the
next line that starts with ``---``. While a new file has no closing line yet, every line after
the opening one counts as inside, so keys can be completed as the block is written.
"""

from __future__ import annotations

import os
import re

from lsprotocol import types

from pi_lsp.lint.checks import KNOWN_SKILL_FIELDS
from pi_lsp.resources.layout import SKILLS_DIR_NAME
from pi_lsp.server.convert import code_point_column, path_of, utf16_column
from pi_lsp.server.language_server import PiLanguageServer

#: What each field does, in pi-lsp's words: (who reads it, documentation).
FIELD_DOCS: dict[str, tuple[str, str]] = {
    "name": (
        "Pi · Agent Skills",
        "The skill's name: lowercase letters `a-z`, digits and hyphens, at most 64 characters, "
        "no hyphen at either end or twice in a row. The Agent Skills spec asks for the name of "
        "the skill's folder; without this key Pi takes the folder's name. The user loads the "
        "skill with `/skill:<name>`, and the first skill of a name wins.",
    ),
    "description": (
        "Pi · Agent Skills · required",
        "What the skill does and when to use it, at most 1024 characters. It is the only part "
        "of the skill the model sees before it reads the file, so it decides whether the skill "
        "is ever used. Pi does not load a skill without one.",
    ),
    "disable-model-invocation": (
        "Pi · Claude Code",
        "`true` keeps the skill out of the `<available_skills>` list in the system prompt: the "
        "model does not know about it, and only `/skill:<name>` loads it. Any other value "
        '(including the string `"true"`) leaves the skill visible.',
    ),
    "license": (
        "Agent Skills",
        "The license the skill is shared under: a license name, or the name of a license file "
        "kept with the skill. Pi does not read it.",
    ),
    "compatibility": (
        "Agent Skills",
        "What the skill needs to work: an agent product, system packages, network access. At "
        "most 500 characters; most skills leave it out. Pi does not read it.",
    ),
    "metadata": (
        "Agent Skills",
        "A mapping of further string keys and values (author, version, …) for tools that want "
        "them. Pi does not read it.",
    ),
    "allowed-tools": (
        "Agent Skills (experimental) · Claude Code",
        "Tools the skill may use without asking, as a space-separated list such as "
        "`Bash(git:*) Read`. Support differs between agents; Pi does not read it.",
    ),
    "user-invocable": (
        "Claude Code",
        "`false` takes the skill out of Claude Code's slash-command menu while the model can "
        "still use it. Pi does not read it.",
    ),
    "argument-hint": (
        "Claude Code",
        "The hint Claude Code shows for the arguments of the slash command, such as "
        "`[issue-number]`. Pi does not read it.",
    ),
    "model": (
        "Claude Code",
        "The model Claude Code switches to while the skill runs. Pi does not read it.",
    ),
    "context": (
        "Claude Code",
        "`fork` makes Claude Code run the skill in a sub-agent with a context of its own. Pi "
        "does not read it.",
    ),
    "agent": (
        "Claude Code",
        "Which sub-agent type runs the skill when `context` is `fork`. Pi does not read it.",
    ),
    "hooks": (
        "Claude Code",
        "Hooks that apply only while the skill is active. Pi does not read it.",
    ),
    "version": (
        "other agents",
        "A version of the skill for its authors and tools. Neither Pi nor the Agent Skills spec "
        "give it a meaning (the spec keeps such data under `metadata`).",
    ),
}

#: Keys listed first, in this order; the others follow alphabetically.
LEADING_FIELDS = ("name", "description", "disable-model-invocation")
#: The boolean fields, with what ``true`` and ``false`` do.
BOOLEAN_VALUES: dict[str, tuple[str, str]] = {
    "disable-model-invocation": (
        "Hide the skill from the model; only `/skill:<name>` loads it.",
        "The default: the model sees the skill and may load it.",
    ),
    "user-invocable": (
        "The default: the skill is in Claude Code's slash-command menu.",
        "Take the skill out of Claude Code's slash-command menu.",
    ),
}
MAPPING_FIELDS = frozenset({"metadata", "hooks"})
#: VS Code turns quick suggestions off for Markdown, so typing a key's first letters (or the
#: space after its colon) asks for completion; everywhere else the answer is an empty one.
TRIGGER_CHARACTERS = [*"abcdefghijklmnopqrstuvwxyz", "-", ":", " "]

_KEY_LINE = re.compile(r"([A-Za-z0-9_-]+)[ \t]*:(?:[ \t]|$)")
_KEY_PREFIX = re.compile(r"[A-Za-z0-9_-]*")
_VALUE_PREFIX = re.compile(r"([A-Za-z0-9_-]+)[ \t]*:[ \t]*(\S*)")


def is_skill_file(path: str) -> bool:
    """``SKILL.md``, or a Markdown file right in a ``skills`` folder (Pi's flat
    ``.pi/skills/x.md``): files that can only be meant as skills."""
    return os.path.basename(path) == "SKILL.md" or (
        path.endswith(".md") and os.path.basename(os.path.dirname(path)) == SKILLS_DIR_NAME
    )


def frontmatter_lines(lines: list[str]) -> tuple[int, int] | None:
    """The lines of the opening and closing ``---`` (closing: ``len(lines)`` while unclosed)."""
    if not lines or not lines[0].removeprefix("\ufeff").startswith("---"):
        return None
    for index in range(1, len(lines)):
        if lines[index].startswith("---"):
            return 0, index
    return 0, len(lines)


def frontmatter_keys(lines: list[str], block: tuple[int, int], skip: int = -1) -> dict[str, int]:
    """The top-level keys of the block and their lines (but not the key on line ``skip``)."""
    keys: dict[str, int] = {}
    for index in range(block[0] + 1, min(block[1], len(lines))):
        match = _KEY_LINE.match(lines[index])
        if match and index != skip:
            keys.setdefault(match.group(1), index)
    return keys


def _order(key: str) -> str:
    if key in LEADING_FIELDS:
        return f"0{LEADING_FIELDS.index(key)}"
    return f"1{key}"


def _range(line: int, text: str, start: int, end: int) -> types.Range:
    return types.Range(
        types.Position(line, utf16_column(text, start)),
        types.Position(line, utf16_column(text, end)),
    )


def _word_end(text: str, column: int) -> int:
    end = column
    while end < len(text) and not text[end].isspace() and text[end] != ":":
        end += 1
    return end


def key_items(
    lines: list[str], block: tuple[int, int], line: int, column: int
) -> list[types.CompletionItem]:
    text = lines[line]
    end = _word_end(text, column)
    has_colon = text[end:].lstrip(" \t").startswith(":")
    present = frontmatter_keys(lines, block, skip=line)
    items = []
    for key in sorted(KNOWN_SKILL_FIELDS - present.keys(), key=_order):
        readers, doc = FIELD_DOCS.get(key, ("", "A skill field pi-lsp knows."))
        if has_colon:
            new_text = key
        elif key in MAPPING_FIELDS:
            new_text = f"{key}:\n  "
        else:
            new_text = f"{key}: "
        items.append(
            types.CompletionItem(
                label=key,
                kind=types.CompletionItemKind.Property,
                detail=readers or None,
                documentation=types.MarkupContent(types.MarkupKind.Markdown, doc),
                sort_text=_order(key),
                filter_text=key,
                text_edit=types.TextEdit(_range(line, text, 0, end), new_text),
                insert_text_format=types.InsertTextFormat.PlainText,
            )
        )
    return items


def value_items(path: str, text: str, line: int, column: int) -> list[types.CompletionItem]:
    match = _VALUE_PREFIX.fullmatch(text[:column])
    if match is None:
        return []
    key = match.group(1)
    start = match.start(2)
    where = _range(line, text, start, _word_end(text, column))
    values: list[tuple[str, str]] = []
    if key in BOOLEAN_VALUES:
        when_true, when_false = BOOLEAN_VALUES[key]
        values = [("true", when_true), ("false", when_false)]
    elif key == "name":
        if os.path.basename(path) == "SKILL.md":
            folder = os.path.basename(os.path.dirname(path))
            values = [(folder, "The name of the skill's folder, as the Agent Skills spec asks.")]
        else:
            stem = os.path.splitext(os.path.basename(path))[0]
            values = [(stem, "The file's name without `.md`.")]
    return [
        types.CompletionItem(
            label=value,
            kind=types.CompletionItemKind.Value,
            documentation=types.MarkupContent(types.MarkupKind.Markdown, doc) if doc else None,
            sort_text=f"{index}",
            text_edit=types.TextEdit(where, value),
            insert_text_format=types.InsertTextFormat.PlainText,
        )
        for index, (value, doc) in enumerate(values)
        if value
    ]


def skill_completions(
    text: str, path: str, position: types.Position
) -> list[types.CompletionItem] | None:
    """Completions at ``position`` (UTF-16) in the skill file ``path``; ``None`` outside the
    frontmatter or where nothing fits."""
    lines = text.split("\n")
    block = frontmatter_lines(lines)
    line = position.line
    if block is None or not block[0] < line < block[1] or line >= len(lines):
        return None
    line_text = lines[line].removesuffix("\r")
    lines[line] = line_text
    column = code_point_column(line_text, position.character)
    if _KEY_PREFIX.fullmatch(line_text[:column]):
        return key_items(lines, block, line, column)
    return value_items(path, line_text, line, column) or None


def register(server: PiLanguageServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS),
    )
    def completion(
        ls: PiLanguageServer, params: types.CompletionParams
    ) -> list[types.CompletionItem] | None:
        path = path_of(params.text_document.uri)
        if not is_skill_file(path):
            return None
        text = ls.state.text_of(path)
        if text is None:
            return None
        return skill_completions(text, path, params.position)
