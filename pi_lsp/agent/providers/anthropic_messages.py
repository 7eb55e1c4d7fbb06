"""Anthropic Messages, streamed (spec §13.5; pi-ai's mapping, carried over from its source).

Request body, keys in Pi's order: ``model``, ``messages``, ``max_tokens``, ``stream: true``,
``system`` (one text block with ``cache_control``), ``tools`` (``input_schema`` with the
parameters' ``properties`` and ``required``), ``thinking``. Messages: user text and images
(images dropped for a text-only model, empty text dropped), assistant ``text`` / ``thinking``
(with its signature; an unsigned one is sent as text, a redacted one as ``redacted_thinking``) /
``tool_use``, and tool results as ``tool_result`` blocks of one user message per run of
consecutive results. The last user block carries ``cache_control`` (prompt caching).

The stream's events (``message_start``, ``content_block_start|delta|stop``, ``message_delta``,
``message_stop``, ``ping``, ``error``) become Pi's events; usage from ``input_tokens``,
``output_tokens``, ``cache_read_input_tokens``, ``cache_creation_input_tokens`` (total = sum);
``stop_reason`` ``end_turn`` / ``pause_turn`` / ``stop_sequence`` → stop, ``max_tokens`` →
length, ``tool_use`` → toolUse, anything else an error.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx

from pi_lsp.agent.model_api import ModelInfo, ModelRequest
from pi_lsp.agent.providers.assistant import AssistantBuilder, Event, StopReason
from pi_lsp.agent.providers.errors import stream_error_message
from pi_lsp.agent.providers.secret import redactor_for
from pi_lsp.agent.providers.transform import sanitize, transform_messages
from pi_lsp.agent.providers.transport import (
    ABORTED_MESSAGE,
    Aborted,
    AbortRace,
    ClientSource,
    HttpFailure,
    failure_reason,
    open_event_stream,
    shared_client,
)
from pi_lsp.js.json import json_stringify
from pi_lsp.prompt.model_view import NO_TOOL_OUTPUT, SEE_ATTACHED_IMAGE
from pi_lsp.tools.base import AbortSignal

__all__ = [
    "ABORTED_MESSAGE",
    "ANTHROPIC_VERSION",
    "NO_MESSAGE_STOP_MESSAGE",
    "AnthropicMessagesProvider",
    "build_request_body",
    "convert_messages",
    "map_stop_reason",
]

Message = dict[str, Any]

NO_MESSAGE_STOP_MESSAGE = "Stream ended before message_stop"
ANTHROPIC_VERSION = "2023-06-01"
BETA_FEATURES = "fine-grained-tool-streaming-2025-05-14,interleaved-thinking-2025-05-14"
#: pi-ai's default thinking budgets per level (``xhigh`` counts as ``high``)
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
MIN_OUTPUT_TOKENS = 1024
_EFFORT = {"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "max"}


def _tool_call_id(call_id: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]", "_", call_id)[:64]


def _cache_control(model: ModelInfo) -> dict[str, Any]:
    control: dict[str, Any] = {"type": "ephemeral"}
    if os.environ.get("PI_CACHE_RETENTION") == "long" and "api.anthropic.com" in model.base_url:
        control["ttl"] = "1h"
    return control


def _image(block: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": block.get("mimeType", ""),
            "data": block.get("data", ""),
        },
    }


def _tool_result_content(content: Sequence[dict[str, Any]]) -> str | list[dict[str, Any]]:
    if not any(b.get("type") == "image" for b in content):
        text = "\n".join(b.get("text", "") for b in content if b.get("type") == "text")
        return sanitize(text) if text else NO_TOOL_OUTPUT
    blocks: list[dict[str, Any]] = []
    for block in content:
        if block.get("type") == "text":
            blocks.append({"type": "text", "text": sanitize(block.get("text", ""))})
        elif block.get("type") == "image":
            blocks.append(_image(block))
    if not any(b["type"] == "text" for b in blocks):
        blocks.insert(0, {"type": "text", "text": SEE_ATTACHED_IMAGE})
    return blocks


def _user(message: Message, model: ModelInfo) -> Message | None:
    content = message["content"]
    if isinstance(content, str):
        return {"role": "user", "content": sanitize(content)} if content.strip() else None
    blocks: list[dict[str, Any]] = []
    for block in content:
        kind = block.get("type")
        if kind == "text" and (block.get("text") or "").strip():
            blocks.append({"type": "text", "text": sanitize(block["text"])})
        elif kind == "image" and model.accepts_images:
            blocks.append(_image(block))
    return {"role": "user", "content": blocks} if blocks else None


def _assistant(message: Message) -> Message | None:
    blocks: list[dict[str, Any]] = []
    for block in message["content"]:
        kind = block.get("type")
        if kind == "text":
            if (block.get("text") or "").strip():
                blocks.append({"type": "text", "text": sanitize(block["text"])})
        elif kind == "thinking":
            signature = block.get("thinkingSignature") or ""
            if block.get("redacted"):
                if signature:
                    blocks.append({"type": "redacted_thinking", "data": signature})
                continue
            thinking = block.get("thinking") or ""
            if not thinking.strip():
                continue
            if not signature.strip():
                blocks.append({"type": "text", "text": sanitize(thinking)})
            else:
                blocks.append(
                    {"type": "thinking", "thinking": sanitize(thinking), "signature": signature}
                )
        elif kind == "toolCall":
            blocks.append(
                {
                    "type": "tool_use",
                    "id": block.get("id", ""),
                    "name": block.get("name", ""),
                    "input": block.get("arguments") or {},
                }
            )
    return {"role": "assistant", "content": blocks} if blocks else None


def convert_messages(
    model: ModelInfo, messages: Sequence[Message], *, cache: bool = True
) -> list[Message]:
    """The ``messages`` array of a request (spec §13.3, §13.5)."""
    transformed = transform_messages(messages, model, _tool_call_id)
    out: list[Message] = []
    i = 0
    while i < len(transformed):
        message = transformed[i]
        role = message.get("role")
        converted: Message | None = None
        if role == "user":
            converted = _user(message, model)
            i += 1
        elif role == "assistant":
            converted = _assistant(message)
            i += 1
        elif role == "toolResult":
            results: list[dict[str, Any]] = []
            while i < len(transformed) and transformed[i].get("role") == "toolResult":
                result = transformed[i]
                results.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": result.get("toolCallId", ""),
                        "content": _tool_result_content(result.get("content") or []),
                        "is_error": bool(result.get("isError")),
                    }
                )
                i += 1
            converted = {"role": "user", "content": results}
        else:
            i += 1
        if converted is not None:
            out.append(converted)
    if cache and out and out[-1]["role"] == "user":
        last = out[-1]
        control = _cache_control(model)
        if isinstance(last["content"], str):
            last["content"] = [{"type": "text", "text": last["content"], "cache_control": control}]
        elif last["content"] and last["content"][-1].get("type") in (
            "text",
            "image",
            "tool_result",
        ):
            last["content"][-1] = {**last["content"][-1], "cache_control": control}
    return out


def _adaptive_thinking(model: ModelInfo) -> bool:
    url = model.base_url.lower()
    model_id = model.id.lower()
    return "api.anthropic.com" in url and ("opus-4-6" in model_id or "opus-4.6" in model_id)


def build_request_body(request: ModelRequest) -> dict[str, Any]:
    """The JSON body pi-ai sends for ``request`` (keys in its order)."""
    model = request.model
    max_tokens = request.max_tokens if request.max_tokens is not None else model.max_tokens
    thinking: dict[str, Any] | None = None
    effort: str | None = None
    level = request.thinking_level
    if level != "off" and model.reasoning:
        if _adaptive_thinking(model):
            thinking, effort = {"type": "adaptive"}, _EFFORT[level]
        else:
            budget = THINKING_BUDGETS["high" if level == "xhigh" else level]
            max_tokens = min(max_tokens + budget, model.max_tokens)
            if max_tokens <= budget:
                budget = max(0, max_tokens - MIN_OUTPUT_TOKENS)
            thinking = {"type": "enabled", "budget_tokens": budget}
    body: dict[str, Any] = {
        "model": model.id,
        "messages": convert_messages(model, request.messages),
        "max_tokens": max_tokens,
        "stream": True,
    }
    if request.system_prompt:
        body["system"] = [
            {
                "type": "text",
                "text": sanitize(request.system_prompt),
                "cache_control": _cache_control(model),
            }
        ]
    if request.tools:
        body["tools"] = [
            {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "input_schema": {
                    "type": "object",
                    "properties": (tool.get("parameters") or {}).get("properties") or {},
                    "required": (tool.get("parameters") or {}).get("required") or [],
                },
            }
            for tool in request.tools
        ]
    if thinking is not None:
        body["thinking"] = thinking
        if effort is not None:
            body["output_config"] = {"effort": effort}
    return body


def request_headers(request: ModelRequest) -> dict[str, str]:
    headers = {
        "Content-Type": "application/json",
        "Accept": "text/event-stream",
        "anthropic-version": ANTHROPIC_VERSION,
        "anthropic-beta": BETA_FEATURES,
        "anthropic-dangerous-direct-browser-access": "true",
    }
    if request.api_key:
        headers["x-api-key"] = request.api_key
    headers.update(request.model.headers)
    return headers


def messages_url(base_url: str) -> str:
    return base_url.rstrip("/") + "/v1/messages"


def map_stop_reason(reason: str) -> tuple[StopReason, str | None]:
    """(stopReason, errorMessage or None) for a ``stop_reason``."""
    if reason in ("end_turn", "pause_turn", "stop_sequence"):
        return "stop", None
    if reason == "max_tokens":
        return "length", None
    if reason == "tool_use":
        return "toolUse", None
    if reason in ("refusal", "sensitive"):
        return "error", f"Provider stop_reason: {reason}"
    return "error", f"Unhandled stop reason: {reason}"


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


class _EventReader:
    """Anthropic stream events → Pi's events; blocks found by the API's ``index``."""

    def __init__(self, builder: AssistantBuilder) -> None:
        self.builder = builder
        self.blocks: dict[int, int] = {}
        self.usage = {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0}
        self.stop_seen = False
        self.message_stopped = False
        self.stop_error: str | None = None
        self.stream_error: str | None = None

    def _usage(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        fields = (
            ("input", "input_tokens"),
            ("output", "output_tokens"),
            ("cache_read", "cache_read_input_tokens"),
            ("cache_write", "cache_creation_input_tokens"),
        )
        for ours, theirs in fields:
            value = _count(usage.get(theirs))
            if value is not None:
                self.usage[ours] = value
        self.builder.set_usage(**self.usage)

    def _start_block(self, index: Any, block: Any) -> list[Event]:
        if not isinstance(block, dict) or not isinstance(index, int):
            return []
        kind = block.get("type")
        if kind == "text":
            ours, event = self.builder.open_text()
            text = block.get("text")
            events = [event]
            self.blocks[index] = ours
            if isinstance(text, str) and text:
                events.append(self.builder.append_text(ours, text))
            return events
        if kind == "thinking":
            ours, event = self.builder.open_thinking("")
        elif kind == "redacted_thinking":
            data = block.get("data")
            ours, event = self.builder.open_thinking(
                data if isinstance(data, str) else "", text="[Reasoning redacted]", redacted=True
            )
        elif kind == "tool_use":
            given = block.get("input")
            ours, event = self.builder.open_tool_call(
                str(block.get("id", "")),
                str(block.get("name", "")),
                given if isinstance(given, dict) else {},
            )
        else:
            return []
        self.blocks[index] = ours
        return [event]

    def _delta(self, index: Any, delta: Any) -> list[Event]:
        ours = self.blocks.get(index) if isinstance(index, int) else None
        if ours is None or not isinstance(delta, dict):
            return []
        kind = delta.get("type")
        block_kind = self.builder.block(ours).get("type")
        if kind == "text_delta" and block_kind == "text":
            return [self.builder.append_text(ours, str(delta.get("text", "")))]
        if kind == "thinking_delta" and block_kind == "thinking":
            return [self.builder.append_thinking(ours, str(delta.get("thinking", "")))]
        if kind == "input_json_delta" and block_kind == "toolCall":
            return [self.builder.append_tool_args(ours, str(delta.get("partial_json", "")))]
        if kind == "signature_delta" and block_kind == "thinking":
            self.builder.append_signature(ours, str(delta.get("signature", "")))
        return []

    def event(self, name: str, data: dict[str, Any]) -> list[Event]:
        kind = data.get("type") or name
        if kind == "message_start":
            message = data.get("message")
            if isinstance(message, dict):
                self.builder.set_response_id(message.get("id"))
                self._usage(message.get("usage"))
            return []
        if kind == "content_block_start":
            return self._start_block(data.get("index"), data.get("content_block"))
        if kind == "content_block_delta":
            return self._delta(data.get("index"), data.get("delta"))
        if kind == "content_block_stop":
            index = data.get("index")
            ours = self.blocks.pop(index, None) if isinstance(index, int) else None
            return [] if ours is None else [self.builder.close(ours)]
        if kind == "message_delta":
            delta = data.get("delta")
            reason = delta.get("stop_reason") if isinstance(delta, dict) else None
            if isinstance(reason, str) and reason:
                stop, error = map_stop_reason(reason)
                self.builder.set_stop_reason(stop, reason)
                self.stop_seen = True
                self.stop_error = error
            self._usage(data.get("usage"))
            return []
        if kind == "message_stop":
            self.message_stopped = True
            return []
        if kind == "error":
            self.stream_error = stream_error_message(data.get("error", data))
        return []


class AnthropicMessagesProvider:
    """Streams one response from an Anthropic ``/v1/messages`` endpoint."""

    def __init__(self, clients: ClientSource = shared_client) -> None:
        self._clients = clients

    async def stream(
        self, request: ModelRequest, signal: AbortSignal | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        builder = AssistantBuilder(request.model)
        mask = redactor_for(request)  # a server may echo the key or a header back
        race = AbortRace(signal)
        reader = _EventReader(builder)
        try:
            body = json_stringify(build_request_body(request)).encode("utf-8")
            client = self._clients(request.model.base_url)
            async with open_event_stream(
                client,
                messages_url(request.model.base_url),
                headers=request_headers(request),
                body=body,
                race=race,
            ) as events:
                yield builder.start()
                async for event in events:
                    if reader.message_stopped or not event.data.strip():
                        continue
                    try:
                        data = json.loads(event.data)
                    except ValueError:
                        continue
                    if not isinstance(data, dict):
                        continue
                    for out in reader.event(event.event, data):
                        yield out
                    if reader.stream_error is not None:
                        break
        except (Aborted, HttpFailure, httpx.HTTPError) as failure:
            reason, message, retry_after = failure_reason(failure, race.aborted)
            yield builder.error(reason, mask(message), retry_after_ms=retry_after)
            return
        finally:
            await race.aclose()
        if race.aborted:
            yield builder.error("aborted", ABORTED_MESSAGE)
        elif reader.stream_error is not None:
            yield builder.error("error", mask(reader.stream_error))
        elif not reader.stop_seen and not reader.message_stopped:
            yield builder.error("error", NO_MESSAGE_STOP_MESSAGE)
        elif reader.stop_error is not None:
            yield builder.error("error", mask(reader.stop_error))
        else:
            yield builder.done()
