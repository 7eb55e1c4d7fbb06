"""OpenAI Responses API, streamed: what Pi 0.85 uses for every built-in OpenAI model.

Observed with the real Pi against a recording fake (tests/conformance/openai_responses_cases).

Request: ``POST {baseUrl}/responses`` with ``Authorization: Bearer``, Pi's ``User-Agent`` and,
when the request carries a session id and caching is not off, ``session_id`` and
``x-client-request-id`` (``x-session-id`` for OpenRouter). Body, keys in Pi's order: ``model``,
``input``, ``stream: true``, ``prompt_cache_key`` (the session id, at most 64 characters),
``prompt_cache_retention: "24h"`` (only for ``PI_CACHE_RETENTION=long``), ``store: false``,
``max_output_tokens`` (at least 16), ``tools`` (``{type: "function", name, description,
parameters}``, ``strict: false`` where the model's compat has ``supportsStrictMode``),
``reasoning`` (``{effort, summary: "auto"}`` with ``include:
["reasoning.encrypted_content"]`` when thinking; ``{effort: "none"}`` — or the model's own
``off`` value — when off and the model has an off level). A summary request
(``cache_retention="none"``) has neither cache key nor session headers.

Input items: the system prompt first (role ``developer`` for reasoning models), user
``input_text`` / ``input_image`` parts, the assistant's reasoning items replayed verbatim (their
JSON is the thinking block's signature), its text as ``message`` items with the id of the item
it came from (``msg_pi_<n>`` when unknown), its tool calls as ``function_call`` items (a tool
call id is ``"{call_id}|{item id}"``; the item id is dropped for another model of the same
provider, re-hashed for another provider's ids), tool results as ``function_call_output``.

Stream: ``response.output_item.added|done`` open and close blocks (reasoning → thinking, message
→ text, function_call → toolCall), text / refusal / reasoning-summary / arguments deltas fill
them, ``response.completed`` / ``response.incomplete`` give usage (input without the cached
tokens), the stop reason and the cost (scaled by the reported ``service_tier``); an ``error``
event, ``response.failed``, an event that is not JSON or a stream without a terminal event end
it with ``error``. Errors are worded as Pi words them (``OpenAI API error (429): {…}``); a
server's ``retry-after`` is not passed on (Pi retries on its own schedule).

Not carried over: OpenAI grammar tools and deferred tools (Pi uses them only with
``PI_EXPERIMENTAL=1`` or for gpt-5.5's tool search), tiered prices, GitHub Copilot's headers.
"""

from __future__ import annotations

import json
import os
import platform
import re
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any, Literal

import httpx

from pi_lsp.agent.model_api import ModelInfo, ModelRequest, ThinkingLevel, clamp_thinking_level
from pi_lsp.agent.providers.assistant import AssistantBuilder, Event, StopReason
from pi_lsp.agent.providers.partial_json import parse_streaming_json
from pi_lsp.agent.providers.secret import redactor_for
from pi_lsp.agent.providers.transform import sanitize, transform_messages
from pi_lsp.agent.providers.transport import (
    ABORTED_MESSAGE,
    Aborted,
    AbortRace,
    ClientSource,
    HttpFailure,
    open_event_stream,
    shared_client,
)
from pi_lsp.js.json import json_stringify
from pi_lsp.prompt.model_view import NO_TOOL_OUTPUT, SEE_ATTACHED_IMAGE
from pi_lsp.tools.base import AbortSignal

__all__ = [
    "NO_TERMINAL_EVENT_MESSAGE",
    "OpenAIResponsesProvider",
    "build_request_body",
    "convert_input",
    "pi_user_agent",
    "request_headers",
    "short_hash",
]

Message = dict[str, Any]
CacheRetention = Literal["none", "short", "long"]

NO_TERMINAL_EVENT_MESSAGE = "OpenAI Responses stream ended before a terminal response event"
ERROR_PREFIX = "OpenAI API error"
#: the Responses API rejects a smaller ``max_output_tokens``
MIN_OUTPUT_TOKENS = 16
PROMPT_CACHE_KEY_MAX = 64
MAX_ERROR_BODY_CHARS = 4000
#: providers whose tool-call ids carry a Responses item id (``call|item``)
TOOL_CALL_ID_PROVIDERS = frozenset({"openai", "openai-codex", "opencode"})
_ID_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
_TRAILING_UNDERSCORES = re.compile(r"_+$")


# ---------------------------------------------------------------------------------------------
# Small pieces


def short_hash(text: str) -> str:
    """pi-ai's ``shortHash``: two 32-bit multiply-xor hashes over UTF-16 code units, base 36."""
    mask = 0xFFFFFFFF
    h1, h2 = 0xDEADBEEF, 0x41C6CE57
    units = text.encode("utf-16-le", "surrogatepass")
    for i in range(0, len(units), 2):
        unit = units[i] | (units[i + 1] << 8)
        h1 = ((h1 ^ unit) * 2654435761) & mask
        h2 = ((h2 ^ unit) * 1597334677) & mask
    h1 = (((h1 ^ (h1 >> 16)) * 2246822507) & mask) ^ (((h2 ^ (h2 >> 13)) * 3266489909) & mask)
    h2 = (((h2 ^ (h2 >> 16)) * 2246822507) & mask) ^ (((h1 ^ (h1 >> 13)) * 3266489909) & mask)
    return _base36(h2) + _base36(h1)


def _base36(value: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        value, rest = divmod(value, 36)
        out = digits[rest] + out
        if value == 0:
            return out


_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64", "i386": "ia32"}


def pi_user_agent() -> str:
    """``pi (<platform> <os release>; <arch>)``, as Node's ``os`` module names them."""
    system = "win32" if sys.platform.startswith("win") else sys.platform
    machine = platform.machine().lower()
    return f"pi ({system} {platform.release()}; {_ARCH.get(machine, machine)})"


def _compat_flag(model: ModelInfo, key: str, default: bool) -> bool:
    value = (model.compat or {}).get(key)
    return value if isinstance(value, bool) else default


def _session_affinity(model: ModelInfo) -> str:
    given = (model.compat or {}).get("sessionAffinityFormat")
    if isinstance(given, str):
        return given
    openrouter = model.provider == "openrouter" or "openrouter.ai" in model.base_url
    return "openrouter" if openrouter else "openai"


def _cache_retention(request: ModelRequest) -> CacheRetention:
    if request.cache_retention is not None:
        return request.cache_retention
    return "long" if os.environ.get("PI_CACHE_RETENTION") == "long" else "short"


# ---------------------------------------------------------------------------------------------
# Input items


def _id_part(part: str) -> str:
    return _TRAILING_UNDERSCORES.sub("", _ID_UNSAFE.sub("_", part)[:64])


def _tool_call_id_normalizer(model: ModelInfo) -> Any:
    def normalize(call_id: str, source: Message) -> str:
        if model.provider not in TOOL_CALL_ID_PROVIDERS or "|" not in call_id:
            return _id_part(call_id)
        pieces = call_id.split("|")
        call, item = pieces[0], pieces[1]
        foreign = source.get("provider") != model.provider or source.get("api") != model.api
        item_id = f"fc_{short_hash(item)}"[:64] if foreign else _id_part(item)
        if not item_id.startswith("fc_"):
            item_id = _id_part(f"fc_{item_id}")
        return f"{_id_part(call)}|{item_id}"

    return normalize


def _image_part(block: dict[str, Any]) -> dict[str, Any]:
    url = f"data:{block.get('mimeType', '')};base64,{block.get('data', '')}"
    return {"type": "input_image", "detail": "auto", "image_url": url}


def _tool_output(model: ModelInfo, content: Sequence[dict[str, Any]]) -> str | list[Any]:
    text = "\n".join(str(b.get("text", "")) for b in content if b.get("type") == "text")
    images = [b for b in content if b.get("type") == "image"]
    if not images or not model.accepts_images:
        return sanitize(text if text else SEE_ATTACHED_IMAGE if images else NO_TOOL_OUTPUT)
    parts: list[Any] = [{"type": "input_text", "text": sanitize(text)}] if text else []
    return parts + [_image_part(b) for b in images]


def _text_signature(signature: Any) -> tuple[str | None, str | None]:
    """(item id, phase) of a text block's ``textSignature`` (JSON v1, or a bare id)."""
    if not isinstance(signature, str) or not signature:
        return None, None
    if signature.startswith("{"):
        try:
            parsed = json.loads(signature)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("v") == 1 and isinstance(parsed.get("id"), str):
            phase = parsed.get("phase")
            return parsed["id"], phase if phase in ("commentary", "final_answer") else None
    return signature, None


def _assistant_items(message: Message, model: ModelInfo, index: int) -> list[dict[str, Any]]:
    same_provider = message.get("provider") == model.provider and message.get("api") == model.api
    other_model = same_provider and message.get("model") != model.id
    items: list[dict[str, Any]] = []
    text_blocks = 0
    for block in message.get("content") or []:
        kind = block.get("type")
        if kind == "thinking":
            signature = block.get("thinkingSignature")
            if signature:
                try:
                    reasoning = json.loads(signature)
                except ValueError:
                    continue  # not a reasoning item of this API: nothing to replay
                items.append(reasoning)
        elif kind == "text":
            item_id, phase = _text_signature(block.get("textSignature"))
            fallback = f"msg_pi_{index}" if text_blocks == 0 else f"msg_pi_{index}_{text_blocks}"
            text_blocks += 1
            if not item_id:
                item_id = fallback
            elif len(item_id) > 64:
                item_id = f"msg_{short_hash(item_id)}"
            text = sanitize(str(block.get("text", "")))
            part = {"type": "output_text", "text": text, "annotations": []}
            item: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "content": [part],
                "status": "completed",
                "id": item_id,
            }
            if phase is not None:
                item["phase"] = phase
            items.append(item)
        elif kind == "toolCall":
            pieces = str(block.get("id", "")).split("|")
            call_id = pieces[0]
            fc_id = pieces[1] if len(pieces) > 1 else None
            if fc_id is not None and (
                (other_model and fc_id.startswith("fc_")) or not fc_id.startswith("fc_")
            ):
                fc_id = None
            call: dict[str, Any] = {"type": "function_call"}
            if fc_id is not None:
                call["id"] = fc_id
            call["call_id"] = call_id
            call["name"] = block.get("name", "")
            call["arguments"] = json_stringify(block.get("arguments") or {})
            items.append(call)
    return items


def convert_input(
    model: ModelInfo, system_prompt: str, messages: Sequence[Message]
) -> list[dict[str, Any]]:
    """The ``input`` array of a request (pi-ai's ``convertResponsesMessages``)."""
    transformed = transform_messages(
        messages, model, normalize_with_source=_tool_call_id_normalizer(model)
    )
    out: list[dict[str, Any]] = []
    if system_prompt:
        developer = model.reasoning and _compat_flag(model, "supportsDeveloperRole", True)
        system_role = "developer" if developer else "system"
        out.append({"role": system_role, "content": sanitize(system_prompt)})
    index = 0
    for message in transformed:
        role = message.get("role")
        if role == "user":
            content = message.get("content")
            if isinstance(content, str):
                part = {"type": "input_text", "text": sanitize(content)}
                out.append({"role": "user", "content": [part]})
            else:
                parts = [
                    {"type": "input_text", "text": sanitize(str(b.get("text", "")))}
                    if b.get("type") == "text"
                    else _image_part(b)
                    for b in content or []
                ]
                if not parts:
                    continue
                out.append({"role": "user", "content": parts})
        elif role == "assistant":
            items = _assistant_items(message, model, index)
            if not items:
                continue
            out.extend(items)
        elif role == "toolResult":
            call_id = str(message.get("toolCallId", "")).split("|")[0]
            output = _tool_output(model, message.get("content") or [])
            out.append({"type": "function_call_output", "call_id": call_id, "output": output})
        index += 1
    return out


def convert_tools(model: ModelInfo, tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    strict = _compat_flag(model, "supportsStrictMode", False)
    out = []
    for tool in tools:
        converted: dict[str, Any] = {
            "type": "function",
            "name": tool["name"],
            "description": tool.get("description", ""),
            "parameters": tool.get("parameters", {"type": "object", "properties": {}}),
        }
        if strict:
            converted["strict"] = False
        out.append(converted)
    return out


# ---------------------------------------------------------------------------------------------
# Request


def _reasoning(model: ModelInfo, level: ThinkingLevel) -> dict[str, Any]:
    """``reasoning`` / ``include`` for a thinking level (pi-lsp's ``off`` is Pi's "no
    reasoning option"; any other level is first clamped to what the model offers)."""
    if not model.reasoning:
        return {}
    levels = model.thinking_level_map
    clamped = clamp_thinking_level(model, level) if level != "off" else "off"
    out: dict[str, Any] = {}
    if clamped != "off":
        mapped = levels.get(clamped)
        out["reasoning"] = {"effort": mapped if mapped is not None else clamped, "summary": "auto"}
        out["include"] = ["reasoning.encrypted_content"]
    elif model.provider != "github-copilot" and not ("off" in levels and levels["off"] is None):
        off = levels.get("off")
        out["reasoning"] = {"effort": off if off is not None else "none"}
    if model.provider == "xai":
        out["include"] = ["reasoning.encrypted_content"]
    return out


def build_request_body(request: ModelRequest) -> dict[str, Any]:
    """The JSON body Pi sends for ``request`` (keys in its order)."""
    model = request.model
    retention = _cache_retention(request)
    body: dict[str, Any] = {
        "model": model.id,
        "input": convert_input(model, request.system_prompt, request.messages),
        "stream": True,
    }
    if retention != "none" and request.session_id:
        body["prompt_cache_key"] = request.session_id[:PROMPT_CACHE_KEY_MAX]
    if retention == "long" and _compat_flag(model, "supportsLongCacheRetention", True):
        body["prompt_cache_retention"] = "24h"
    body["store"] = False
    max_tokens = request.max_tokens if request.max_tokens is not None else model.max_tokens
    if max_tokens and _compat_flag(model, "supportsMaxOutputTokens", True):
        body["max_output_tokens"] = max(max_tokens, MIN_OUTPUT_TOKENS)
    if request.tools:
        body["tools"] = convert_tools(model, request.tools)
    body.update(_reasoning(model, request.thinking_level))
    return body


def request_headers(request: ModelRequest) -> dict[str, str]:
    """The headers of a request: content negotiation, the key, Pi's user agent, the model's
    own headers, then the session headers (not when caching is off)."""
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if request.api_key:
        headers["Authorization"] = f"Bearer {request.api_key}"
    headers["User-Agent"] = pi_user_agent()
    headers.update(request.model.headers)
    session = request.session_id if _cache_retention(request) != "none" else None
    if session:
        if _session_affinity(request.model) == "openrouter":
            headers["x-session-id"] = session
        else:
            if _session_affinity(request.model) == "openai":
                headers["session_id"] = session
            headers["x-client-request-id"] = session
    return headers


def responses_url(base_url: str) -> str:
    return base_url.rstrip("/") + "/responses"


# ---------------------------------------------------------------------------------------------
# Errors


def _js_json(value: Any) -> str:
    return json_stringify(value)


def http_error_message(status: int, body: bytes) -> str:
    """``errorMessage`` for an HTTP error, as the OpenAI SDK and pi-ai compose it: the JSON
    ``error`` object when there is one (``OpenAI API error (429): {…}``), else the SDK's
    ``"<status> <text>"`` / ``"<status> status code (no body)"``."""
    text = body.decode("utf-8", "replace")
    try:
        parsed: Any = json.loads(text)
        is_json = True
    except ValueError:
        parsed, is_json = None, False
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if isinstance(error, dict) and error.get("message"):
        inner = error["message"]
        detail: str | None = inner if isinstance(inner, str) else _js_json(inner)
    elif error:
        detail = _js_json(error)
    elif is_json and parsed:
        detail = None
    else:
        detail = text or None
    message = f"{status} {detail}" if detail else f"{status} status code (no body)"
    body_text = _js_json(error).strip() if isinstance(error, dict) and error else None
    if body_text and len(body_text) > MAX_ERROR_BODY_CHARS:
        cut = len(body_text) - MAX_ERROR_BODY_CHARS
        body_text = f"{body_text[:MAX_ERROR_BODY_CHARS]}... [truncated {cut} chars]"
    if body_text is None or body_text in message:
        return f"{ERROR_PREFIX} ({status}): {message}"
    return f"{ERROR_PREFIX} ({status}): {body_text}"


def _network_error_message(error: httpx.HTTPError, *, streaming: bool) -> str:
    if isinstance(error, httpx.TimeoutException):
        return "Request timed out."
    if streaming:
        return "terminated"  # what Node's fetch says when the body is cut off
    return "Connection error."


class _Failure(Exception):
    """The stream ended the response with an error (Pi's wording in ``message``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# ---------------------------------------------------------------------------------------------
# Response


_SERVICE_TIER_COST = {"flex": 0.5, "priority": 2.0}


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return int(value)


def _usage(model: ModelInfo, usage: dict[str, Any], service_tier: Any) -> dict[str, Any]:
    details = usage.get("input_tokens_details")
    details = details if isinstance(details, dict) else {}
    output_details = usage.get("output_tokens_details")
    output_details = output_details if isinstance(output_details, dict) else {}
    cached = _int(details.get("cached_tokens"))
    written = _int(details.get("cache_write_tokens"))
    counts = {
        "input": max(0, _int(usage.get("input_tokens")) - cached - written),
        "output": _int(usage.get("output_tokens")),
        "cacheRead": cached,
        "cacheWrite": written,
    }
    rates = {key: float(model.cost.get(key, 0) or 0) for key in counts}
    cost = {key: rates[key] / 1_000_000 * counts[key] for key in counts}
    multiplier = _SERVICE_TIER_COST.get(service_tier, 1.0) if isinstance(service_tier, str) else 1
    if service_tier == "priority" and model.id == "gpt-5.5":
        multiplier = 2.5
    if multiplier != 1:
        cost = {key: value * multiplier for key, value in cost.items()}
    cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
    return {
        **counts,
        "reasoning": _int(output_details.get("reasoning_tokens")),
        "totalTokens": _int(usage.get("total_tokens")),
        "cost": cost,
    }


def _stop_reason(status: Any, reason: str | None) -> tuple[StopReason, str | None]:
    if not status or status in ("completed", "in_progress", "queued"):
        return "stop", None
    if status == "incomplete":
        if reason == "max_output_tokens":
            return "length", None
        if reason:
            return "error", f"Response incomplete: {reason}"
        return "error", "Response incomplete without a provider reason"
    if status in ("failed", "cancelled"):
        return "error", None
    return "error", f"Unhandled stop reason: {status}"


class _Slot:
    __slots__ = ("index", "kind", "partial_json")

    def __init__(self, index: int, kind: str) -> None:
        self.index = index
        self.kind = kind
        self.partial_json = ""


class _EventReader:
    """Responses stream events → Pi's events; one slot per ``output_index``."""

    def __init__(self, builder: AssistantBuilder, model: ModelInfo) -> None:
        self.builder = builder
        self.model = model
        self.slots: dict[Any, _Slot] = {}
        self.terminal = False

    def _slot(self, output_index: Any, kind: str) -> _Slot | None:
        slot = self.slots.get(output_index)
        return slot if slot is not None and slot.kind == kind else None

    def _open(self, output_index: Any, item: Any) -> list[Event]:
        if not isinstance(item, dict):
            return []
        kind = item.get("type")
        if kind == "reasoning":
            index, event = self.builder.open_thinking()
            self.slots[output_index] = _Slot(index, "thinking")
        elif kind == "message":
            if item.get("phase") == "final_answer":
                self.builder.set_stop_reason("stop")
            index, event = self.builder.open_text()
            self.slots[output_index] = _Slot(index, "text")
        elif kind == "function_call":
            call_id = f"{item.get('call_id')}|{item.get('id')}"
            index, event = self.builder.open_tool_call(call_id, str(item.get("name", "")))
            slot = _Slot(index, "toolCall")
            arguments = item.get("arguments")
            slot.partial_json = arguments if isinstance(arguments, str) else ""
            self.slots[output_index] = slot
        else:
            return []
        return [event]

    def _thinking_delta(self, output_index: Any, delta: Any) -> list[Event]:
        slot = self._slot(output_index, "thinking")
        if slot is None or not isinstance(delta, str):
            return []
        return [self.builder.append_thinking(slot.index, delta)]

    def _arguments(self, slot: _Slot, text: str) -> None:
        slot.partial_json = text
        self.builder.block(slot.index)["arguments"] = parse_streaming_json(text)

    def _args_event(self, slot: _Slot, delta: str) -> Event:
        return {
            "type": "toolcall_delta",
            "contentIndex": slot.index,
            "delta": delta,
            "partial": self.builder.message,
        }

    def _item_done(self, output_index: Any, item: Any) -> list[Event]:
        if not isinstance(item, dict):
            return []
        if item.get("type") == "message" and item.get("phase") == "final_answer":
            self.builder.set_stop_reason("stop")
        events: list[Event] = []
        slot = self.slots.get(output_index)
        if slot is None:
            events += self._open(output_index, item)
            slot = self.slots.get(output_index)
        if slot is None:
            return events
        block = self.builder.block(slot.index)
        kind = item.get("type")
        if kind == "reasoning" and slot.kind == "thinking":
            summary = _joined(item.get("summary"), "\n\n", "text")
            content = _joined(item.get("content"), "\n\n", "text")
            block["thinking"] = summary or content or block["thinking"]
            block["thinkingSignature"] = json_stringify(item)
        elif kind == "message" and slot.kind == "text":
            given = item.get("content")
            parts: list[Any] = given if isinstance(given, list) else []
            block["text"] = "".join(
                str(p.get("text" if p.get("type") == "output_text" else "refusal") or "")
                for p in parts
                if isinstance(p, dict)
            )
            signature: dict[str, Any] = {"v": 1, "id": item.get("id")}
            if item.get("phase"):
                signature["phase"] = item["phase"]
            block["textSignature"] = json_stringify(signature)
        elif kind == "function_call" and slot.kind == "toolCall":
            arguments = item.get("arguments")
            text = arguments if isinstance(arguments, str) and arguments else slot.partial_json
            block["arguments"] = parse_streaming_json(text or "{}")
        else:
            return events
        del self.slots[output_index]
        events.append(self.builder.close(slot.index))
        return events

    def _finish(self, response: Any) -> None:
        self.terminal = True
        if not isinstance(response, dict):
            response = {}
        message = self.builder.message
        backfill = {
            item.get("id"): item.get("encrypted_content")
            for item in response.get("output") or []
            if isinstance(item, dict) and item.get("type") == "reasoning"
        }
        for block in self.builder.content:
            signature = block.get("thinkingSignature")
            if block.get("type") == "thinking" and isinstance(signature, str) and backfill:
                _backfill_signature(block, signature, backfill)
        if isinstance(response.get("id"), str):
            message["responseId"] = response["id"]
        if isinstance(response.get("usage"), dict):
            message["usage"] = _usage(self.model, response["usage"], response.get("service_tier"))
        status = response.get("status")
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        reason = reason if isinstance(reason, str) else None
        stop, error = _stop_reason(status, reason)
        raw = f"{status}.{reason}" if reason else status
        self.builder.set_stop_reason(stop, raw if isinstance(raw, str) else None)
        if error is None:
            message.pop("errorMessage", None)
        else:
            message["errorMessage"] = error
        if stop == "stop" and any(b.get("type") == "toolCall" for b in self.builder.content):
            message["stopReason"] = "toolUse"

    def event(self, data: dict[str, Any]) -> list[Event]:
        kind = data.get("type")
        where = data.get("output_index")
        if kind == "response.created":
            response = data.get("response")
            if isinstance(response, dict) and isinstance(response.get("id"), str):
                self.builder.message["responseId"] = response["id"]
            return []
        if kind == "response.output_item.added":
            return self._open(where, data.get("item"))
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            return self._thinking_delta(where, data.get("delta"))
        if kind == "response.reasoning_summary_part.done":
            return self._thinking_delta(where, "\n\n")
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            slot = self._slot(where, "text")
            delta = data.get("delta")
            if slot is None or not isinstance(delta, str):
                return []
            return [self.builder.append_text(slot.index, delta)]
        if kind == "response.function_call_arguments.delta":
            slot = self._slot(where, "toolCall")
            delta = data.get("delta")
            if slot is None or not isinstance(delta, str):
                return []
            self._arguments(slot, slot.partial_json + delta)
            return [self._args_event(slot, delta)]
        if kind == "response.function_call_arguments.done":
            slot = self._slot(where, "toolCall")
            full = data.get("arguments")
            if slot is None or not isinstance(full, str):
                return []
            before = slot.partial_json
            self._arguments(slot, full)
            rest = full[len(before) :] if full.startswith(before) else ""
            return [self._args_event(slot, rest)] if rest else []
        if kind == "response.output_item.done":
            return self._item_done(where, data.get("item"))
        if kind in ("response.completed", "response.incomplete"):
            self._finish(data.get("response"))
            return []
        if kind == "error":
            raise _Failure(f"Error Code {data.get('code')}: {data.get('message')}")
        if kind == "response.failed":
            self.terminal = True
            response = data.get("response")
            response = response if isinstance(response, dict) else {}
            if isinstance(response.get("status"), str):
                self.builder.message["rawStopReason"] = response["status"]
            error = response.get("error")
            details = response.get("incomplete_details")
            if isinstance(error, dict) and error:
                text = f"{error.get('code') or 'unknown'}: {error.get('message') or 'no message'}"
            elif isinstance(details, dict) and details.get("reason"):
                text = f"incomplete: {details['reason']}"
            else:
                text = "Unknown error (no error details in response)"
            raise _Failure(text)
        return []


def _joined(parts: Any, separator: str, key: str) -> str:
    if not isinstance(parts, list):
        return ""
    return separator.join(str(p.get(key, "")) for p in parts if isinstance(p, dict))


def _backfill_signature(block: dict[str, Any], signature: str, found: dict[Any, Any]) -> None:
    """Azure may leave ``encrypted_content`` out of the item and send it only at the end."""
    try:
        stored = json.loads(signature)
    except ValueError:
        return
    if not isinstance(stored, dict) or stored.get("encrypted_content"):
        return
    encrypted = found.get(stored.get("id"))
    if encrypted:
        block["thinkingSignature"] = json_stringify({**stored, "encrypted_content": encrypted})


def _stream_data_error(data: Any) -> str | None:
    """What the OpenAI SDK throws for an event whose data carries ``error``."""
    if not isinstance(data, dict) or not data.get("error"):
        return None
    error = data["error"]
    if isinstance(error, dict) and error.get("message"):
        message = error["message"]
        return message if isinstance(message, str) else _js_json(message)
    return _js_json(error)


class OpenAIResponsesProvider:
    """Streams one response from an OpenAI Responses ``/responses`` endpoint."""

    def __init__(self, clients: ClientSource = shared_client) -> None:
        self._clients = clients

    async def stream(
        self, request: ModelRequest, signal: AbortSignal | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        builder = AssistantBuilder(request.model)
        mask = redactor_for(request)  # a server may echo the key or a header back
        race = AbortRace(signal)
        reader = _EventReader(builder, request.model)
        failure: str | None = None
        started = False
        try:
            body = json_stringify(build_request_body(request)).encode("utf-8")
            client = self._clients(request.model.base_url)
            async with open_event_stream(
                client,
                responses_url(request.model.base_url),
                headers=request_headers(request),
                body=body,
                race=race,
            ) as events:
                yield builder.start()
                started = True
                async for event in events:
                    if event.data.startswith("[DONE]"):
                        break
                    try:
                        data = json.loads(event.data)
                    except ValueError:
                        raise _Failure(
                            "OpenAI Responses stream sent an event that is not JSON: "
                            + event.data[:200]
                        ) from None
                    carried = _stream_data_error(data)
                    if carried is not None:
                        raise _Failure(carried)
                    if isinstance(data, dict):
                        for out in reader.event(data):
                            yield out
        except _Failure as ended:
            failure = ended.message
        except HttpFailure as http:
            if http.status is not None:
                failure = http_error_message(http.status, http.body or b"")
            else:
                failure = "Connection error."
        except httpx.HTTPError as error:
            failure = _network_error_message(error, streaming=started)
        except Aborted:
            failure = ABORTED_MESSAGE
        finally:
            await race.aclose()
        if race.aborted:
            yield _ended(builder, "aborted", ABORTED_MESSAGE)
        elif failure is not None:
            yield _ended(builder, "error", mask(failure))
        elif not reader.terminal:
            yield _ended(builder, "error", NO_TERMINAL_EVENT_MESSAGE)
        elif builder.message["stopReason"] == "error":
            recorded = builder.message.get("errorMessage") or "An unknown error occurred"
            yield _ended(builder, "error", mask(str(recorded)))
        else:
            yield builder.done()


def _ended(builder: AssistantBuilder, reason: Literal["error", "aborted"], text: str) -> Event:
    """The ``error`` event; the message keeps what streamed so far (no retry-after: Pi waits
    on its own schedule)."""
    return builder.error(reason, text)
