"""Session entries and messages in Pi's JSON shape, for the compaction and branch tests."""

from __future__ import annotations

import itertools
from typing import Any

Entry = dict[str, Any]

_clock = itertools.count(1)


def usage(total: int, *, input_tokens: int | None = None, output: int = 0) -> dict[str, Any]:
    return {
        "input": total - output if input_tokens is None else input_tokens,
        "output": output,
        "cacheRead": 0,
        "cacheWrite": 0,
        "reasoning": 0,
        "totalTokens": total,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def user(text: str | list[dict[str, Any]]) -> dict[str, Any]:
    content = [{"type": "text", "text": text}] if isinstance(text, str) else text
    return {"role": "user", "content": content, "timestamp": 0}


def assistant(
    *blocks: dict[str, Any] | str,
    tokens: int | None = None,
    stop_reason: str = "stop",
) -> dict[str, Any]:
    content = [{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks]
    message: dict[str, Any] = {
        "role": "assistant",
        "content": content,
        "api": "openai-completions",
        "provider": "test",
        "model": "test-model",
        "usage": usage(tokens or 0),
        "stopReason": stop_reason,
        "timestamp": 0,
    }
    return message


def tool_call(name: str, call_id: str = "call_1", **arguments: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def tool_result(text: str, call_id: str = "call_1", name: str = "bash") -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": 0,
    }


def _timestamp() -> str:
    n = next(_clock)
    return f"2026-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}.{n % 1000:03d}Z"


def chain(*payloads: dict[str, Any], prefix: str = "e") -> list[Entry]:
    """Entries chained by ``parentId``; a payload with ``role`` becomes a message entry."""
    entries: list[Entry] = []
    parent: str | None = None
    for index, payload in enumerate(payloads, start=1):
        entry_id = payload.pop("id", None) if "type" in payload else None
        entry_id = entry_id or f"{prefix}{index}"
        entry: Entry = {"type": "message", "id": entry_id, "parentId": parent}
        entry["timestamp"] = _timestamp()
        if "role" in payload:
            entry["message"] = payload
        else:
            entry["type"] = payload["type"]
            entry.update({k: v for k, v in payload.items() if k != "type"})
        entries.append(entry)
        parent = entry_id
    return entries


def compaction(summary: str, first_kept: str, tokens_before: int = 0, **extra: Any) -> Entry:
    return {
        "type": "compaction",
        "summary": summary,
        "firstKeptEntryId": first_kept,
        "tokensBefore": tokens_before,
        **extra,
    }


def model_change() -> Entry:
    return {"type": "model_change", "provider": "test", "modelId": "test-model"}


def custom_message(text: str) -> Entry:
    return {"type": "custom_message", "customType": "note", "content": text, "display": True}
