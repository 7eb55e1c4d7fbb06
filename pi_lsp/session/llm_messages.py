"""From the agent's messages to the messages a model is sent (spec §9.2–§9.3).

The session holds more kinds of message than a model understands: ``bashExecution`` (a ``!cmd``
the user ran), ``custom`` (injected by an extension), ``branchSummary`` and
``compactionSummary``. ``convert_to_llm`` turns each of them into a user message and passes
``user``, ``assistant`` and ``toolResult`` through unchanged (the same dict objects). Messages
are plain dicts in Pi's JSON shape; the input is never mutated.

The summary wrappers are Pi's exact strings: the model's view has to match Pi's byte for byte.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from pi_lsp.js.json import js_number

__all__ = [
    "BLOCKED_IMAGE_TEXT",
    "BRANCH_SUMMARY_PREFIX",
    "BRANCH_SUMMARY_SUFFIX",
    "COMPACTION_SUMMARY_PREFIX",
    "COMPACTION_SUMMARY_SUFFIX",
    "LLM_ROLES",
    "bash_execution_to_text",
    "convert_to_llm",
    "js_truthy",
]

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:"
    "\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUMMARY_SUFFIX = "</summary>"

#: What an image becomes when the ``images.blockImages`` setting is on.
BLOCKED_IMAGE_TEXT = "Image reading is disabled."

#: Roles a model understands; ``convert_to_llm`` passes them through untouched.
LLM_ROLES = frozenset({"user", "assistant", "toolResult"})

Message = dict[str, Any]


def js_truthy(value: Any) -> bool:
    """Whether JavaScript would treat the JSON value as true in a condition."""
    if value is None or value is False:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value != 0 and not math.isnan(value)
    if isinstance(value, str):
        return value != ""
    return True


def _template_value(value: Any) -> str:
    """A value as a JavaScript template literal writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number(value)
    if value is None:
        return "null"
    return str(value)


def _field_text(message: Mapping[str, Any], key: str) -> str:
    """``${message.key}`` in JavaScript: a missing field reads ``undefined``."""
    return _template_value(message[key]) if key in message else "undefined"


def bash_execution_to_text(message: Mapping[str, Any]) -> str:
    """The user-message text of a ``bashExecution`` message (``bashExecutionToText``)."""
    parts = [f"Ran `{_field_text(message, 'command')}`\n"]
    output = message.get("output")
    if js_truthy(output):
        parts.append(f"```\n{_template_value(output)}\n```")
    else:
        parts.append("(no output)")
    exit_code = message.get("exitCode")
    if js_truthy(message.get("cancelled")):
        parts.append("\n\n(command cancelled)")
    elif exit_code is not None and not (
        isinstance(exit_code, int | float) and not isinstance(exit_code, bool) and exit_code == 0
    ):
        parts.append(f"\n\nCommand exited with code {_template_value(exit_code)}")
    full_output_path = message.get("fullOutputPath")
    if js_truthy(message.get("truncated")) and js_truthy(full_output_path):
        parts.append(f"\n\n[Output truncated. Full output: {_template_value(full_output_path)}]")
    return "".join(parts)


def _user_message(content: Any, source: Mapping[str, Any]) -> Message:
    """A user message carrying ``source``'s timestamp (left out when it has none, as JSON would)."""
    message: Message = {"role": "user", "content": content}
    if "timestamp" in source:
        message["timestamp"] = source["timestamp"]
    return message


def _user_text(text: str, source: Mapping[str, Any]) -> Message:
    return _user_message([{"type": "text", "text": text}], source)


def _convert_one(message: Message) -> Message | None:
    role = message.get("role")
    if role in LLM_ROLES:
        return message
    if role == "bashExecution":
        if js_truthy(message.get("excludeFromContext")):
            return None
        return _user_text(bash_execution_to_text(message), message)
    if role == "custom":
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        return _user_message(content, message)
    if role == "branchSummary":
        text = BRANCH_SUMMARY_PREFIX + _field_text(message, "summary")
        return _user_text(text + BRANCH_SUMMARY_SUFFIX, message)
    if role == "compactionSummary":
        text = COMPACTION_SUMMARY_PREFIX + _field_text(message, "summary")
        return _user_text(text + COMPACTION_SUMMARY_SUFFIX, message)
    # Any other role (none exists in 0.85) is dropped, as Pi's exhaustive switch does.
    return None


def _is_blocked_text(block: Any) -> bool:
    return (
        isinstance(block, Mapping)
        and block.get("type") == "text"
        and block.get("text") == BLOCKED_IMAGE_TEXT
    )


def _block_images(message: Message) -> Message:
    """Images of a user/tool-result message replaced by the placeholder, repeats collapsed.

    As in Pi, a placeholder text right after another placeholder text is dropped, whether either
    came from an image or was already text; messages without images are left alone.
    """
    if message.get("role") not in ("user", "toolResult"):
        return message
    content = message.get("content")
    if not isinstance(content, list) or not any(
        isinstance(block, Mapping) and block.get("type") == "image" for block in content
    ):
        return message
    replaced = [
        {"type": "text", "text": BLOCKED_IMAGE_TEXT}
        if isinstance(block, Mapping) and block.get("type") == "image"
        else block
        for block in content
    ]
    kept = [
        block
        for index, block in enumerate(replaced)
        if not (index > 0 and _is_blocked_text(block) and _is_blocked_text(replaced[index - 1]))
    ]
    return {**message, "content": kept}


def convert_to_llm(messages: Iterable[Message], *, block_images: bool = False) -> list[Message]:
    """``convertToLlm``: every message as a model-level message, in order (spec §9.2).

    ``block_images`` applies the session's ``images.blockImages`` wrapper on top.
    """
    converted: list[Message] = []
    for message in messages:
        result = _convert_one(message)
        if result is None:
            continue
        converted.append(_block_images(result) if block_images else result)
    return converted
