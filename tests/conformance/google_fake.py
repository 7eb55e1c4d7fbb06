"""A recording fake of Google's Gemini API (``streamGenerateContent?alt=sse``), on real HTTP.

Both sides of the Google golden cases use it: ``record_google.py`` points the real Pi 0.85.0 at
it, ``test_google_cases.py`` points ``pi-lsp chat`` at it, and each answers the same script. It
is a :class:`~tests.agent.http_fixtures.LocalHTTPServer` whose handler plays one script item per
request, in order (when the script runs out the model answers ``ok``), and records every request.

A script item is one of

* ``{"text": "...", "thinking"?: "...", "signature"?: "...", "calls"?: [...], "finish"?: "STOP",
  "usage"?: {...}, "pieces"?: 2, "cut"?: true, "trailing"?: "..."}`` — a streamed answer as
  Gemini sends it: thought parts (``thought: true``), then text parts, then one
  ``functionCall`` part per call (``{"name", "args", "id"?, "signature"?}``), each chunk with
  ``usageMetadata`` counted so far and the last one also with ``finishReason`` and the final
  usage (``{"prompt", "candidates", "thoughts", "cached"}``). ``signature`` is the
  ``thoughtSignature`` of the last text part (or of the thought part when there is no text).
  ``cut`` drops the connection after the chunks, before the finish chunk;
  ``trailing`` is sent verbatim after the chunks (a broken last event, say);
* ``{"chunks": [ {...}, ... ], "cut"?: true}`` — those chunks verbatim;
* ``{"status": 429, "body": {...} | "text", "headers"?: {...}}`` — an HTTP error with Google's
  error JSON (or a text body).

Events are ``data: {json}`` separated by ``\\r\\n\\r\\n``, as Google writes them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.agent.http_fixtures import DROP, LocalHTTPServer, RecordedRequest, Reply, json_reply

__all__ = ["GeminiScript", "error_body", "gemini_chunk", "gemini_reply", "serve"]

RESPONSE_ID = "resp-gemini-0001"
STATUS_TEXT = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


def error_body(code: int, message: str) -> dict[str, Any]:
    """Google's error JSON: ``{"error": {"code", "message", "status"}}``."""
    return {"error": {"code": code, "message": message, "status": STATUS_TEXT.get(code, "UNKNOWN")}}


def _usage(usage: Mapping[str, int], fraction: float = 1.0) -> dict[str, Any]:
    prompt = int(usage.get("prompt", 100))
    candidates = int(int(usage.get("candidates", 10)) * fraction)
    thoughts = int(int(usage.get("thoughts", 0)) * fraction)
    cached = int(usage.get("cached", 0))
    out: dict[str, Any] = {"promptTokenCount": prompt}
    if candidates:
        out["candidatesTokenCount"] = candidates
    out["totalTokenCount"] = prompt + candidates + thoughts
    if cached:
        out["cachedContentTokenCount"] = cached
    out["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": prompt}]
    if thoughts:
        out["thoughtsTokenCount"] = thoughts
    return out


def gemini_chunk(
    parts: Sequence[Mapping[str, Any]],
    *,
    usage: Mapping[str, Any] | None = None,
    finish: str | None = None,
    model: str = "gemini-test",
) -> dict[str, Any]:
    """One ``GenerateContentResponse`` of a stream."""
    candidate: dict[str, Any] = {"content": {"parts": [dict(p) for p in parts], "role": "model"}}
    if finish is not None:
        candidate["finishReason"] = finish
    candidate["index"] = 0
    chunk: dict[str, Any] = {"candidates": [candidate]}
    if usage is not None:
        chunk["usageMetadata"] = dict(usage)
    chunk["modelVersion"] = model
    chunk["responseId"] = RESPONSE_ID
    return chunk


def _pieces(text: str, count: int) -> list[str]:
    if not text:
        return []
    size = max(1, -(-len(text) // max(1, count)))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _answer_chunks(item: Mapping[str, Any], model: str) -> list[dict[str, Any]]:
    usage = item.get("usage") or {}
    count = int(item.get("pieces", 2))
    parts: list[dict[str, Any]] = []
    thinking = _pieces(str(item.get("thinking", "")), count)
    text = _pieces(str(item.get("text", "")), count)
    signature = item.get("signature")
    for i, piece in enumerate(thinking):
        part: dict[str, Any] = {"text": piece, "thought": True}
        if signature and not text and i == len(thinking) - 1:
            part["thoughtSignature"] = signature
        parts.append(part)
    for i, piece in enumerate(text):
        part = {"text": piece}
        if signature and i == len(text) - 1:
            part["thoughtSignature"] = signature
        parts.append(part)
    for call in item.get("calls") or []:
        function: dict[str, Any] = {"name": call["name"], "args": call.get("args", {})}
        if "id" in call:
            function["id"] = call["id"]
        part = {"functionCall": function}
        if call.get("signature"):
            part["thoughtSignature"] = call["signature"]
        parts.append(part)
    if item.get("cut"):
        fractions = [(i + 1) / (len(parts) + 1) for i in range(len(parts))]
        return [
            gemini_chunk([part], usage=_usage(usage, f), model=model)
            for part, f in zip(parts, fractions, strict=True)
        ]
    finish = item.get("finish", "STOP")
    if not parts:
        parts = [{"text": ""}]
    chunks = [
        gemini_chunk([part], usage=_usage(usage, (i + 1) / len(parts)), model=model)
        for i, part in enumerate(parts[:-1])
    ]
    last = gemini_chunk([parts[-1]], usage=_usage(usage), finish=finish, model=model)
    return [*chunks, last]


def _event(chunk: Mapping[str, Any] | str) -> bytes:
    text = chunk if isinstance(chunk, str) else json.dumps(chunk, separators=(",", ":"))
    return f"data: {text}\r\n\r\n".encode()


def gemini_reply(item: Mapping[str, Any], model: str = "gemini-test") -> Reply:
    """The HTTP reply for one script item."""
    status = item.get("status")
    if isinstance(status, int):
        body = item.get("body", error_body(status, "error"))
        headers = dict(item.get("headers") or {})
        if isinstance(body, str):
            return Reply(
                status=status,
                headers=[("Content-Type", "text/plain"), *headers.items()],
                parts=[body.encode()],
            )
        return json_reply(status, body, headers)
    chunks = item["chunks"] if "chunks" in item else _answer_chunks(item, model)
    parts: list[Any] = [_event(c) for c in chunks]
    if item.get("trailing"):
        parts.append(str(item["trailing"]).encode())
    if item.get("cut"):
        parts.append(DROP)
    headers = [
        ("Content-Type", "text/event-stream"),
        ("Content-Disposition", "attachment"),
        ("Vary", "Origin"),
    ]
    return Reply(status=200, headers=headers, parts=parts)


@dataclass
class GeminiScript:
    """Answers requests with the script's items, in order; ``ok`` once it runs out."""

    items: list[dict[str, Any]] = field(default_factory=list)
    served: int = 0

    def __call__(self, request: RecordedRequest) -> Reply:
        model = request.path.split("/models/", 1)[-1].split(":", 1)[0] or "gemini-test"
        if self.served < len(self.items):
            item = self.items[self.served]
        else:
            item = {"text": "ok", "usage": {"prompt": 100, "candidates": 1}}
        self.served += 1
        return gemini_reply(item, model)


def serve(items: Sequence[Mapping[str, Any]]) -> LocalHTTPServer:
    """A server that plays ``items`` (use as ``async with``)."""
    return LocalHTTPServer(handler=GeminiScript([dict(i) for i in items]))
