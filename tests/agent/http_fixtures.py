"""A real HTTP/1.1 server on 127.0.0.1 for provider and loop tests, and replies as the APIs send.

    async with LocalHTTPServer() as server:
        server.enqueue(openai_text_reply("hello"), json_reply(429, {...}, {"retry-after": "2"}))
        ... point a model's base_url at server.base_url + "/v1" ...
        server.requests[0].json()   # the request body the client sent

The server runs on the test's event loop (``asyncio.start_server``), answers each request with
the next queued :class:`Reply` (or with ``handler(request)`` when given one) and records every
request. A reply body is a list of parts written one at a time and flushed: ``bytes``, or one of
the actions :class:`Gate` (wait for an ``asyncio.Event`` before going on: deterministic
mid-stream pauses), :data:`DROP` (cut the connection here: no terminating chunk) and
:data:`HOLD` (send nothing more and wait until the client hangs up; ``server.client_gone`` is
set then). Bodies are sent chunked on a keep-alive connection, like the real APIs, unless the
reply says ``chunked=False`` (then ``Connection: close`` ends the body).

Reply builders write what OpenAI and Anthropic really stream: ``data: {json}\\n\\n`` events and
``data: [DONE]`` (OpenAI), ``event: name\\ndata: {json}\\n\\n`` (Anthropic), usage in its own
chunk, tool-call arguments split across chunks, JSON error bodies in each vendor's wording.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DROP",
    "HOLD",
    "Gate",
    "LocalHTTPServer",
    "RecordedRequest",
    "Reply",
    "anthropic_events",
    "anthropic_text_reply",
    "anthropic_tool_reply",
    "json_reply",
    "openai_chunk",
    "openai_error_body",
    "openai_text_reply",
    "openai_tool_calls_reply",
    "sse_data",
    "sse_reply",
]


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True)
class Gate:
    """A pause in a reply body until ``event`` is set."""

    event: asyncio.Event


class _Action:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


DROP = _Action("DROP")
HOLD = _Action("HOLD")

Part = bytes | Gate | _Action


@dataclass
class Reply:
    status: int = 200
    headers: Sequence[tuple[str, str]] = ()
    parts: Sequence[Part] = ()
    chunked: bool = True


Handler = Callable[[RecordedRequest], Reply | Awaitable[Reply]]

_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 413: "Payload Too Large"}
_REASONS.update({429: "Too Many Requests", 500: "Internal Server Error", 529: "Overloaded"})


@dataclass
class LocalHTTPServer:
    """A recording HTTP/1.1 server; use as ``async with``."""

    handler: Handler | None = None
    requests: list[RecordedRequest] = field(default_factory=list)
    client_gone: asyncio.Event = field(default_factory=asyncio.Event)
    _replies: deque[Reply] = field(default_factory=deque)
    _server: asyncio.AbstractServer | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _writers: set[asyncio.StreamWriter] = field(default_factory=set)
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def enqueue(self, *replies: Reply) -> None:
        self._replies.extend(replies)

    async def __aenter__(self) -> LocalHTTPServer:
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        for task in list(self._tasks):  # a connection may wait at a Gate or in a handler
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self._server.wait_closed()

    # -- serving ------------------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers.add(writer)
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    break
                self.requests.append(request)
                reply = await self._reply_for(request)
                if not await self._write(reply, reader, writer):
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the client or the test ended the conversation
        finally:
            self._writers.discard(writer)
            self._tasks.discard(task)
            writer.transport.abort()

    async def _reply_for(self, request: RecordedRequest) -> Reply:
        if self.handler is not None:
            answer = self.handler(request)
            return await answer if isinstance(answer, Awaitable) else answer
        if self._replies:
            return self._replies.popleft()
        return json_reply(500, {"error": {"message": "no reply queued in the test server"}})

    async def _write(
        self, reply: Reply, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """Send ``reply``; True when the connection can serve another request."""
        reason = _REASONS.get(reply.status, "Status")
        head = [f"HTTP/1.1 {reply.status} {reason}"]
        head += [f"{name}: {value}" for name, value in reply.headers]
        length = _fixed_length(reply)
        if length is not None:
            head.append(f"Content-Length: {length}")
        elif reply.chunked:
            head.append("Transfer-Encoding: chunked")
        else:
            head.append("Connection: close")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        await writer.drain()
        for part in reply.parts:
            if isinstance(part, Gate):
                await part.event.wait()
            elif part is DROP:
                writer.transport.abort()
                return False
            elif part is HOLD:
                while await reader.read(65536):
                    pass
                self.client_gone.set()
                return False
            elif isinstance(part, bytes) and part:
                if length is None and reply.chunked:
                    writer.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
                else:
                    writer.write(part)
                await writer.drain()
        if length is None and reply.chunked:
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        return length is not None or reply.chunked


def _fixed_length(reply: Reply) -> int | None:
    """A Content-Length for replies made only of bytes that are not event streams."""
    if any(not isinstance(part, bytes) for part in reply.parts):
        return None
    content_type = next((v for k, v in reply.headers if k.lower() == "content-type"), "")
    if "event-stream" in content_type:
        return None
    return sum(len(part) for part in reply.parts if isinstance(part, bytes))


async def _read_request(reader: asyncio.StreamReader) -> RecordedRequest | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, path, _version = lines[0].split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = b""
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                break
            body += await reader.readexactly(size)
            await reader.readexactly(2)
    else:
        body = await reader.readexactly(int(headers.get("content-length", "0")))
    return RecordedRequest(method, path, headers, body)


# ---------------------------------------------------------------------------------------------
# Replies


def json_reply(
    status: int, body: Any, headers: Mapping[str, str] | None = None, *, raw: bool = False
) -> Reply:
    """A JSON (or, with ``raw``, verbatim text) response with a Content-Length."""
    data = body.encode() if raw and isinstance(body, str) else json.dumps(body).encode()
    pairs = [("Content-Type", "application/json"), *(headers or {}).items()]
    return Reply(status=status, headers=pairs, parts=[data])


def sse_data(payload: Any) -> bytes:
    """One ``data:`` event (a dict is sent as JSON, as the APIs do)."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return f"data: {text}\n\n".encode()


def sse_reply(
    parts: Iterable[Part | dict[str, Any] | str],
    *,
    status: int = 200,
    headers: Mapping[str, str] | None = None,
    chunked: bool = True,
) -> Reply:
    """An event-stream reply: dicts become ``data:`` events, ``str`` is sent as written."""
    body: list[Part] = []
    for part in parts:
        if isinstance(part, dict):
            body.append(sse_data(part))
        elif isinstance(part, str):
            body.append(part.encode())
        else:
            body.append(part)
    pairs = [
        ("Content-Type", "text/event-stream; charset=utf-8"),
        ("Cache-Control", "no-cache"),
        *(headers or {}).items(),
    ]
    return Reply(status=status, headers=pairs, parts=body, chunked=chunked)


# -- OpenAI -----------------------------------------------------------------------------------


def openai_chunk(
    delta: Mapping[str, Any] | None = None,
    *,
    finish_reason: str | None = None,
    response_id: str = "chatcmpl-test",
    usage: Mapping[str, Any] | None = None,
    choices: bool = True,
) -> dict[str, Any]:
    """One ``chat.completion.chunk`` as OpenAI streams it."""
    chunk: dict[str, Any] = {
        "id": response_id,
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "test-model",
        "system_fingerprint": "fp_test",
        "choices": [],
    }
    if choices:
        chunk["choices"] = [
            {
                "index": 0,
                "delta": dict(delta or {}),
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ]
    if usage is not None:
        chunk["usage"] = dict(usage)
    return chunk


def _usage(prompt: int, completion: int, cached: int = 0) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
    }


def openai_text_reply(
    text: str,
    *,
    prompt_tokens: int = 100,
    completion_tokens: int = 10,
    cached_tokens: int = 0,
    finish_reason: str = "stop",
    piece: int = 4,
    response_id: str = "chatcmpl-test",
) -> Reply:
    """A streamed text answer: role chunk, text in ``piece``-sized deltas, finish, usage, DONE."""
    parts: list[Any] = [
        openai_chunk({"role": "assistant", "content": "", "refusal": None}, response_id=response_id)
    ]
    for start in range(0, len(text), piece):
        parts.append(
            openai_chunk({"content": text[start : start + piece]}, response_id=response_id)
        )
    parts.append(openai_chunk({}, finish_reason=finish_reason, response_id=response_id))
    usage = _usage(prompt_tokens, completion_tokens, cached_tokens)
    parts.append(openai_chunk(usage=usage, choices=False, response_id=response_id))
    parts.append("data: [DONE]\n\n")
    return sse_reply(parts)


def openai_tool_calls_reply(
    calls: Sequence[Mapping[str, Any]],
    *,
    text: str | None = None,
    prompt_tokens: int = 100,
    completion_tokens: int = 10,
    piece: int = 7,
    response_id: str = "chatcmpl-tools",
) -> Reply:
    """Tool calls as OpenAI streams them: id and name first, then the arguments in pieces.

    Each call is ``{"name", "arguments": dict | str, "id"?}``.
    """
    parts: list[Any] = [
        openai_chunk(
            {"role": "assistant", "content": text, "refusal": None}, response_id=response_id
        )
    ]
    for index, call in enumerate(calls):
        args = call.get("arguments", {})
        args_text = args if isinstance(args, str) else json.dumps(args)
        call_id = call.get("id", f"call_{index}")
        opening = {
            "tool_calls": [
                {
                    "index": index,
                    "id": call_id,
                    "type": "function",
                    "function": {"name": call["name"], "arguments": ""},
                }
            ]
        }
        parts.append(openai_chunk(opening, response_id=response_id))
        for start in range(0, len(args_text), piece):
            fragment = {
                "tool_calls": [
                    {"index": index, "function": {"arguments": args_text[start : start + piece]}}
                ]
            }
            parts.append(openai_chunk(fragment, response_id=response_id))
    parts.append(openai_chunk({}, finish_reason="tool_calls", response_id=response_id))
    parts.append(
        openai_chunk(
            usage=_usage(prompt_tokens, completion_tokens), choices=False, response_id=response_id
        )
    )
    parts.append("data: [DONE]\n\n")
    return sse_reply(parts)


def openai_error_body(message: str, *, kind: str, code: str | None = None) -> dict[str, Any]:
    """OpenAI's error JSON: ``{"error": {"message", "type", "param", "code"}}``."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


# -- Anthropic --------------------------------------------------------------------------------


def anthropic_events(*events: tuple[str, Mapping[str, Any]] | Part) -> list[Part]:
    """``event: name\\ndata: {json}\\n\\n`` per ``(name, data)``; other parts pass through."""
    out: list[Part] = []
    for event in events:
        if isinstance(event, tuple):
            name, data = event
            out.append(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        else:
            out.append(event)
    return out


def _message_start(message_id: str, input_tokens: int, cache_read: int) -> tuple[str, Any]:
    return (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": "claude-test",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": input_tokens,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": cache_read,
                    "output_tokens": 1,
                },
            },
        },
    )


def _message_end(stop_reason: str, output_tokens: int) -> list[tuple[str, Any]]:
    return [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


def anthropic_text_reply(
    text: str,
    *,
    thinking: str | None = None,
    signature: str = "sig-abc",
    input_tokens: int = 100,
    output_tokens: int = 10,
    cache_read: int = 0,
    stop_reason: str = "end_turn",
    piece: int = 5,
    message_id: str = "msg_test",
) -> Reply:
    """A streamed Anthropic answer (optionally with a signed thinking block first)."""
    events: list[Any] = [_message_start(message_id, input_tokens, cache_read)]
    index = 0
    if thinking is not None:
        events.append(
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "thinking", "thinking": "", "signature": ""},
                },
            )
        )
        events.append(
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "thinking_delta", "thinking": thinking},
                },
            )
        )
        events.append(
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "signature_delta", "signature": signature},
                },
            )
        )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    events.append(
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": ""},
            },
        )
    )
    events.append(("ping", {"type": "ping"}))
    for start in range(0, len(text), piece):
        delta = {"type": "text_delta", "text": text[start : start + piece]}
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        )
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events += _message_end(stop_reason, output_tokens)
    return sse_reply(anthropic_events(*events))


def anthropic_tool_reply(
    calls: Sequence[Mapping[str, Any]],
    *,
    input_tokens: int = 100,
    output_tokens: int = 20,
    piece: int = 6,
    message_id: str = "msg_tools",
) -> Reply:
    """``tool_use`` blocks with ``input_json_delta`` pieces, stop reason ``tool_use``."""
    events: list[Any] = [_message_start(message_id, input_tokens, 0)]
    for index, call in enumerate(calls):
        block = {
            "type": "tool_use",
            "id": call.get("id", f"toolu_{index}"),
            "name": call["name"],
            "input": {},
        }
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": block},
            )
        )
        args = json.dumps(call.get("arguments", {}))
        for start in range(0, len(args), piece):
            delta = {"type": "input_json_delta", "partial_json": args[start : start + piece]}
            events.append(
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events += _message_end("tool_use", output_tokens)
    return sse_reply(anthropic_events(*events))
