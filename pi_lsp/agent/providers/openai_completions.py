"""OpenAI-compatible Chat Completions, streamed (spec §13.4, as Pi 0.85 was observed to send it).

Request body, keys in Pi's order: ``model``, ``messages``, ``stream: true``, ``stream_options``
(``include_usage``), ``store: false``, ``max_completion_tokens`` (``max_tokens`` for some
providers), ``tools`` (absent when there are none and no tool was ever called), then the
reasoning switches. Messages: the system prompt (``developer`` for reasoning models where the
provider knows that role), user content parts (``text`` / ``image_url`` data URLs), assistant
text as one string or ``null`` with ``tool_calls`` (arguments as compact JSON), one ``tool``
message per result (texts joined with ``\\n``; ``(see attached image)`` / ``(no tool output)``)
with a vision model's images following in a user message. Provider quirks come from the model's
``compat`` (models.json) or are detected from the provider name and base URL, as pi-ai does.

The stream: text deltas, reasoning in ``reasoning_content`` / ``reasoning`` / ``reasoning_text``
(a thinking block whose signature is that field's name, so it can be replayed), tool calls whose
arguments come in pieces (parsed best-effort after each), usage, finish reason. The message
records ``responseId`` (the chunk id) and ``rawStopReason``. Malformed events are skipped; a
broken connection, a missing finish reason, an HTTP error or an unusable finish reason end the
stream with ``error``; an abort closes the connection and ends it with ``aborted``.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

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
    "NO_FINISH_REASON_MESSAGE",
    "OpenAICompat",
    "OpenAICompletionsProvider",
    "build_request_body",
    "convert_messages",
    "map_finish_reason",
    "resolve_compat",
]

Message = dict[str, Any]

NO_FINISH_REASON_MESSAGE = "Stream ended without finish_reason"
ATTACHED_IMAGES_TEXT = "Attached image(s) from tool result:"
TOOL_RESULTS_BRIDGE = "I have processed the tool results."
REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
# ---------------------------------------------------------------------------------------------
# Provider quirks


@dataclass(frozen=True, slots=True)
class OpenAICompat:
    """The quirks of one OpenAI-compatible endpoint (``compat`` in models.json)."""

    supports_store: bool = True
    supports_developer_role: bool = True
    supports_reasoning_effort: bool = True
    supports_usage_in_streaming: bool = True
    supports_strict_mode: bool = True
    max_tokens_field: Literal["max_completion_tokens", "max_tokens"] = "max_completion_tokens"
    requires_tool_result_name: bool = False
    requires_assistant_after_tool_result: bool = False
    requires_thinking_as_text: bool = False
    requires_mistral_tool_ids: bool = False
    thinking_format: Literal["openai", "zai", "qwen"] = "openai"
    open_router_routing: dict[str, Any] = field(default_factory=dict)


_COMPAT_KEYS = {
    "supportsStore": "supports_store",
    "supportsDeveloperRole": "supports_developer_role",
    "supportsReasoningEffort": "supports_reasoning_effort",
    "supportsUsageInStreaming": "supports_usage_in_streaming",
    "supportsStrictMode": "supports_strict_mode",
    "requiresToolResultName": "requires_tool_result_name",
    "requiresAssistantAfterToolResult": "requires_assistant_after_tool_result",
    "requiresThinkingAsText": "requires_thinking_as_text",
    "requiresMistralToolIds": "requires_mistral_tool_ids",
}


def _detect_compat(model: ModelInfo) -> dict[str, Any]:
    provider, url = model.provider, model.base_url
    is_zai = provider == "zai" or "api.z.ai" in url
    is_grok = provider == "xai" or "api.x.ai" in url
    is_mistral = provider == "mistral" or "mistral.ai" in url
    non_standard = (
        provider in ("cerebras", "xai", "mistral", "opencode")
        or any(host in url for host in ("cerebras.ai", "api.x.ai", "mistral.ai", "chutes.ai"))
        or any(host in url for host in ("deepseek.com", "opencode.ai"))
        or is_zai
    )
    return {
        "supports_store": not non_standard,
        "supports_developer_role": not non_standard,
        "supports_reasoning_effort": not is_grok and not is_zai,
        "max_tokens_field": "max_tokens" if is_mistral or "chutes.ai" in url else None,
        "requires_tool_result_name": is_mistral,
        "requires_thinking_as_text": is_mistral,
        "requires_mistral_tool_ids": is_mistral,
        "thinking_format": "zai" if is_zai else "openai",
    }


def resolve_compat(model: ModelInfo) -> OpenAICompat:
    """Explicit ``compat`` values win over what the provider name and base URL suggest."""
    values = {k: v for k, v in _detect_compat(model).items() if v is not None}
    compat = model.compat or {}
    for key, attr in _COMPAT_KEYS.items():
        if isinstance(compat.get(key), bool):
            values[attr] = compat[key]
    if compat.get("maxTokensField") in ("max_completion_tokens", "max_tokens"):
        values["max_tokens_field"] = compat["maxTokensField"]
    if compat.get("thinkingFormat") in ("openai", "zai", "qwen"):
        values["thinking_format"] = compat["thinkingFormat"]
    if isinstance(compat.get("openRouterRouting"), dict):
        values["open_router_routing"] = dict(compat["openRouterRouting"])
    return OpenAICompat(**values)


# ---------------------------------------------------------------------------------------------
# Request


def _mistral_tool_id(call_id: str) -> str:
    normalized = re.sub(r"[^a-zA-Z0-9]", "", call_id)
    return (normalized + "ABCDEFGHI"[: max(0, 9 - len(normalized))])[:9]


def _tool_call_id_normalizer(model: ModelInfo, compat: OpenAICompat) -> Any:
    def normalize(call_id: str) -> str:
        if compat.requires_mistral_tool_ids:
            return _mistral_tool_id(call_id)
        if "|" in call_id:  # Responses-API ids: "{call_id}|{item id}"
            return re.sub(r"[^a-zA-Z0-9_-]", "_", call_id.split("|", 1)[0])[:40]
        if model.provider == "openai":
            return call_id[:40]
        return call_id

    return normalize


def _image_part(block: dict[str, Any]) -> dict[str, Any]:
    url = f"data:{block.get('mimeType', '')};base64,{block.get('data', '')}"
    return {"type": "image_url", "image_url": {"url": url}}


def _user_message(message: Message, model: ModelInfo) -> Message | None:
    content = message["content"]
    if isinstance(content, str):
        return {"role": "user", "content": sanitize(content)}
    parts: list[dict[str, Any]] = []
    for block in content:
        if block.get("type") == "text":
            parts.append({"type": "text", "text": sanitize(block.get("text", ""))})
        elif block.get("type") == "image" and model.accepts_images:
            parts.append(_image_part(block))
    return {"role": "user", "content": parts} if parts else None


def _assistant_message(message: Message, compat: OpenAICompat) -> Message | None:
    blocks = message["content"]
    out: Message = {"role": "assistant", "content": ""}
    out["content"] = "" if compat.requires_assistant_after_tool_result else None
    texts = [b["text"] for b in blocks if b.get("type") == "text" and (b.get("text") or "").strip()]
    if texts:
        out["content"] = sanitize("".join(texts))
    thinking = [
        b for b in blocks if b.get("type") == "thinking" and (b.get("thinking") or "").strip()
    ]
    if thinking:
        if compat.requires_thinking_as_text:
            joined = "\n\n".join(sanitize(b["thinking"]) for b in thinking)
            out["content"] = joined + (out["content"] or "")
        else:
            signature = thinking[0].get("thinkingSignature")
            if isinstance(signature, str) and signature:
                out[signature] = "\n".join(b["thinking"] for b in thinking)
    calls = [b for b in blocks if b.get("type") == "toolCall"]
    if calls:
        out["tool_calls"] = [
            {
                "id": call.get("id", ""),
                "type": "function",
                "function": {
                    "name": call.get("name", ""),
                    "arguments": json_stringify(call.get("arguments") or {}),
                },
            }
            for call in calls
        ]
    if not out["content"] and not calls:
        return None  # e.g. an aborted response that produced nothing
    return out


def _tool_result_text(content: Sequence[dict[str, Any]]) -> tuple[str, bool]:
    text = "\n".join(b.get("text", "") for b in content if b.get("type") == "text")
    has_images = any(b.get("type") == "image" for b in content)
    if text:
        return sanitize(text), has_images
    return (SEE_ATTACHED_IMAGE if has_images else NO_TOOL_OUTPUT), has_images


def convert_messages(
    model: ModelInfo,
    system_prompt: str,
    messages: Sequence[Message],
    compat: OpenAICompat | None = None,
) -> list[Message]:
    """The ``messages`` array of a request (system prompt first, spec §13.3–§13.4)."""
    compat = compat or resolve_compat(model)
    transformed = transform_messages(messages, model, _tool_call_id_normalizer(model, compat))
    out: list[Message] = []
    if system_prompt:
        role = "developer" if model.reasoning and compat.supports_developer_role else "system"
        out.append({"role": role, "content": sanitize(system_prompt)})
    bridge = {"role": "assistant", "content": TOOL_RESULTS_BRIDGE}
    last_role: str | None = None
    i = 0
    while i < len(transformed):
        message = transformed[i]
        role = str(message.get("role"))
        bridge_needed = compat.requires_assistant_after_tool_result and last_role == "toolResult"
        if bridge_needed and role == "user":
            out.append(dict(bridge))
        if role == "user":
            converted = _user_message(message, model)
            i += 1
            if converted is None:
                continue
            out.append(converted)
        elif role == "assistant":
            converted = _assistant_message(message, compat)
            i += 1
            if converted is None:
                continue
            out.append(converted)
        elif role == "toolResult":
            images: list[dict[str, Any]] = []
            while i < len(transformed) and transformed[i].get("role") == "toolResult":
                result = transformed[i]
                content = result.get("content") or []
                text, has_images = _tool_result_text(content)
                tool: Message = {
                    "role": "tool",
                    "content": text,
                    "tool_call_id": result.get("toolCallId", ""),
                }
                if compat.requires_tool_result_name and result.get("toolName"):
                    tool["name"] = result["toolName"]
                out.append(tool)
                if has_images and model.accepts_images:
                    images.extend(_image_part(b) for b in content if b.get("type") == "image")
                i += 1
            if images:
                if compat.requires_assistant_after_tool_result:
                    out.append(dict(bridge))
                attached = [{"type": "text", "text": ATTACHED_IMAGES_TEXT}, *images]
                out.append({"role": "user", "content": attached})
                last_role = "user"
            else:
                last_role = "toolResult"
            continue
        else:
            i += 1
            continue
        last_role = role
    return out


def _has_tool_history(messages: Sequence[Message]) -> bool:
    for message in messages:
        if message.get("role") == "toolResult":
            return True
        if message.get("role") == "assistant" and any(
            b.get("type") == "toolCall" for b in message.get("content") or []
        ):
            return True
    return False


def convert_tools(tools: Sequence[dict[str, Any]], compat: OpenAICompat) -> list[dict[str, Any]]:
    out = []
    for tool in tools:
        function: dict[str, Any] = {
            "name": tool["name"],
            "description": tool.get("description", ""),
            "parameters": tool.get("parameters", {"type": "object", "properties": {}}),
        }
        if compat.supports_strict_mode:
            function["strict"] = False
        out.append({"type": "function", "function": function})
    return out


def build_request_body(request: ModelRequest) -> dict[str, Any]:
    """The JSON body Pi sends for ``request`` (keys in Pi's order)."""
    model = request.model
    compat = resolve_compat(model)
    body: dict[str, Any] = {
        "model": model.id,
        "messages": convert_messages(model, request.system_prompt, request.messages, compat),
        "stream": True,
    }
    if compat.supports_usage_in_streaming:
        body["stream_options"] = {"include_usage": True}
    if compat.supports_store:
        body["store"] = False
    max_tokens = request.max_tokens if request.max_tokens is not None else model.max_tokens
    if max_tokens:
        body[compat.max_tokens_field] = max_tokens
    if request.tools:
        body["tools"] = convert_tools(request.tools, compat)
    elif _has_tool_history(request.messages):
        body["tools"] = []  # proxies in front of Anthropic want it when tools were used
    thinking = request.thinking_level != "off"
    if compat.thinking_format == "zai" and model.reasoning:
        body["thinking"] = {"type": "enabled" if thinking else "disabled"}
    elif compat.thinking_format == "qwen" and model.reasoning:
        body["enable_thinking"] = thinking
    elif thinking and model.reasoning and compat.supports_reasoning_effort:
        level = request.thinking_level
        body["reasoning_effort"] = "high" if level in ("xhigh", "max") else level
    if "openrouter.ai" in model.base_url and compat.open_router_routing:
        body["provider"] = compat.open_router_routing
    return body


def request_headers(request: ModelRequest) -> dict[str, str]:
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    if request.api_key:
        headers["Authorization"] = f"Bearer {request.api_key}"
    headers.update(request.model.headers)
    return headers


def chat_completions_url(base_url: str) -> str:
    return base_url.rstrip("/") + "/chat/completions"


# ---------------------------------------------------------------------------------------------
# Response


def map_finish_reason(reason: str) -> tuple[StopReason, str | None]:
    """(stopReason, errorMessage or None) for a ``finish_reason`` (spec §13.4)."""
    if reason in ("stop", "end"):
        return "stop", None
    if reason == "length":
        return "length", None
    if reason in ("tool_calls", "function_call"):
        return "toolUse", None
    return "error", f"Provider finish_reason: {reason}"


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return int(value)


def _first_number(*values: Any) -> int:
    """JavaScript's ``a ?? b ?? c ?? 0`` over optional numbers."""
    for value in values:
        if value is not None:
            return _int(value)
    return 0


def _apply_usage(builder: AssistantBuilder, usage: dict[str, Any]) -> None:
    prompt = usage.get("prompt_tokens_details")
    prompt = prompt if isinstance(prompt, dict) else {}
    completion = usage.get("completion_tokens_details")
    completion = completion if isinstance(completion, dict) else {}
    cache_read = _first_number(
        prompt.get("cached_tokens"),
        usage.get("prompt_cache_hit_tokens"),
        usage.get("cached_tokens"),
    )
    cache_write = _int(prompt.get("cache_write_tokens"))
    builder.set_usage(
        input=max(0, _int(usage.get("prompt_tokens")) - cache_read - cache_write),
        output=_int(usage.get("completion_tokens")),
        cache_read=cache_read,
        cache_write=cache_write,
        reasoning=_int(completion.get("reasoning_tokens")),
    )


class _ChunkReader:
    """Turns chat-completion chunks into Pi's events, one open block at a time (as pi-ai)."""

    def __init__(self, builder: AssistantBuilder, model: ModelInfo) -> None:
        self.builder = builder
        self.model = model
        self.current: int | None = None
        self.current_kind: str | None = None
        self.current_call_index: Any = None
        self.finish_seen = False
        self.finish_error: str | None = None
        self.stream_error: str | None = None

    def _switch(self, kind: str) -> list[Event]:
        events: list[Event] = []
        if self.current is not None:
            events.append(self.builder.close(self.current))
        self.current = None
        self.current_kind = kind
        return events

    def close(self) -> list[Event]:
        events = self._switch("")
        self.current_kind = None
        return events

    def _text(self, delta: str) -> list[Event]:
        events: list[Event] = []
        if self.current_kind != "text" or self.current is None:
            events += self._switch("text")
            self.current, opened = self.builder.open_text()
            events.append(opened)
        events.append(self.builder.append_text(self.current, delta))
        return events

    def _thinking(self, field_name: str, delta: str) -> list[Event]:
        events: list[Event] = []
        if self.current_kind != "thinking" or self.current is None:
            events += self._switch("thinking")
            self.current, opened = self.builder.open_thinking(field_name)
            events.append(opened)
        events.append(self.builder.append_thinking(self.current, delta))
        return events

    def _tool_call(self, delta: dict[str, Any]) -> list[Event]:
        events: list[Event] = []
        function = delta.get("function")
        function = function if isinstance(function, dict) else {}
        raw_id, raw_name = delta.get("id"), function.get("name")
        call_id = raw_id if isinstance(raw_id, str) else ""
        name = raw_name if isinstance(raw_name, str) else ""
        call_index = delta.get("index")
        current = self.builder.block(self.current) if self.current is not None else None
        new_call = (
            self.current_kind != "toolCall"
            or current is None
            or (call_id and current.get("id") != call_id)
            or (
                not call_id
                and call_index is not None
                and self.current_call_index is not None
                and call_index != self.current_call_index
            )
        )
        if new_call:
            events += self._switch("toolCall")
            self.current, opened = self.builder.open_tool_call(call_id, name)
            self.current_call_index = call_index
            events.append(opened)
            current = self.builder.block(self.current)
        assert self.current is not None and current is not None
        if call_id:
            current["id"] = call_id
        if name:
            current["name"] = name
        arguments = function.get("arguments")
        events.append(
            self.builder.append_tool_args(
                self.current, arguments if isinstance(arguments, str) else ""
            )
        )
        return events

    def chunk(self, chunk: dict[str, Any]) -> list[Event]:
        builder = self.builder
        error = chunk.get("error")
        if error:
            self.stream_error = stream_error_message(error)
            return []
        builder.set_response_id(chunk.get("id"))
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            _apply_usage(builder, usage)
        choices = chunk.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        if not isinstance(choice, dict):
            return []
        if not isinstance(usage, dict) and isinstance(choice.get("usage"), dict):
            _apply_usage(builder, choice["usage"])
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            stop, message = map_finish_reason(reason)
            builder.set_stop_reason(stop, reason)
            self.finish_seen = True
            self.finish_error = message
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            return []
        events: list[Event] = []
        text = delta.get("content")
        if isinstance(text, str) and text:
            leaked_tool_xml = self.model.provider == "nim" and "<TOOLCALL" in text
            if not leaked_tool_xml:
                events += self._text(text)
        for field_name in REASONING_FIELDS:
            value = delta.get(field_name)
            if isinstance(value, str) and value:
                events += self._thinking(field_name, value)
                break
        calls = delta.get("tool_calls")
        if isinstance(calls, list):
            for call in calls:
                if isinstance(call, dict):
                    events += self._tool_call(call)
        return events


class OpenAICompletionsProvider:
    """Streams one response from an OpenAI-compatible ``/chat/completions`` endpoint."""

    def __init__(self, clients: ClientSource = shared_client) -> None:
        self._clients = clients

    async def stream(
        self, request: ModelRequest, signal: AbortSignal | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        builder = AssistantBuilder(request.model)
        mask = redactor_for(request)  # a server may echo the key or a header back
        race = AbortRace(signal)
        reader = _ChunkReader(builder, request.model)
        try:
            body = json_stringify(build_request_body(request)).encode("utf-8")
            client = self._clients(request.model.base_url)
            async with open_event_stream(
                client,
                chat_completions_url(request.model.base_url),
                headers=request_headers(request),
                body=body,
                race=race,
            ) as events:
                yield builder.start()
                done = False
                async for event in events:
                    data = event.data
                    if done or not data.strip():
                        continue
                    if data.strip() == "[DONE]":
                        done = True
                        continue
                    try:
                        chunk = json.loads(data)
                    except ValueError:
                        continue  # a malformed event is skipped, as a broken line would be
                    if not isinstance(chunk, dict):
                        continue
                    for out in reader.chunk(chunk):
                        yield out
                    if reader.stream_error is not None:
                        break
        except (Aborted, HttpFailure, httpx.HTTPError) as failure:
            reason, message, retry_after = failure_reason(failure, race.aborted)
            yield builder.error(reason, mask(message), retry_after_ms=retry_after)
            return
        finally:
            await race.aclose()
        for out in reader.close():
            yield out
        if race.aborted:
            yield builder.error("aborted", ABORTED_MESSAGE)
        elif reader.stream_error is not None:
            yield builder.error("error", mask(reader.stream_error))
        elif not reader.finish_seen:
            yield builder.error("error", NO_FINISH_REASON_MESSAGE)
        elif reader.finish_error is not None:
            yield builder.error("error", mask(reader.finish_error))
        else:
            yield builder.done()
