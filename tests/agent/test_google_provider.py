"""The Gemini provider over real HTTP, for what the golden cases cannot show: a stream cut into
arbitrary pieces, an abort mid-stream, an echoed key, a model whose level map Google cannot read.
(What Pi sends and makes of a stream is in tests/conformance/test_google_cases.py.)"""

from __future__ import annotations

import asyncio
import copy
import json
import random
from typing import Any

from pi_lsp.agent.model_api import ModelInfo, ModelRequest
from pi_lsp.agent.providers import provider_for
from pi_lsp.agent.providers.secret import Secret
from pi_lsp.tools.base import AbortSignal
from tests.agent.http_fixtures import HOLD, LocalHTTPServer, Reply, json_reply
from tests.agent.test_anthropic_provider import run
from tests.conformance.google_fake import gemini_reply

KEY = Secret("AIzaSy-provider-test-key-91x")


def make_model(base_url: str, **fields: Any) -> ModelInfo:
    values: dict[str, Any] = {
        "id": "gemini-2.5-flash",
        "provider": "google",
        "api": "google-generative-ai",
        "base_url": base_url + "/v1beta",
        "reasoning": True,
        "input": ("text", "image"),
        "max_tokens": 65_536,
        "cost": {"input": 0.3, "output": 2.5, "cacheRead": 0.03, "cacheWrite": 0},
    }
    values.update(fields)
    return ModelInfo(**values)


def request_for(model: ModelInfo, **fields: Any) -> ModelRequest:
    values: dict[str, Any] = {
        "model": model,
        "system_prompt": "Be brief.",
        "messages": [{"role": "user", "content": "hi", "timestamp": 1}],
        "api_key": KEY,
        "thinking_level": "low",
    }
    values.update(fields)
    return ModelRequest(**values)


ANSWER = {
    "thinking": "Thinking about “quotes” — and 漢字.",
    "text": "Hello, wörld 👋 and more text.",
    "signature": "c2lnbmF0dXJlLW9uZQ==",
    "calls": [{"name": "read", "args": {"path": "ä.txt"}, "signature": "Y2FsbA=="}],
    "usage": {"prompt": 300, "candidates": 20, "thoughts": 7, "cached": 100},
    "pieces": 4,
}


def without_call_id(message: dict[str, Any]) -> dict[str, Any]:
    copied = copy.deepcopy(message)
    del copied["content"][2]["id"]
    return copied


def in_pieces(reply: Reply, rng: random.Random) -> Reply:
    """The same body, cut into pieces of 1 to 5 bytes (inside characters and delimiters)."""
    data = b"".join(p for p in reply.parts if isinstance(p, bytes))
    parts: list[Any] = []
    at = 0
    while at < len(data):
        size = rng.randint(1, 5)
        parts.append(data[at : at + size])
        at += size
    return Reply(status=reply.status, headers=reply.headers, parts=parts)


async def test_a_stream_in_any_pieces_makes_the_same_message(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    server.enqueue(gemini_reply(ANSWER, model.id))
    _, whole = await run(request_for(model))
    assert [b["type"] for b in whole["content"]] == ["thinking", "text", "toolCall"]
    assert whole["stopReason"] == "toolUse" and whole["usage"]["output"] == 27
    rng = random.Random(7)
    for _ in range(5):
        server.enqueue(in_pieces(gemini_reply(ANSWER, model.id), rng))
        _, pieced = await run(request_for(model))
        assert pieced["content"][2].pop("id") != whole["content"][2]["id"]  # made up anew
        assert {**pieced, "timestamp": 0} == {**without_call_id(whole), "timestamp": 0}


async def test_an_abort_mid_stream_closes_the_connection(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    reply = gemini_reply({"text": "never finished", "pieces": 3}, model.id)
    server.enqueue(Reply(status=200, headers=reply.headers, parts=[reply.parts[0], HOLD]))
    signal = AbortSignal()
    last: dict[str, Any] = {}
    async for event in provider_for(model).stream(request_for(model), signal):
        if event["type"] == "text_delta":
            signal.abort()
        last = event
    assert last["type"] == "error" and last["reason"] == "aborted"
    assert last["error"]["errorMessage"] == "Request was aborted"
    assert last["error"]["content"] == [{"type": "text", "text": "never"}]
    await asyncio.wait_for(server.client_gone.wait(), timeout=10)


async def test_an_echoed_key_is_masked_in_the_error(server: LocalHTTPServer) -> None:
    model = make_model(server.base_url)
    body = {"error": {"code": 400, "message": f"API key {KEY} not valid", "status": "X"}}
    server.enqueue(json_reply(400, body))
    _, message = await run(request_for(model))
    assert server.requests[0].headers["x-goog-api-key"] == str(KEY)
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == (
        '{"error":{"code":400,"message":"API key *** not valid","status":"X"}}'
    )
    assert str(KEY) not in json.dumps(message)


async def test_a_level_google_cannot_read_fails_before_any_request(
    server: LocalHTTPServer,
) -> None:
    model = make_model(server.base_url, thinking_level_map={"low": "ULTRA"})
    _, message = await run(request_for(model))
    assert server.requests == []
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == (
        "Unsupported Google thinking level mapping for google/gemini-2.5-flash: low -> ULTRA"
    )
