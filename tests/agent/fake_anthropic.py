"""A recording fake Anthropic Messages server for a client in another process (Pi, pi-lsp chat).

    with FakeAnthropic(script) as fake:
        ... run a client with baseUrl fake.base_url ...
    fake.requests       # every request: method, path, headers, JSON body, arrival time

The server is :class:`~tests.agent.http_fixtures.LocalHTTPServer` on its own event loop in a
background thread, so a test can ``subprocess.run`` a client while it serves. Each request gets
the next item of the script (a list of JSON-able dicts, one per request); when the script has
run out the model answers ``ok``. Items:

``{"http": 429, "headers": {"retry-after": "3"}, "body": {...} | "text"}``
    an HTTP error with a JSON (or, for a string, verbatim) body.
``{"blocks": [...], "stop_reason": "end_turn", "usage": {...}, "delta_usage": {...}}``
    a streamed answer. Blocks: ``{"type": "text", "text"}``, ``{"type": "thinking",
    "thinking", "signature"}``, ``{"type": "redacted_thinking", "data"}``, ``{"type":
    "tool_use", "id", "name", "input"}`` (input sent as ``input_json_delta`` pieces).
    ``usage`` is ``message_start``'s (Anthropic's field names; ``input_tokens`` 100 and
    ``output_tokens`` 1 unless given), ``delta_usage`` ``message_delta``'s (default
    ``{"output_tokens": 10}``). ``"error_event": {...}`` sends an ``event: error`` after the
    blocks instead of the end; ``"cut": true`` ends the body after the blocks (no
    ``message_delta`` / ``message_stop``); ``"no_message_stop": true`` sends ``message_delta``
    but no ``message_stop``.
``{"text": "..."}``
    short for one text block.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tests.agent.http_fixtures import (
    LocalHTTPServer,
    RecordedRequest,
    Reply,
    anthropic_events,
    json_reply,
    sse_reply,
)

__all__ = ["FakeAnthropic", "Recorded", "reply_for_item"]

Item = Mapping[str, Any]
PIECE = 7  # characters per delta: every text and tool input arrives in several pieces


def _pieces(text: str) -> list[str]:
    return [text[i : i + PIECE] for i in range(0, len(text), PIECE)] or [""]


def _event(name: str, **data: Any) -> tuple[str, dict[str, Any]]:
    return name, {"type": name, **data}


def _block_events(index: int, block: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    kind = block["type"]
    delta: list[dict[str, Any]] = []
    if kind == "text":
        start: dict[str, Any] = {"type": "text", "text": ""}
        delta = [{"type": "text_delta", "text": p} for p in _pieces(block["text"])]
    elif kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        delta = [{"type": "thinking_delta", "thinking": p} for p in _pieces(block["thinking"])]
        if block.get("signature"):
            delta.append({"type": "signature_delta", "signature": block["signature"]})
    elif kind == "redacted_thinking":
        start = {"type": "redacted_thinking", "data": block["data"]}
    elif kind == "tool_use":
        start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        raw = block.get("raw_input")
        text = raw if isinstance(raw, str) else json.dumps(block.get("input", {}))
        delta = [{"type": "input_json_delta", "partial_json": p} for p in _pieces(text)]
    else:
        raise ValueError(f"unknown block type {kind!r}")
    events = [_event("content_block_start", index=index, content_block=start)]
    events += [_event("content_block_delta", index=index, delta=d) for d in delta]
    events.append(_event("content_block_stop", index=index))
    return events


def reply_for_item(item: Item, number: int, model: str = "claude-fake") -> Reply:
    """The reply for one script item (``number`` makes the message id: ``msg_fake_N``;
    ``model`` is the model the answer names, the requested one unless the item says)."""
    if "http" in item:
        body = item.get("body", {"type": "error", "error": {"type": "api_error", "message": "x"}})
        return json_reply(
            int(item["http"]), body, dict(item.get("headers") or {}), raw=isinstance(body, str)
        )
    blocks: Sequence[Mapping[str, Any]] = item.get("blocks") or [
        {"type": "text", "text": item.get("text", "ok")}
    ]
    usage = {
        "input_tokens": 100,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 1,
        **(item.get("usage") or {}),
    }
    message = {
        "id": f"msg_fake_{number}",
        "type": "message",
        "role": "assistant",
        "model": item.get("model", model),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    events: list[Any] = [_event("message_start", message=message), _event("ping")]
    for index, block in enumerate(blocks):
        events += _block_events(index, block)
    if "error_event" in item:
        events.append(("error", {"type": "error", "error": item["error_event"]}))
    elif not item.get("cut"):
        delta_usage = item.get("delta_usage") or {"output_tokens": 10}
        delta = {"stop_reason": item.get("stop_reason", "end_turn"), "stop_sequence": None}
        events.append(_event("message_delta", delta=delta, usage=delta_usage))
        if not item.get("no_message_stop"):
            events.append(_event("message_stop"))
    return sse_reply(anthropic_events(*events), headers={"request-id": f"req_fake_{number}"})


@dataclass(frozen=True)
class Recorded:
    """One request as the fake saw it; ``at`` is seconds since the fake started."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    at: float

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


class FakeAnthropic:
    """The fake server in a background thread (see the module docstring)."""

    def __init__(self, script: Sequence[Item] = ()) -> None:
        self.script = list(script)
        self.requests: list[Recorded] = []
        self._started = time.monotonic()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _answer(self, request: RecordedRequest) -> Reply:
        try:
            body = json.loads(request.body) if request.body else None
        except ValueError:
            body = request.body.decode("utf-8", "replace")
        number = len(self.requests)
        self.requests.append(
            Recorded(
                request.method,
                request.path,
                dict(request.headers),
                body,
                time.monotonic() - self._started,
            )
        )
        item = self.script[number] if number < len(self.script) else {"text": "ok"}
        model = body.get("model") if isinstance(body, dict) else None
        return reply_for_item(item, number + 1, model if isinstance(model, str) else "claude-fake")

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._main())

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        async with LocalHTTPServer(handler=self._answer) as server:
            self.port = server.port
            self._ready.set()
            await self._stop.wait()

    def __enter__(self) -> FakeAnthropic:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the fake Anthropic server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        stop = self._stop
        if stop is not None:
            self._loop.call_soon_threadsafe(stop.set)
        self._thread.join(10)
        self._loop.close()
