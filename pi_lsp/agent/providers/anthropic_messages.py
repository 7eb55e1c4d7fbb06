"""Anthropic Messages, streamed (spec §13.5), as pi-ai 0.85 sends and reads it.

Checked against the real Pi through a recording fake server (tests/conformance/anthropic_cases).

Request: ``POST {baseUrl}/v1/messages?beta=true`` (the SDK's beta endpoint) with
``anthropic-version``, ``x-api-key`` and ``anthropic-beta`` only when a feature needs it
(``fine-grained-tool-streaming-…`` when tools go without ``eager_input_streaming``,
``interleaved-thinking-…`` for budget thinking; a configured ``anthropic-beta`` header replaces
the list). Body keys in Pi's order: ``model``, ``messages``, ``max_tokens``, ``stream: true``,
``system`` (one text block), ``tools`` (``eager_input_streaming`` unless the model's compat
says no, ``input_schema`` with the parameters' ``properties`` and ``required``, the last tool
cached), ``thinking`` (budget ``enabled`` with ``display: "summarized"``; ``adaptive`` plus
``output_config.effort`` for ``forceAdaptiveThinking`` models; ``disabled`` for a reasoning
model with thinking off unless its ``thinkingLevelMap`` has no off). ``cache_control``
(``ephemeral``, ``ttl: "1h"`` with ``PI_CACHE_RETENTION=long``) on the system block, the last
tool and the last user block, none at all for a request with retention ``none`` (summaries).
Messages: user text and images (images dropped for a text-only model, empty text dropped),
assistant ``text`` / ``thinking`` (with its signature; an unsigned one is sent as text, a
redacted one as ``redacted_thinking``) / ``tool_use``, and tool results as ``tool_result``
blocks of one user message per run of consecutive results (text joined, ``""`` when empty).

Stream: only the events named ``message_start``, ``content_block_start|delta|stop``,
``message_delta``, ``message_stop`` are read (``ping`` and unknown names skipped); an
``error`` event ends the stream with its data as the error text. Usage from ``input_tokens``,
``output_tokens``, ``cache_read_input_tokens``, ``cache_creation_input_tokens`` and
``cache_creation.ephemeral_1h_input_tokens`` (``cacheWrite1h``); ``message_delta`` updates
the counts it carries. ``stop_reason`` ``end_turn`` / ``pause_turn`` / ``stop_sequence`` →
stop, ``max_tokens`` → length, ``tool_use`` → toolUse, ``refusal`` / ``sensitive`` an error
answer, anything else ends the stream at once (that delta's usage not counted).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx

from pi_lsp.agent.model_api import ModelInfo, ModelRequest
from pi_lsp.agent.output_budget import request_max_tokens
from pi_lsp.agent.providers.assistant import AssistantBuilder, Event, StopReason, calculate_cost
from pi_lsp.agent.providers.errors import anthropic_error_message
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
from pi_lsp.prompt.model_view import SEE_ATTACHED_IMAGE
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

NO_MESSAGE_STOP_MESSAGE = "Anthropic stream ended before message_stop"
NO_STOP_REASON_MESSAGE = "Anthropic stream ended without a stop reason"
REFUSAL_MESSAGE = "The model refused to complete the request"
ANTHROPIC_VERSION = "2023-06-01"
FINE_GRAINED_TOOL_STREAMING_BETA = "fine-grained-tool-streaming-2025-05-14"
INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14"
#: pi-ai's default thinking budgets per level (``xhigh`` and ``max`` count as ``high``)
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
MIN_OUTPUT_TOKENS = 1024
_EFFORT = {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}
#: the SSE event names whose data is read; anything else (``ping``) is skipped
_MESSAGE_EVENTS = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
    }
)


def _tool_call_id(call_id: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]", "_", call_id)[:64]


def _compat(model: ModelInfo, key: str, default: bool = True) -> bool:
    value = model.compat.get(key)
    return value if isinstance(value, bool) else default


def cache_retention(request: ModelRequest) -> str:
    """``none``, ``short`` or ``long``: the request's own, else ``PI_CACHE_RETENTION=long``."""
    if request.cache_retention is not None:
        return request.cache_retention
    return "long" if os.environ.get("PI_CACHE_RETENTION") == "long" else "short"


def _cache_control(request: ModelRequest) -> dict[str, Any] | None:
    retention = cache_retention(request)
    if retention == "none":
        return None
    control: dict[str, Any] = {"type": "ephemeral"}
    if retention == "long" and _compat(request.model, "supportsLongCacheRetention"):
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
        return sanitize("\n".join(b.get("text", "") for b in content if b.get("type") == "text"))
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
    model: ModelInfo,
    messages: Sequence[Message],
    *,
    cache_control: dict[str, Any] | None = None,
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
    if cache_control is not None and out and out[-1]["role"] == "user":
        last = out[-1]
        control = cache_control
        if isinstance(last["content"], str):
            last["content"] = [{"type": "text", "text": last["content"], "cache_control": control}]
        elif last["content"] and last["content"][-1].get("type") in (
            "text",
            "image",
            "tool_result",
        ):
            last["content"][-1] = {**last["content"][-1], "cache_control": control}
    return out


def _effort(model: ModelInfo, level: str) -> str:
    """The ``output_config.effort`` of an adaptive-thinking request at ``level``."""
    mapped = model.thinking_level_map.get(level)
    if isinstance(mapped, str):
        return mapped
    return _EFFORT.get(level, "high")


def _thinking(
    request: ModelRequest, max_tokens: int
) -> tuple[dict[str, Any] | None, str | None, int]:
    """``(thinking, effort, max_tokens)`` for the request, as pi-ai's ``streamSimple``."""
    model = request.model
    level = request.thinking_level
    if not model.reasoning:
        return None, None, max_tokens
    if level == "off":
        if "off" in model.thinking_level_map and model.thinking_level_map["off"] is None:
            return None, None, max_tokens
        return {"type": "disabled"}, None, max_tokens
    if model.compat.get("forceAdaptiveThinking") is True:
        return {"type": "adaptive", "display": "summarized"}, _effort(model, level), max_tokens
    budget = THINKING_BUDGETS["high" if level in ("xhigh", "max") else level]
    max_tokens = min(max_tokens + budget, model.max_tokens)
    if max_tokens <= budget:
        budget = max(0, max_tokens - MIN_OUTPUT_TOKENS)
    max_tokens = request_max_tokens(
        model, request.system_prompt, request.messages, request.tools, requested=max_tokens
    )
    budget = min(budget, max(0, max_tokens - MIN_OUTPUT_TOKENS))
    thinking = {"type": "enabled", "budget_tokens": budget or 1024, "display": "summarized"}
    return thinking, None, max_tokens


def _tools(request: ModelRequest, cache_control: dict[str, Any] | None) -> list[dict[str, Any]]:
    model = request.model
    eager = _compat(model, "supportsEagerToolInputStreaming")
    last_control = cache_control if _compat(model, "supportsCacheControlOnTools") else None
    tools: list[dict[str, Any]] = []
    for index, tool in enumerate(request.tools):
        parameters = tool.get("parameters") or {}
        entry: dict[str, Any] = {"name": tool["name"], "description": tool.get("description", "")}
        if eager:
            entry["eager_input_streaming"] = True
        entry["input_schema"] = {
            "type": "object",
            "properties": parameters.get("properties") or {},
            "required": parameters.get("required") or [],
        }
        if last_control is not None and index == len(request.tools) - 1:
            entry["cache_control"] = last_control
        tools.append(entry)
    return tools


def build_request_body(request: ModelRequest) -> dict[str, Any]:
    """The JSON body pi-ai sends for ``request`` (keys in its order)."""
    model = request.model
    max_tokens = request.max_tokens if request.max_tokens is not None else model.max_tokens
    thinking, effort, max_tokens = _thinking(request, max_tokens)
    control = _cache_control(request)
    body: dict[str, Any] = {
        "model": model.id,
        "messages": convert_messages(model, request.messages, cache_control=control),
        "max_tokens": max_tokens,
        "stream": True,
    }
    if request.system_prompt:
        system: dict[str, Any] = {"type": "text", "text": sanitize(request.system_prompt)}
        if control is not None:
            system["cache_control"] = control
        body["system"] = [system]
    if request.tools:
        body["tools"] = _tools(request, control)
    if thinking is not None:
        body["thinking"] = thinking
        if effort is not None:
            body["output_config"] = {"effort": effort}
    return body


def beta_features(request: ModelRequest) -> list[str]:
    """The ``anthropic-beta`` list: a configured header's (trimmed, deduplicated), else the
    features the request uses."""
    configured: str | None = None
    for name, value in request.model.headers.items():
        if name.lower() == "anthropic-beta":
            configured = value
    if configured is not None:
        features = [f.strip() for f in configured.split(",") if f.strip()]
        return list(dict.fromkeys(features))
    model = request.model
    out: list[str] = []
    if request.tools and not _compat(model, "supportsEagerToolInputStreaming"):
        out.append(FINE_GRAINED_TOOL_STREAMING_BETA)
    if (
        model.reasoning
        and request.thinking_level != "off"
        and model.compat.get("forceAdaptiveThinking") is not True
    ):
        out.append(INTERLEAVED_THINKING_BETA)
    return out


def request_headers(request: ModelRequest) -> dict[str, str]:
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "anthropic-version": ANTHROPIC_VERSION,
        "anthropic-dangerous-direct-browser-access": "true",
    }
    if request.api_key:
        headers["x-api-key"] = request.api_key
    for name, value in request.model.headers.items():
        if name.lower() != "anthropic-beta":  # that one is the beta list below
            headers[name] = value
    features = beta_features(request)
    if features:
        headers["anthropic-beta"] = ",".join(features)
    return headers


def messages_url(base_url: str) -> str:
    return base_url.rstrip("/") + "/v1/messages?beta=true"


def map_stop_reason(reason: str) -> tuple[StopReason, str | None]:
    """(stopReason, errorMessage or None) for a ``stop_reason``."""
    if reason in ("end_turn", "pause_turn", "stop_sequence"):
        return "stop", None
    if reason == "max_tokens":
        return "length", None
    if reason == "tool_use":
        return "toolUse", None
    if reason == "refusal":
        return "error", REFUSAL_MESSAGE
    if reason == "sensitive":
        return "error", "Provider stopped with: sensitive"
    return "error", f"Unhandled stop reason: {reason}"


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


class _StreamEnded(Exception):
    """The stream cannot go on: pi-ai throws, the message becomes an error with this text."""


_USAGE_FIELDS = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("cacheRead", "cache_read_input_tokens"),
    ("cacheWrite", "cache_creation_input_tokens"),
)


class _EventReader:
    """Anthropic stream events → Pi's events; blocks found by the API's ``index``."""

    def __init__(self, builder: AssistantBuilder) -> None:
        self.builder = builder
        self.blocks: dict[int, int] = {}
        self.started = False
        self.message_stopped = False

    @property
    def usage(self) -> dict[str, Any]:
        usage: dict[str, Any] = self.builder.message["usage"]
        return usage

    def _account(self) -> None:
        usage = self.usage
        usage["totalTokens"] = (
            usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"]
        )
        usage["cost"] = calculate_cost(self.builder.model, usage)

    def _start_usage(self, given: Any) -> None:
        """``message_start``: every count replaced (missing ones are 0), 1 h writes too."""
        given = given if isinstance(given, dict) else {}
        usage = self.usage
        for ours, theirs in _USAGE_FIELDS:
            usage[ours] = _count(given.get(theirs)) or 0
        creation = given.get("cache_creation")
        long_write = creation.get("ephemeral_1h_input_tokens") if isinstance(creation, dict) else 0
        usage["cacheWrite1h"] = _count(long_write) or 0
        self._account()

    def _delta_usage(self, given: Any) -> None:
        """``message_delta``: the counts it carries replace ours (a proxy may omit some)."""
        if isinstance(given, dict):
            usage = self.usage
            for ours, theirs in _USAGE_FIELDS:
                value = _count(given.get(theirs))
                if value is not None:
                    usage[ours] = value
            details = given.get("output_tokens_details")
            thinking = details.get("thinking_tokens") if isinstance(details, dict) else None
            if _count(thinking) is not None:
                usage["reasoning"] = _count(thinking)
        self._account()

    def _start_block(self, index: Any, block: Any) -> list[Event]:
        if not isinstance(block, dict) or not isinstance(index, int):
            return []
        kind = block.get("type")
        if kind == "text":
            ours, event = self.builder.open_text()
            text = block.get("text")
            if isinstance(text, str):
                self.builder.block(ours)["text"] = text
        elif kind == "thinking":
            signature = block.get("signature")
            thinking = block.get("thinking")
            ours, event = self.builder.open_thinking(
                signature if isinstance(signature, str) else "",
                text=thinking if isinstance(thinking, str) else "",
            )
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

    def _message_delta(self, data: dict[str, Any]) -> None:
        delta = data.get("delta")
        reason = delta.get("stop_reason") if isinstance(delta, dict) else None
        if isinstance(reason, str) and reason:
            stop, error = map_stop_reason(reason)
            self.builder.set_stop_reason(stop, reason)
            if stop == "error" and error is not None:
                if error.startswith("Unhandled stop reason"):
                    raise _StreamEnded(error)  # pi-ai throws before it counts this usage
                self.builder.message["errorMessage"] = error
        self._delta_usage(data.get("usage"))

    def sse(self, name: str, text: str) -> list[Event]:
        """One server-sent event by its name (pi-ai reads the name, then the data's type)."""
        if name == "error":
            raise _StreamEnded(text)
        if name not in _MESSAGE_EVENTS:
            return []
        try:
            data = json.loads(text)
        except ValueError as error:
            raise _StreamEnded(
                f"Could not parse Anthropic SSE event {name}: {error}; data={text}"
            ) from None
        if not isinstance(data, dict):
            return []
        kind = data.get("type")
        if kind == "message_start":
            self.started = True
            message = data.get("message")
            if isinstance(message, dict):
                self.builder.set_response_id(message.get("id"))
                if isinstance(message.get("model"), str):
                    self.builder.message["model"] = message["model"]
                self._start_usage(message.get("usage"))
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
            self._message_delta(data)
        elif kind == "message_stop":
            self.message_stopped = True
        return []

    def ending_error(self) -> str | None:
        """Why a stream that ran to its end is still an error (pi-ai's checks, in order)."""
        if self.started and not self.message_stopped:
            return NO_MESSAGE_STOP_MESSAGE
        stop = self.builder.message["stopReason"]
        if stop == "pending":
            return NO_STOP_REASON_MESSAGE
        if stop == "error":
            error = self.builder.message.get("errorMessage")
            return error if isinstance(error, str) and error else "An unknown error occurred"
        return None


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
        failure_text: str | None = None
        try:
            body = json_stringify(build_request_body(request)).encode("utf-8")
            client = self._clients(request.model.base_url)
            async with open_event_stream(
                client,
                messages_url(request.model.base_url),
                headers=request_headers(request),
                body=body,
                race=race,
                error_message=anthropic_error_message,
            ) as events:
                yield builder.start()
                async for event in events:
                    try:
                        for out in reader.sse(event.event, event.data):
                            yield out
                    except _StreamEnded as ended:
                        failure_text = str(ended)
                        break
        except (Aborted, HttpFailure, httpx.HTTPError) as failure:
            reason, message, retry_after = failure_reason(failure, race.aborted)
            yield builder.error(reason, mask(message), retry_after_ms=retry_after)
            return
        finally:
            await race.aclose()
        if race.aborted:
            yield builder.error("aborted", ABORTED_MESSAGE)
            return
        if failure_text is None:
            failure_text = reader.ending_error()
        if failure_text is not None:
            yield builder.error("error", mask(failure_text))
        else:
            yield builder.done()
