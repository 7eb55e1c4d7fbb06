"""A conversation as plain text for a summarization request (spec §10.6).

A summarizing model is not sent the conversation as chat messages (it would answer it); it gets
one user message holding a transcript inside ``<conversation>`` tags. The transcript has to be
Pi's byte for byte: the labels, the order of an assistant message's parts, the ``; `` between
tool calls and the cut of long tool results are what Pi writes.

* user: ``[User]: `` + its text blocks run together (images left out; nothing if empty);
* assistant: up to three parts in this order: ``[Assistant thinking]: `` (thinking blocks, one
  per line), ``[Assistant]: `` (text blocks, one per line: written as soon as a text block
  exists, even an empty one), ``[Assistant tool calls]: `` (``name(key=<JSON>, …)`` joined by
  ``; ``);
* tool result: ``[Tool result]: `` + its text, cut after 2000 characters with a marker saying
  how many were left out (nothing if empty);
* parts joined by a blank line.

The input is what ``convert_to_llm`` returns: only user, assistant and tool-result messages.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pi_lsp.js.json import js_object_keys, json_stringify
from pi_lsp.js.text import js_slice, utf16_len

__all__ = [
    "TOOL_RESULT_MAX_CHARS",
    "conversation_prompt",
    "serialize_conversation",
]

#: Characters of a tool result kept in a summarization transcript.
TOOL_RESULT_MAX_CHARS = 2000


def _text_blocks(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        block["text"]
        for block in content
        if isinstance(block, Mapping)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]


def _tool_call(block: Mapping[str, Any]) -> str:
    arguments = block.get("arguments")
    rendered = ""
    if isinstance(arguments, Mapping):
        rendered = ", ".join(
            f"{key}={json_stringify(arguments[key])}" for key in js_object_keys(arguments)
        )
    name = block.get("name")
    return f"{name if isinstance(name, str) else ''}({rendered})"


def _string_field(block: Mapping[str, Any], key: str) -> str:
    value = block.get(key)
    return value if isinstance(value, str) else ""


def _assistant_parts(content: Any) -> list[str]:
    if not isinstance(content, list):
        return []
    thinking: list[str] = []
    texts: list[str] = []
    calls: list[str] = []
    for block in content:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text":
            texts.append(_string_field(block, "text"))
        elif kind == "thinking":
            thinking.append(_string_field(block, "thinking"))
        elif kind == "toolCall":
            calls.append(_tool_call(block))
    parts = []
    if thinking:
        parts.append("[Assistant thinking]: " + "\n".join(thinking))
    if texts:
        parts.append("[Assistant]: " + "\n".join(texts))
    if calls:
        parts.append("[Assistant tool calls]: " + "; ".join(calls))
    return parts


def _tool_result_text(content: Any) -> str:
    text = "".join(_text_blocks(content))
    length = utf16_len(text)
    if length <= TOOL_RESULT_MAX_CHARS:
        return text
    left_out = length - TOOL_RESULT_MAX_CHARS
    return js_slice(text, TOOL_RESULT_MAX_CHARS) + f"\n\n[... {left_out} more characters truncated]"


def serialize_conversation(messages: Iterable[Mapping[str, Any]]) -> str:
    """The transcript of model-level messages (``serializeConversation``)."""
    parts: list[str] = []
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        if role == "user":
            text = "".join(_text_blocks(content))
            if text:
                parts.append(f"[User]: {text}")
        elif role == "assistant":
            parts.extend(_assistant_parts(content))
        elif role == "toolResult":
            text = _tool_result_text(content)
            if text:
                parts.append(f"[Tool result]: {text}")
    return "\n\n".join(parts)


def conversation_prompt(
    serialized: str, instructions: str, previous_summary: str | None = None
) -> str:
    """The text of the one user message of a summarization request.

    ``<conversation>`` with the transcript, then (when updating an earlier, non-empty summary)
    that summary in ``<previous-summary>`` tags, then the instructions.
    """
    text = f"<conversation>\n{serialized}\n</conversation>\n\n"
    if previous_summary:
        text += f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n"
    return text + instructions
