"""Google Generative AI (Gemini), streamed, as Pi 0.85 sends it through Google's SDK.

``POST {baseUrl}/models/{model}:streamGenerateContent?alt=sse`` with ``x-goog-api-key``. Body,
keys in the SDK's order: ``contents``, ``systemInstruction`` (``{parts: [{text}], role:
"user"}``), ``tools`` (``[{functionDeclarations: [{name, description, parametersJsonSchema}]}]``),
``generationConfig`` (``maxOutputTokens``, ``thinkingConfig``). Thinking: Gemini 2.x budgets
(``includeThoughts`` + ``thinkingBudget``; off is budget 0), Gemini 3 / Gemma 4 levels
(``thinkingLevel``), nothing for a model without reasoning.

Contents: user text and images (``inlineData``); the model's turns as ``thought`` parts, text
parts and ``functionCall`` parts, each with its ``thoughtSignature`` only when it comes from the
same provider and model and is valid base64; tool results as ``functionResponse`` parts
(``{output}`` or ``{error}``), consecutive ones in one user turn. Tool-call ids are sent only to
models that need them (Gemini 3 on), cleaned to 64 characters of ``[A-Za-z0-9_-]`` when they
come from another model.

The stream: ``data: {json}`` events split on a blank line (``\\n\\n``, ``\\r\\r`` or
``\\r\\n\\r\\n``); each is a ``GenerateContentResponse`` whose first candidate's parts become
thinking, text and tool-call blocks; usage is the last ``usageMetadata`` (output = candidates +
thoughts, input without the cached tokens, the total as Google counts it). Errors read as Pi's:
an HTTP error is the JSON error body, a cut connection ``terminated``, a stream without a finish
reason or with a refusing one says so.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import httpx

from pi_lsp.agent.model_api import ModelInfo, ModelRequest, ThinkingLevel, clamp_thinking_level
from pi_lsp.agent.providers.assistant import AssistantBuilder, Event, StopReason, now_ms
from pi_lsp.agent.providers.secret import redactor_for
from pi_lsp.agent.providers.transform import sanitize, transform_messages
from pi_lsp.agent.providers.transport import (
    ABORTED_MESSAGE,
    Aborted,
    AbortRace,
    ClientSource,
    HttpFailure,
    failure_reason,
    open_byte_stream,
    shared_client,
)
from pi_lsp.js.json import json_stringify
from pi_lsp.js.json_document import JsonSyntaxError, parse_json_document
from pi_lsp.prompt.model_view import SEE_ATTACHED_IMAGE
from pi_lsp.tools.base import AbortSignal

__all__ = [
    "NO_FINISH_REASON_MESSAGE",
    "GoogleGenerativeAIProvider",
    "build_request_body",
    "convert_messages",
    "map_finish_reason",
    "stream_url",
    "thinking_config",
]

Message = dict[str, Any]
Part = dict[str, Any]

NO_FINISH_REASON_MESSAGE = "Google stream ended without a finish reason"
INCOMPLETE_EVENT_MESSAGE = "Incomplete JSON segment at the end"
#: what undici says when the connection drops in the middle of a body
TERMINATED_MESSAGE = "terminated"
TOOL_RESULT_IMAGE_TEXT = "Tool result image:"

_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_GEMINI_MAJOR = re.compile(r"gemini(?:-live)?-([0-9]+)")
_GEMINI3_PRO = re.compile(r"gemini-3(?:\.[0-9]+)?-pro")
_GEMINI3_FLASH = re.compile(r"gemini-3(?:\.[0-9]+)?-flash")
_GEMMA4 = re.compile(r"gemma-?4")
_UNSAFE_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")
#: Pi's thinking budgets for Gemini 2.5 (tokens per level); other budget models think freely
_BUDGETS = (
    ("2.5-pro", {"minimal": 128, "low": 2048, "medium": 8192, "high": 32768}),
    ("2.5-flash-lite", {"minimal": 512, "low": 2048, "medium": 8192, "high": 24576}),
    ("2.5-flash", {"minimal": 128, "low": 2048, "medium": 8192, "high": 24576}),
)
_DYNAMIC_BUDGET = -1
_GOOGLE_LEVELS = ("minimal", "low", "medium", "high")
_FINISH_ERRORS = frozenset(
    {
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "SAFETY",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "IMAGE_OTHER",
        "RECITATION",
        "FINISH_REASON_UNSPECIFIED",
        "OTHER",
        "LANGUAGE",
        "MALFORMED_FUNCTION_CALL",
        "UNEXPECTED_TOOL_CALL",
        "NO_IMAGE",
    }
)


# ---------------------------------------------------------------------------------------------
# Models


def _gemini_major(model_id: str) -> int | None:
    match = _GEMINI_MAJOR.match(model_id.lower())
    return int(match.group(1)) if match else None


def requires_tool_call_id(model_id: str) -> bool:
    """Models behind Google's API that want ids on function calls and responses."""
    major = _gemini_major(model_id)
    return model_id.startswith(("claude-", "gpt-oss-")) or (major is not None and major >= 3)


def _nests_result_images(model_id: str) -> bool:
    """Gemini 3 on (and non-Gemini models) take images inside ``functionResponse.parts``."""
    major = _gemini_major(model_id)
    return major is None or major >= 3


def _is_gemini3_pro(model: ModelInfo) -> bool:
    return _GEMINI3_PRO.search(model.id.lower()) is not None


def _is_gemini3_flash(model: ModelInfo) -> bool:
    model_id = model.id.lower()
    return _GEMINI3_FLASH.search(model_id) is not None or model_id in (
        "gemini-flash-latest",
        "gemini-flash-lite-latest",
    )


def _is_gemma4(model: ModelInfo) -> bool:
    return _GEMMA4.search(model.id.lower()) is not None


def _valid_signature(signature: Any) -> bool:
    """Thought signatures are bytes to Google: base64 only (anything else is refused)."""
    return (
        isinstance(signature, str)
        and bool(signature)
        and len(signature) % 4 == 0
        and _BASE64.fullmatch(signature) is not None
    )


# ---------------------------------------------------------------------------------------------
# Request


def _tool_call_id_normalizer(model: ModelInfo) -> Callable[[str], str]:
    def normalize(call_id: str) -> str:
        if not requires_tool_call_id(model.id):
            return call_id
        return _UNSAFE_ID_CHARS.sub("_", call_id)[:64]

    return normalize


def _inline_data(block: dict[str, Any], *, nested: bool = False) -> Part:
    """An image part. The SDK writes a content part's blob as ``data, mimeType``; one nested
    in a ``functionResponse`` goes out as Pi built it, ``mimeType`` first."""
    data, mime = block.get("data", ""), block.get("mimeType", "")
    blob = {"mimeType": mime, "data": data} if nested else {"data": data, "mimeType": mime}
    return {"inlineData": blob}


def _user_parts(message: Message) -> list[Part]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"text": sanitize(content)}]
    parts: list[Part] = []
    for block in content or []:
        if block.get("type") == "text":
            parts.append({"text": sanitize(str(block.get("text", "")))})
        elif block.get("type") == "image":
            parts.append(_inline_data(block))
    return parts


def _signed(part: Part, keep: bool, signature: Any) -> Part:
    if keep and _valid_signature(signature):
        part["thoughtSignature"] = signature
    return part


def _model_parts(message: Message, model: ModelInfo) -> list[Part]:
    same = message.get("provider") == model.provider and message.get("model") == model.id
    parts: list[Part] = []
    for block in message.get("content") or []:
        kind = block.get("type")
        if kind == "text":
            text = str(block.get("text") or "")
            signature = block.get("textSignature") if same else None
            if not text.strip() and not _valid_signature(signature):
                continue
            parts.append(_signed({"text": sanitize(text)}, same, signature))
        elif kind == "thinking":
            text = str(block.get("thinking") or "")
            signature = block.get("thinkingSignature") if same else None
            if not same:
                if text.strip():
                    parts.append({"text": sanitize(text)})
                continue
            if not text.strip() and not _valid_signature(signature):
                continue
            parts.append(_signed({"text": sanitize(text), "thought": True}, same, signature))
        elif kind == "toolCall":
            call: dict[str, Any] = {}
            if requires_tool_call_id(model.id):
                call["id"] = block.get("id", "")
            call["args"] = block.get("arguments") or {}
            call["name"] = block.get("name", "")
            parts.append(_signed({"functionCall": call}, same, block.get("thoughtSignature")))
    return parts


def _function_response(message: Message, model: ModelInfo) -> tuple[Part, list[Part]]:
    """The ``functionResponse`` part of a tool result, and its images."""
    content = message.get("content") or []
    text = "\n".join(str(b.get("text", "")) for b in content if b.get("type") == "text")
    images = [b for b in content if b.get("type") == "image"] if model.accepts_images else []
    value = sanitize(text) if text else SEE_ATTACHED_IMAGE if images else ""
    image_parts = [_inline_data(b) for b in images]
    response: dict[str, Any] = {
        "name": message.get("toolName", ""),
        "response": {"error": value} if message.get("isError") else {"output": value},
    }
    if image_parts and _nests_result_images(model.id):
        response["parts"] = [_inline_data(b, nested=True) for b in images]
    if requires_tool_call_id(model.id):
        response["id"] = message.get("toolCallId", "")
    return {"functionResponse": response}, image_parts


def convert_messages(model: ModelInfo, messages: Sequence[Message]) -> list[Message]:
    """The ``contents`` of a request."""
    contents: list[Message] = []
    for message in transform_messages(messages, model, _tool_call_id_normalizer(model)):
        role = message.get("role")
        if role == "user":
            parts = _user_parts(message)
            if parts:
                contents.append({"parts": parts, "role": "user"})
        elif role == "assistant":
            parts = _model_parts(message, model)
            if parts:
                contents.append({"parts": parts, "role": "model"})
        elif role == "toolResult":
            part, images = _function_response(message, model)
            last = contents[-1] if contents else None
            if (
                last is not None
                and last["role"] == "user"
                and any("functionResponse" in p for p in last["parts"])
            ):
                last["parts"].append(part)
            else:
                contents.append({"parts": [part], "role": "user"})
            if images and not _nests_result_images(model.id):
                contents.append(
                    {"parts": [{"text": TOOL_RESULT_IMAGE_TEXT}, *images], "role": "user"}
                )
    return contents


def _google_level(model: ModelInfo, level: str) -> str:
    """The level's name in Google's terms (the model's ``thinkingLevelMap`` first)."""
    mapped = model.thinking_level_map.get(level)
    resolved = mapped.lower() if isinstance(mapped, str) else level
    if resolved not in _GOOGLE_LEVELS:
        raise ValueError(
            "Unsupported Google thinking level mapping for "
            f"{model.provider}/{model.id}: {level} -> {mapped}"
        )
    return resolved


def _level_value(model: ModelInfo, level: str) -> str:
    if _is_gemini3_pro(model):
        return "LOW" if level in ("minimal", "low") else "HIGH"
    if _is_gemma4(model):
        return "MINIMAL" if level in ("minimal", "low") else "HIGH"
    return level.upper()


def _budget(model: ModelInfo, level: str) -> int:
    for marker, budgets in _BUDGETS:
        if marker in model.id:
            return budgets[level]
    return _DYNAMIC_BUDGET


def thinking_config(model: ModelInfo, requested: ThinkingLevel) -> dict[str, Any] | None:
    """``generationConfig.thinkingConfig`` for a request at ``requested`` (None: omitted)."""
    if not model.reasoning:
        return None
    if requested == "off":
        if _is_gemini3_pro(model):
            return {"thinkingLevel": "LOW"}
        if _is_gemini3_flash(model) or _is_gemma4(model):
            return {"thinkingLevel": "MINIMAL"}
        return {"thinkingBudget": 0}
    level = _google_level(model, clamp_thinking_level(model, requested))
    if _is_gemini3_pro(model) or _is_gemini3_flash(model) or _is_gemma4(model):
        return {"includeThoughts": True, "thinkingLevel": _level_value(model, level)}
    return {"includeThoughts": True, "thinkingBudget": _budget(model, level)}


def build_request_body(request: ModelRequest) -> dict[str, Any]:
    """The JSON body Pi sends for ``request`` (keys in the SDK's order)."""
    model = request.model
    body: dict[str, Any] = {"contents": convert_messages(model, request.messages)}
    if request.system_prompt:
        body["systemInstruction"] = {
            "parts": [{"text": sanitize(request.system_prompt)}],
            "role": "user",
        }
    if request.tools:
        declarations = [
            {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "parametersJsonSchema": tool.get("parameters", {}),
            }
            for tool in request.tools
        ]
        body["tools"] = [{"functionDeclarations": declarations}]
    config: dict[str, Any] = {}
    max_tokens = request.max_tokens if request.max_tokens is not None else model.max_tokens
    if max_tokens:
        config["maxOutputTokens"] = max_tokens
    thinking = thinking_config(model, request.thinking_level)
    if thinking is not None:
        config["thinkingConfig"] = thinking
    if config:
        body["generationConfig"] = config
    return body


def request_headers(request: ModelRequest) -> dict[str, str]:
    headers = {"Content-Type": "application/json"}
    if request.api_key:
        headers["x-goog-api-key"] = request.api_key
    headers.update(request.model.headers)
    return headers


def stream_url(model: ModelInfo) -> str:
    return f"{model.base_url.rstrip('/')}/models/{model.id}:streamGenerateContent?alt=sse"


def http_error_message(status: int, reason: str, content_type: str, body: bytes) -> str:
    """The SDK's error text: the JSON error body as it came, compacted; another body wrapped
    as ``{"error": {"message", "code", "status"}}`` with the reason phrase."""
    text = body.decode("utf-8", "replace")
    if "application/json" in content_type:
        try:
            return json_stringify(json.loads(text))
        except ValueError:
            pass
    return json_stringify({"error": {"message": text, "code": status, "status": reason}})


# ---------------------------------------------------------------------------------------------
# Response


def map_finish_reason(reason: str) -> tuple[StopReason, str | None]:
    """(stopReason, errorMessage or None) for a ``finishReason``."""
    if reason == "STOP":
        return "stop", None
    if reason == "MAX_TOKENS":
        return "length", None
    if reason in _FINISH_ERRORS:
        return "error", f"Provider stopped with: {reason}"
    return "error", f"Unhandled stop reason: {reason}"


class StreamFailure(Exception):
    """The stream cannot go on; ``message`` is the ``errorMessage``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _EventSplitter:
    """Google's stream as the SDK reads it: text cut at the first blank line of any style
    (``\\n\\n``, ``\\r\\r``, ``\\r\\n\\r\\n``), ``data:`` events kept. Linear: an incomplete event
    is kept as pieces and joined once, and only its last three characters are searched again.
    """

    _DELIMITERS = ("\n\n", "\r\r", "\r\n\r\n")

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pieces: list[str] = []  # the incomplete event so far
        self._tail = ""  # its last (up to) three characters

    def _earliest(self, text: str, start: int) -> tuple[int, int]:
        found, length = -1, 0
        for delimiter in self._DELIMITERS:
            index = text.find(delimiter, start)
            if index != -1 and (found == -1 or index < found):
                found, length = index, len(delimiter)
        return found, length

    def feed(self, data: bytes) -> list[str]:
        text = self._decoder.decode(data)
        if not text:
            return []
        _raise_if_error_object(text)
        tail = self._tail
        window = tail + text
        events: list[str] = []
        position = 0  # where the next event starts in ``window`` (after the first one)
        while True:
            found, length = self._earliest(window, position)
            if found == -1:
                break
            if not events and self._pieces:
                pending = "".join(self._pieces)
                cut = found - len(tail)
                events.append(
                    pending[: len(pending) + cut]
                    if cut < 0
                    else pending + window[len(tail) : found]
                )
                self._pieces = []
            else:
                events.append(window[position:found])
            position = found + length
        if events:
            rest = window[position:]
            self._pieces = [rest] if rest else []
            self._tail = rest[-3:]
        else:
            self._pieces.append(text)
            self._tail = window[-3:]
        payloads = []
        for event in events:
            event = event.strip()
            if event.startswith("data:"):
                payloads.append(event[len("data:") :].strip())
        return payloads

    def finish(self) -> None:
        rest = "".join(self._pieces) + self._decoder.decode(b"", final=True)
        if rest.strip():
            _raise_if_error_object(rest)
            raise StreamFailure(INCOMPLETE_EVENT_MESSAGE)


def _raise_if_error_object(text: str) -> None:
    """A body piece that is Google's error JSON by itself (no ``data:``) ends the stream."""
    stripped = text.strip()
    if not stripped.startswith("{"):
        return
    try:
        value = json.loads(stripped)
    except ValueError:
        return
    error = value.get("error") if isinstance(value, dict) else None
    if not isinstance(error, dict):
        return
    code = error.get("code")
    if isinstance(code, int | float) and not isinstance(code, bool) and 400 <= code < 600:
        status = error.get("status")
        shown = status if isinstance(status, str) else json_stringify(status)
        raise StreamFailure(f"got status: {shown}. {json_stringify(value)}")


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return int(value)


_call_counter = 0


def _made_up_id(name: str) -> str:
    global _call_counter
    _call_counter += 1
    return f"{name}_{now_ms()}_{_call_counter}"


class _ChunkReader:
    """``GenerateContentResponse`` chunks → Pi's events, one open text or thinking block."""

    def __init__(self, builder: AssistantBuilder) -> None:
        self.builder = builder
        self.current: int | None = None
        self.finish_error: str | None = None

    def _close_current(self) -> list[Event]:
        if self.current is None:
            return []
        index, self.current = self.current, None
        return [self.builder.close(index)]

    def _text_part(self, part: dict[str, Any], text: str) -> list[Event]:
        thinking = part.get("thought") is True
        kind = "thinking" if thinking else "text"
        events: list[Event] = []
        if self.current is None or self.builder.block(self.current)["type"] != kind:
            events += self._close_current()
            if thinking:
                self.current, opened = self.builder.open_thinking()
            else:
                self.current, opened = self.builder.open_text()
            events.append(opened)
        block = self.builder.block(self.current)
        signature = part.get("thoughtSignature")
        key = "thinkingSignature" if thinking else "textSignature"
        if isinstance(signature, str) and signature:
            block[key] = signature
        if thinking:
            events.append(self.builder.append_thinking(self.current, text))
        else:
            events.append(self.builder.append_text(self.current, text))
        return events

    def _call_part(self, part: dict[str, Any], call: dict[str, Any]) -> list[Event]:
        events = self._close_current()
        name = call.get("name")
        name = name if isinstance(name, str) else ""
        given = call.get("id")
        taken = {b.get("id") for b in self.builder.content if b.get("type") == "toolCall"}
        call_id = given if isinstance(given, str) and given and given not in taken else None
        args = call.get("args")
        arguments = args if isinstance(args, dict) else {}
        index, opened = self.builder.open_tool_call(call_id or _made_up_id(name), name, arguments)
        signature = part.get("thoughtSignature")
        if isinstance(signature, str) and signature:
            self.builder.block(index)["thoughtSignature"] = signature
        events.append(opened)
        events.append(self.builder.append_tool_args(index, json_stringify(arguments)))
        events.append(self.builder.close(index))
        return events

    def _usage(self, usage: dict[str, Any]) -> None:
        cached = _count(usage.get("cachedContentTokenCount"))
        thoughts = _count(usage.get("thoughtsTokenCount"))
        self.builder.set_usage(
            input=_count(usage.get("promptTokenCount")) - cached,
            output=_count(usage.get("candidatesTokenCount")) + thoughts,
            cache_read=cached,
            reasoning=thoughts,
        )
        # Google's own total (it counts tool-use prompt tokens the other fields leave out)
        self.builder.message["usage"]["totalTokens"] = _count(usage.get("totalTokenCount"))

    def chunk(self, chunk: dict[str, Any]) -> list[Event]:
        builder = self.builder
        builder.set_response_id(chunk.get("responseId"))
        candidates = chunk.get("candidates")
        candidate = candidates[0] if isinstance(candidates, list) and candidates else None
        candidate = candidate if isinstance(candidate, dict) else {}
        content = candidate.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        events: list[Event] = []
        for part in parts if isinstance(parts, list) else []:
            if not isinstance(part, dict):
                continue
            text = part.get("text")
            if isinstance(text, str):
                events += self._text_part(part, text)
            call = part.get("functionCall")
            if isinstance(call, dict):
                events += self._call_part(part, call)
        reason = candidate.get("finishReason")
        if isinstance(reason, str) and reason:
            stop, error = map_finish_reason(reason)
            has_calls = any(b.get("type") == "toolCall" for b in builder.content)
            builder.set_stop_reason("toolUse" if stop == "stop" and has_calls else stop, reason)
            if error is not None and error.startswith("Unhandled"):
                raise StreamFailure(error)
            self.finish_error = error
        usage = chunk.get("usageMetadata")
        if isinstance(usage, dict):
            self._usage(usage)
        return events


def _payload(text: str) -> dict[str, Any]:
    """An event's JSON; a broken one ends the stream with V8's ``JSON.parse`` error text."""
    try:
        value = json.loads(text)
    except ValueError:
        try:
            parse_json_document(text)
        except JsonSyntaxError as error:
            raise StreamFailure(error.message) from None
        raise StreamFailure(f"Unexpected JSON in stream chunk {text[:200]}") from None
    return value if isinstance(value, dict) else {}


class GoogleGenerativeAIProvider:
    """Streams one response from Gemini's ``streamGenerateContent`` endpoint."""

    def __init__(self, clients: ClientSource = shared_client) -> None:
        self._clients = clients

    async def stream(
        self, request: ModelRequest, signal: AbortSignal | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        builder = AssistantBuilder(request.model)
        mask = redactor_for(request)  # a server may echo the key or a header back
        race = AbortRace(signal)
        reader = _ChunkReader(builder)
        splitter = _EventSplitter()
        try:
            body = json_stringify(build_request_body(request)).encode("utf-8")
            client = self._clients(request.model.base_url)
            async with open_byte_stream(
                client,
                stream_url(request.model),
                headers=request_headers(request),
                body=body,
                race=race,
                error_message=http_error_message,
            ) as chunks:
                yield builder.start()
                async for data in chunks:
                    for payload in splitter.feed(data):
                        for out in reader.chunk(_payload(payload)):
                            yield out
                splitter.finish()
        except (Aborted, HttpFailure) as failure:
            reason, message, _ = failure_reason(failure, race.aborted)
            yield builder.error(reason, mask(message))
            return
        except httpx.TimeoutException as failure:
            reason, message, _ = failure_reason(failure, race.aborted)
            yield builder.error(reason, mask(message))
            return
        except httpx.HTTPError:
            aborted = race.aborted
            yield builder.error(
                "aborted" if aborted else "error",
                ABORTED_MESSAGE if aborted else TERMINATED_MESSAGE,
            )
            return
        except (StreamFailure, ValueError) as failure:
            message = failure.message if isinstance(failure, StreamFailure) else str(failure)
            yield builder.error("aborted" if race.aborted else "error", mask(message))
            return
        finally:
            await race.aclose()
        for out in reader._close_current():
            yield out
        if race.aborted:
            yield builder.error("aborted", ABORTED_MESSAGE)
        elif builder.message["stopReason"] == "pending":
            yield builder.error("error", NO_FINISH_REASON_MESSAGE)
        elif builder.message["stopReason"] == "error":
            yield builder.error("error", mask(reader.finish_error or "An unknown error occurred"))
        else:
            yield builder.done()
