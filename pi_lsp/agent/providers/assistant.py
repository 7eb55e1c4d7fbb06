"""The assistant message a provider builds while a response streams in, and Pi's events about it.

Every provider owns one :class:`AssistantBuilder` per request. Its ``message`` is the dict that
ends up in the session, keys in Pi's order (``role, content, api, provider, model, usage,
stopReason, timestamp`` then ``responseId``, ``rawStopReason``, ``errorMessage`` as they become
known). Each method that changes the message returns the event that reports the change, with
``partial`` = the message itself: like Pi, every event of one stream carries the same live
object, so a consumer that wants a snapshot copies it.

Tool-call arguments arrive as JSON text in pieces; the builder keeps that text aside (never in
the message) and re-parses it after each piece, so ``arguments`` is always the best reading so
far (:mod:`partial_json`).
"""

from __future__ import annotations

import time
from typing import Any, Literal

from pi_lsp.agent.model_api import ModelInfo, empty_usage
from pi_lsp.agent.providers.partial_json import parse_streaming_json

__all__ = ["AssistantBuilder", "Event", "calculate_cost", "now_ms"]

Event = dict[str, Any]
StopReason = Literal["stop", "length", "toolUse", "error", "aborted"]


def now_ms() -> int:
    """``Date.now()``."""
    return int(time.time() * 1000)


def calculate_cost(model: ModelInfo, usage: dict[str, Any]) -> dict[str, Any]:
    """pi-ai's ``calculateCost``: dollars per million tokens times the counts, in its order of
    operations (the floats must come out the same). Cache writes for one hour
    (``cacheWrite1h``, part of ``cacheWrite``) cost twice the input rate."""
    rates = model.cost

    def rate(key: str) -> float:
        return float(rates.get(key, 0) or 0)

    long_write = usage.get("cacheWrite1h") or 0
    short_write = usage["cacheWrite"] - long_write
    cost: dict[str, Any] = {}
    for key in ("input", "output", "cacheRead"):
        cost[key] = rate(key) / 1_000_000 * usage[key]
    cost["cacheWrite"] = (rate("cacheWrite") * short_write + rate("input") * 2 * long_write) / (
        1_000_000
    )
    cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
    return cost


class AssistantBuilder:
    """The assistant message under construction and the events that describe it."""

    def __init__(self, model: ModelInfo, *, timestamp: int | None = None) -> None:
        self.model = model
        self.message: dict[str, Any] = {
            "role": "assistant",
            "content": [],
            "api": model.api,
            "provider": model.provider,
            "model": model.id,
            "usage": empty_usage(),
            "stopReason": "pending",  # as Pi 0.85 streams it, until the provider says why
            "timestamp": now_ms() if timestamp is None else timestamp,
        }
        self._args_text: dict[int, str] = {}

    # -- reading ------------------------------------------------------------------------------

    @property
    def content(self) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = self.message["content"]
        return blocks

    def block(self, index: int) -> dict[str, Any]:
        return self.content[index]

    def args_text(self, index: int) -> str:
        """The raw JSON text received so far for the tool call at ``index``."""
        return self._args_text.get(index, "")

    # -- message fields -----------------------------------------------------------------------

    def set_response_id(self, response_id: Any) -> None:
        """Record the provider's response id (the first one seen wins, as in Pi)."""
        if isinstance(response_id, str) and response_id and "responseId" not in self.message:
            self.message["responseId"] = response_id

    def set_stop_reason(self, reason: StopReason, raw: str | None = None) -> None:
        self.message["stopReason"] = reason
        if raw is not None:
            self.message["rawStopReason"] = raw

    def set_usage(
        self,
        *,
        input: int,
        output: int,
        cache_read: int = 0,
        cache_write: int = 0,
        reasoning: int | None = None,
    ) -> None:
        usage: dict[str, Any] = {
            "input": input,
            "output": output,
            "cacheRead": cache_read,
            "cacheWrite": cache_write,
        }
        if reasoning is not None:
            usage["reasoning"] = reasoning
        usage["totalTokens"] = input + output + cache_read + cache_write
        usage["cost"] = calculate_cost(self.model, usage)
        self.message["usage"] = usage

    # -- events -------------------------------------------------------------------------------

    def start(self) -> Event:
        return {"type": "start", "partial": self.message}

    def _open(self, block: dict[str, Any], kind: str) -> tuple[int, Event]:
        self.content.append(block)
        index = len(self.content) - 1
        return index, {"type": f"{kind}_start", "contentIndex": index, "partial": self.message}

    def open_text(self) -> tuple[int, Event]:
        return self._open({"type": "text", "text": ""}, "text")

    def open_thinking(
        self, signature: str | None = None, *, text: str = "", redacted: bool = False
    ) -> tuple[int, Event]:
        block: dict[str, Any] = {"type": "thinking", "thinking": text}
        if signature is not None:
            block["thinkingSignature"] = signature
        if redacted:
            block["redacted"] = True
        return self._open(block, "thinking")

    def open_tool_call(
        self, call_id: str, name: str, arguments: dict[str, Any] | None = None
    ) -> tuple[int, Event]:
        block = {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments or {}}
        index, event = self._open(block, "toolcall")
        self._args_text[index] = ""
        return index, event

    def append_text(self, index: int, delta: str) -> Event:
        self.content[index]["text"] += delta
        return {
            "type": "text_delta",
            "contentIndex": index,
            "delta": delta,
            "partial": self.message,
        }

    def append_thinking(self, index: int, delta: str) -> Event:
        self.content[index]["thinking"] += delta
        return {
            "type": "thinking_delta",
            "contentIndex": index,
            "delta": delta,
            "partial": self.message,
        }

    def append_signature(self, index: int, delta: str) -> None:
        block = self.content[index]
        block["thinkingSignature"] = (block.get("thinkingSignature") or "") + delta

    def append_tool_args(self, index: int, delta: str) -> Event:
        if delta:
            text = self._args_text.get(index, "") + delta
            self._args_text[index] = text
            self.content[index]["arguments"] = parse_streaming_json(text)
        return {
            "type": "toolcall_delta",
            "contentIndex": index,
            "delta": delta,
            "partial": self.message,
        }

    def close(self, index: int) -> Event:
        """The ``*_end`` event of the block at ``index`` (tool-call arguments parsed for good)."""
        block = self.content[index]
        kind = block["type"]
        if kind == "text":
            return {
                "type": "text_end",
                "contentIndex": index,
                "content": block["text"],
                "partial": self.message,
            }
        if kind == "thinking":
            return {
                "type": "thinking_end",
                "contentIndex": index,
                "content": block["thinking"],
                "partial": self.message,
            }
        if index in self._args_text:
            text = self._args_text.pop(index)
            if text:
                block["arguments"] = parse_streaming_json(text)
        return {
            "type": "toolcall_end",
            "contentIndex": index,
            "toolCall": block,
            "partial": self.message,
        }

    def done(self) -> Event:
        if self.message["stopReason"] == "pending":
            self.message["stopReason"] = "stop"
        return {"type": "done", "reason": self.message["stopReason"], "message": self.message}

    def error(
        self,
        reason: Literal["error", "aborted"],
        error_message: str,
        *,
        retry_after_ms: int | None = None,
    ) -> Event:
        """The final ``error`` event: the message so far, ``stopReason`` and ``errorMessage`` set.

        ``retry_after_ms`` (the server's ``retry-after``) rides on the event, not the message,
        so it never reaches the session file.
        """
        self._args_text.clear()
        self.message["stopReason"] = reason
        self.message["errorMessage"] = error_message
        event: Event = {"type": "error", "reason": reason, "error": self.message}
        if retry_after_ms is not None:
            event["retryAfterMs"] = retry_after_ms
        return event
