"""Masking Pi's own prose in recorded golden files (the shared conformance README's contract).

What Pi writes in its own words — the default system prompt's text, the paragraph that
introduces the skills list, tool and parameter descriptions, the summarization prompts — is not
the project's to keep. The project's copies of the golden cases (``pi_cases/``, written by
``import_goldens.py``) hold a placeholder instead, and the tests compare pi-lsp's output under
the same masking: a placeholder, the text's structure (headings) or a digest that says whether
two texts are equal without holding either.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

SKILLS_TAG = "<available_skills>"
SKILLS_PREAMBLE = "{SKILLS_PREAMBLE}"
DEFAULT_PROMPT = "{PI_DEFAULT_PROMPT}"
SUMMARY_INSTRUCTIONS = "{PI_SUMMARY_INSTRUCTIONS}"
#: Where a default-layout prompt stops being Pi's prose (README rule 5)
STRUCTURAL_MARKERS = ("<project_context>", SKILLS_PREAMBLE, "Current working directory:")

_HEADING = re.compile(r"^#{2,3} [^\n]*$", re.MULTILINE)
_CONVERSATION_END = "\n</conversation>\n\n"
_PREVIOUS_OPEN = "<previous-summary>\n"
_PREVIOUS_CLOSE = "\n</previous-summary>\n\n"


def prose_digest(text: str) -> str:
    """A stand-in for a text of Pi's: equal texts give equal stand-ins."""
    return "{PI_PROSE sha256=" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16] + "}"


#: Keys of a chat-completions message whose strings are its structure, not its text
_STRUCTURE_KEYS = frozenset({"role", "type", "id", "tool_call_id", "name"})
_DIGEST = re.compile(r"\{PI_PROSE sha256=[0-9a-f]{16}\}")


def digest_texts(value: Any, key: str | None = None) -> Any:
    """A recorded conversation with every text as its :func:`prose_digest`: message texts,
    tool results, tool-call arguments. Roles, types, ids and tool names stay as they are, and
    so does a digest already there (masking twice changes nothing)."""
    if isinstance(value, dict):
        return {k: digest_texts(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [digest_texts(item, key) for item in value]
    if isinstance(value, str) and key not in _STRUCTURE_KEYS and not _DIGEST.fullmatch(value):
        return prose_digest(value)
    return value


def mask_skills_preamble(text: str) -> str:
    """Replace the paragraph before ``<available_skills>`` (and its blank lines) by a token.

    That paragraph is Pi's prose (README rule 4): from the blank line that opens it, through
    the blank lines after it, up to the tag. Idempotent: an already masked text is kept.
    """
    tag = text.find(SKILLS_TAG)
    if tag < 0:
        return text
    before = text[:tag].rstrip("\n")
    if before.endswith(SKILLS_PREAMBLE):
        return text
    opening = before.rfind("\n\n")
    return before[:opening] + SKILLS_PREAMBLE + "\n" + text[tag:]


def structural_start(text: str) -> int:
    """Where the part of a default-layout prompt that is compared byte for byte begins."""
    starts = [i for i in (text.find(m) for m in STRUCTURAL_MARKERS) if i >= 0]
    return min(starts)


def from_structural_start(text: str) -> str:
    return text[structural_start(text) :]


def mask_system_prompt(text: str, *, default_layout: bool) -> str:
    """The skills preamble masked; for Pi's default layout, its text before the structural
    start too (a custom prompt is the case's own text and stays as it is)."""
    masked = mask_skills_preamble(text)
    if default_layout and not masked.startswith(DEFAULT_PROMPT):
        masked = DEFAULT_PROMPT + "\n\n" + from_structural_start(masked)
    return masked


def split_summary_prompt(text: str) -> dict[str, Any]:
    """A summarization request's text in parts: the ``<conversation>`` block, the previous
    summary (or None) and the instructions' section headings (their prose is Pi's)."""
    end = text.index(_CONVERSATION_END) + len(_CONVERSATION_END) - 2
    rest = text[end + 2 :]
    previous = None
    if rest.startswith(_PREVIOUS_OPEN):
        close = rest.index(_PREVIOUS_CLOSE)
        previous = rest[len(_PREVIOUS_OPEN) : close]
        rest = rest[close + len(_PREVIOUS_CLOSE) :]
    return {"conversation": text[:end], "previousSummary": previous, "headings": headings(rest)}


def headings(instructions: str) -> list[str]:
    return _HEADING.findall(instructions)


def mask_summary_prompt(text: str) -> str:
    """Keep the conversation and the previous summary; of the instructions, only headings."""
    parts = split_summary_prompt(text)
    out = parts["conversation"] + "\n\n"
    if parts["previousSummary"] is not None:
        out += _PREVIOUS_OPEN + parts["previousSummary"] + _PREVIOUS_CLOSE
    return out + "\n".join([SUMMARY_INSTRUCTIONS, *parts["headings"]])


def mask_descriptions(schema: Any) -> Any:
    """Every ``description`` string of a tool definition replaced by its digest."""
    if isinstance(schema, dict):
        return {
            key: prose_digest(value)
            if key == "description" and isinstance(value, str)
            else mask_descriptions(value)
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [mask_descriptions(item) for item in schema]
    return schema


def mask_request(body: dict[str, Any], *, default_layout: bool) -> dict[str, Any]:
    """One recorded chat-completions body with Pi's prose masked.

    An agent request (it carries ``tools``): the system prompt as :func:`mask_system_prompt`
    masks it and the tools' descriptions as digests. A summarization request: its system
    prompt as a digest and its instructions as headings. Every other message is kept byte for
    byte (README rule 3)."""
    out = dict(body)
    messages = [dict(m) for m in body["messages"]]
    system = messages[0]
    assert system["role"] == "system" and isinstance(system["content"], str)
    if "tools" in body:
        system["content"] = mask_system_prompt(system["content"], default_layout=default_layout)
        out["tools"] = mask_descriptions(body["tools"])
    else:
        system["content"] = prose_digest(system["content"])
        user = messages[1]
        parts = [dict(p) for p in user["content"]]
        for part in parts:
            if part.get("type") == "text":
                part["text"] = mask_summary_prompt(part["text"])
        user["content"] = parts
    out["messages"] = messages
    return out
