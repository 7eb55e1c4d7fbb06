"""A recording fake of OpenAI's Responses API (``POST /v1/responses``, streamed) for goldens.

The same fake serves the recording script (the real Pi 0.85.0 talks to it) and the tests
(``pi-lsp chat`` talks to it), so both see byte-identical streams. It runs on
:class:`~tests.agent.http_fixtures.LocalHTTPServer` and answers the n-th request with the
n-th item of a *script* (``ok`` once the script runs out). A script item is a dict:

* ``{"text": str, "reasoning": [str, ...], "tool_calls": [{"name", "arguments"}],
  "usage": {"input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens"},
  "service_tier": str, "status": "completed" | "incomplete", "incomplete_reason": str}`` —
  a streamed response: one reasoning item (a summary part per string, with
  ``encrypted_content``), then a message, then the function calls, then ``response.completed``
  (or ``response.incomplete``); every key optional;
* ``{"http_error": status, "body": dict | str, "headers": {...}}`` — an HTTP error;
* ``"error_event": {"code", "message"}`` (an ``error`` event after the output so far),
  ``"failed": {"code", "message"}`` (``response.failed``) or ``"cut": "drop" | "end"`` (the
  connection dropped, or the stream ended cleanly, before a terminal event) change how a
  streamed response ends.

Ids are derived from the request number ``n`` (``resp_n``, ``rs_n_i``, ``msg_n_i``,
``fc_n_i``/``call_n_i``) and the fake's ``tag``, so a recording is reproducible.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from tests.agent.http_fixtures import (
    DROP,
    LocalHTTPServer,
    RecordedRequest,
    Reply,
    json_reply,
    sse_reply,
)

__all__ = ["ResponsesFake", "response_events"]

Item = Mapping[str, Any]


def _event(name: str, payload: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps({'type': name, **payload})}\n\n"


def _usage(item: Item) -> dict[str, Any]:
    given = item.get("usage") or {}
    input_tokens = int(given.get("input_tokens", 100))
    output_tokens = int(given.get("output_tokens", 10))
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": int(given.get("cached_tokens", 0))},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": int(given.get("reasoning_tokens", 0))},
        "total_tokens": input_tokens + output_tokens,
    }


def _pieces(text: str, size: int = 5) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


class _Stream:
    """The events of one streamed response, with their sequence numbers."""

    def __init__(self, n: int, model: str) -> None:
        self.n = n
        self.model = model
        self.parts: list[Any] = []
        self.sequence = 0
        self.output: list[dict[str, Any]] = []

    def emit(self, name: str, **payload: Any) -> None:
        self.parts.append(_event(name, {"sequence_number": self.sequence, **payload}))
        self.sequence += 1

    def response(self, status: str, **extra: Any) -> dict[str, Any]:
        return {
            "id": f"resp_{self.n:03d}",
            "object": "response",
            "created_at": 1700000000 + self.n,
            "status": status,
            "model": self.model,
            "output": list(self.output) if status != "in_progress" else [],
            **extra,
        }

    def reasoning(self, index: int, summaries: Sequence[str]) -> None:
        item_id = f"rs_{self.n:03d}_{index}"
        added = {"id": item_id, "type": "reasoning", "summary": []}
        self.emit("response.output_item.added", output_index=index, item=added)
        for part_index, text in enumerate(summaries):
            where = {"item_id": item_id, "output_index": index, "summary_index": part_index}
            self.emit(
                "response.reasoning_summary_part.added",
                **where,
                part={"type": "summary_text", "text": ""},
            )
            for piece in _pieces(text):
                self.emit("response.reasoning_summary_text.delta", **where, delta=piece)
            self.emit("response.reasoning_summary_text.done", **where, text=text)
            self.emit(
                "response.reasoning_summary_part.done",
                **where,
                part={"type": "summary_text", "text": text},
            )
        done = {
            "id": item_id,
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": t} for t in summaries],
            "encrypted_content": f"gAAAAB-encrypted-{self.n:03d}-{index}",
        }
        self.emit("response.output_item.done", output_index=index, item=done)
        self.output.append(done)

    def message(self, index: int, text: str, *, finish: bool = True) -> None:
        item_id = f"msg_{self.n:03d}_{index}"
        added = {
            "id": item_id,
            "type": "message",
            "status": "in_progress",
            "content": [],
            "role": "assistant",
        }
        self.emit("response.output_item.added", output_index=index, item=added)
        where = {"item_id": item_id, "output_index": index, "content_index": 0}
        self.emit(
            "response.content_part.added",
            **where,
            part={"type": "output_text", "annotations": [], "text": ""},
        )
        for piece in _pieces(text):
            self.emit("response.output_text.delta", **where, delta=piece, logprobs=[])
        if not finish:
            return
        self.emit("response.output_text.done", **where, text=text, logprobs=[])
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
        self.emit("response.content_part.done", **where, part=part)
        done = {**added, "status": "completed", "content": [part]}
        self.emit("response.output_item.done", output_index=index, item=done)
        self.output.append(done)

    def function_call(self, index: int, name: str, arguments: Any) -> None:
        args = arguments if isinstance(arguments, str) else json.dumps(arguments)
        item = {
            "id": f"fc_{self.n:03d}_{index}",
            "type": "function_call",
            "status": "in_progress",
            "arguments": "",
            "call_id": f"call_{self.n:03d}_{index}",
            "name": name,
        }
        self.emit("response.output_item.added", output_index=index, item=item)
        for piece in _pieces(args, 7):
            self.emit(
                "response.function_call_arguments.delta",
                item_id=item["id"],
                output_index=index,
                delta=piece,
            )
        self.emit(
            "response.function_call_arguments.done",
            item_id=item["id"],
            output_index=index,
            arguments=args,
        )
        done = {**item, "status": "completed", "arguments": args}
        self.emit("response.output_item.done", output_index=index, item=done)
        self.output.append(done)


def response_events(item: Item, n: int, model: str) -> list[Any]:
    """The SSE parts of the streamed response ``item`` to request number ``n``."""
    stream = _Stream(n, model)
    stream.emit("response.created", response=stream.response("in_progress"))
    stream.emit("response.in_progress", response=stream.response("in_progress"))
    index = 0
    if item.get("reasoning"):
        stream.reasoning(index, item["reasoning"])
        index += 1
    cut = item.get("cut")
    if item.get("text") is not None:
        stream.message(index, str(item["text"]), finish=cut is None)
        index += 1
    for call in item.get("tool_calls") or []:
        stream.function_call(index, call["name"], call.get("arguments", {}))
        index += 1
    if cut == "drop":
        return [*stream.parts, DROP]
    if cut == "end":
        return stream.parts
    if item.get("error_event"):
        error = item["error_event"]
        stream.emit("error", code=error.get("code"), message=error.get("message"), param=None)
        return stream.parts
    if item.get("failed"):
        failure = item["failed"]
        failed = stream.response("failed", error=dict(failure), incomplete_details=None, usage=None)
        stream.emit("response.failed", response=failed)
        return stream.parts
    status = item.get("status", "completed")
    reason = item.get("incomplete_reason")
    final = stream.response(
        status,
        incomplete_details={"reason": reason} if reason else None,
        usage=_usage(item),
        service_tier=item.get("service_tier", "default"),
    )
    name = "response.incomplete" if status == "incomplete" else "response.completed"
    stream.emit(name, response=final)
    return stream.parts


class ResponsesFake:
    """A ``LocalHTTPServer`` handler that plays ``script`` and records every request."""

    def __init__(self, script: Sequence[Item]) -> None:
        self.script = list(script)
        self.requests: list[RecordedRequest] = []

    def __call__(self, request: RecordedRequest) -> Reply:
        self.requests.append(request)
        n = len(self.requests)
        if not request.path.endswith("/responses"):
            return json_reply(404, {"error": {"message": f"no route {request.path}"}})
        item = self.script[n - 1] if n <= len(self.script) else {"text": "ok"}
        if "http_error" in item:
            body = item.get("body", "")
            raw = isinstance(body, str)
            return json_reply(int(item["http_error"]), body, item.get("headers"), raw=raw)
        try:
            model = str(request.json().get("model", ""))
        except ValueError:
            model = ""
        return sse_reply(response_events(item, n, model))

    def server(self) -> LocalHTTPServer:
        return LocalHTTPServer(handler=self)
