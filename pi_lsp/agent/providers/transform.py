"""The cross-provider transform every request goes through before its API mapping (spec §13.3).

Input: the LLM messages (``user``, ``assistant``, ``toolResult`` dicts after ``convert_to_llm``).
Output: new dicts (the input is never mutated) where

* a ``null`` content is ``[]``;
* for a model without image input, image blocks become a text placeholder (a run of consecutive
  images one placeholder): ``(image omitted: …)`` in user messages, ``(tool image omitted: …)``
  in tool results;
* an assistant message of another model (provider, api or model id differ) has its thinking
  turned into plain text (empty and redacted thinking dropped), its text blocks reduced to
  their text (no signatures) and its tool-call ids passed through the provider's
  ``normalize_tool_call_id`` (or ``normalize_with_source``, which also sees the message the
  call comes from); tool results follow the renamed ids;
* assistant messages that failed or were aborted are left out (not replayed);
* a tool call without a result before the next user or assistant message, or at the end, gets a
  synthetic error result ``No result provided``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pi_lsp.agent.model_api import ModelInfo
from pi_lsp.prompt.model_view import TOOL_IMAGE_OMITTED, USER_IMAGE_OMITTED

__all__ = [
    "NO_RESULT_PROVIDED",
    "is_same_model",
    "replace_images",
    "sanitize",
    "transform_messages",
]

Message = dict[str, Any]
NO_RESULT_PROVIDED = "No result provided"
_SURROGATE = re.compile("[\ud800-\udfff]")


def sanitize(text: str) -> str:
    """Drop lone surrogates (they cannot be sent as UTF-8), as pi-ai's ``sanitizeSurrogates``."""
    return _SURROGATE.sub("", text) if _SURROGATE.search(text) else text


def replace_images(blocks: Iterable[dict[str, Any]], placeholder: str) -> list[dict[str, Any]]:
    """``blocks`` with image blocks replaced by ``placeholder`` text, one per run of images."""
    out: list[dict[str, Any]] = []
    previous_was_image = False
    for block in blocks:
        if block.get("type") == "image":
            if not previous_was_image:
                out.append({"type": "text", "text": placeholder})
            previous_was_image = True
        else:
            out.append(block)
            previous_was_image = False
    return out


def is_same_model(message: Message, model: ModelInfo) -> bool:
    return (
        message.get("provider") == model.provider
        and message.get("api") == model.api
        and message.get("model") == model.id
    )


def _content(message: Message) -> Any:
    content = message.get("content")
    return [] if content is None else content


def _assistant_blocks(
    message: Message,
    model: ModelInfo,
    normalize_id: Callable[[str, Message], str] | None,
    renamed: dict[str, str],
) -> list[dict[str, Any]]:
    same = is_same_model(message, model)
    blocks: list[dict[str, Any]] = []
    for block in _content(message):
        kind = block.get("type")
        if kind == "thinking":
            if same:
                blocks.append(block)
            elif not block.get("redacted"):
                text = block.get("thinking") or ""
                if text.strip():
                    blocks.append({"type": "text", "text": text})
        elif kind == "text" and not same:
            blocks.append({"type": "text", "text": block.get("text", "")})
        elif kind == "toolCall" and not same:
            call = {k: v for k, v in block.items() if k != "thoughtSignature"}
            if normalize_id is not None:
                new_id = normalize_id(str(block.get("id", "")), message)
                if new_id != block.get("id"):
                    renamed[str(block.get("id", ""))] = new_id
                    call["id"] = new_id
            blocks.append(call)
        else:
            blocks.append(block)
    return blocks


def _synthetic_results(
    pending: Sequence[dict[str, Any]], answered: set[str], timestamp: Any
) -> list[Message]:
    return [
        {
            "role": "toolResult",
            "toolCallId": call.get("id", ""),
            "toolName": call.get("name", ""),
            "content": [{"type": "text", "text": NO_RESULT_PROVIDED}],
            "isError": True,
            "timestamp": timestamp,
        }
        for call in pending
        if call.get("id") not in answered
    ]


def transform_messages(
    messages: Sequence[Message],
    model: ModelInfo,
    normalize_tool_call_id: Callable[[str], str] | None = None,
    *,
    normalize_with_source: Callable[[str, Message], str] | None = None,
) -> list[Message]:
    """Pi's ``transformMessages`` for ``model`` (see the module docstring)."""
    normalize = normalize_with_source
    if normalize is None and normalize_tool_call_id is not None:
        by_id = normalize_tool_call_id

        def normalize(call_id: str, _source: Message) -> str:
            return by_id(call_id)

    renamed: dict[str, str] = {}
    first_pass: list[Message] = []
    for message in messages:
        role = message.get("role")
        if role == "user":
            content = _content(message)
            if isinstance(content, list) and not model.accepts_images:
                content = replace_images(content, USER_IMAGE_OMITTED)
            first_pass.append({**message, "content": content})
        elif role == "toolResult":
            content = _content(message)
            if isinstance(content, list) and not model.accepts_images:
                content = replace_images(content, TOOL_IMAGE_OMITTED)
            call_id = renamed.get(str(message.get("toolCallId", "")), message.get("toolCallId"))
            first_pass.append({**message, "content": content, "toolCallId": call_id})
        elif role == "assistant":
            blocks = _assistant_blocks(message, model, normalize, renamed)
            first_pass.append({**message, "content": blocks})
        else:
            first_pass.append(message)

    result: list[Message] = []
    pending: list[dict[str, Any]] = []
    answered: set[str] = set()
    last_timestamp: Any = 0
    for message in first_pass:
        role = message.get("role")
        last_timestamp = message.get("timestamp", last_timestamp)
        if role in ("assistant", "user") and pending:
            result.extend(_synthetic_results(pending, answered, last_timestamp))
            pending, answered = [], set()
        if role == "assistant":
            if message.get("stopReason") in ("error", "aborted"):
                continue
            calls = [b for b in message["content"] if b.get("type") == "toolCall"]
            if calls:
                pending, answered = calls, set()
        elif role == "toolResult":
            answered.add(str(message.get("toolCallId")))
        result.append(message)
    if pending:
        result.extend(_synthetic_results(pending, answered, last_timestamp))
    return result
