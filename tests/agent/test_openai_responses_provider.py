"""The OpenAI Responses provider over real HTTP: what the recorded Pi cases do not reach.

Images in and out of tool results, text ids too long for the API, a message's ``phase``, an
abort, a malformed stream and credentials a server echoes back. The shapes follow pi-ai
0.85's Responses mapping (the recorded cases in tests/conformance/openai_responses_cases pin
the common paths against the real Pi).
"""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest

from pi_lsp.agent.model_api import ModelInfo, ModelRequest
from pi_lsp.agent.providers import provider_for
from pi_lsp.agent.providers.openai_responses import short_hash
from pi_lsp.agent.providers.secret import Secret
from pi_lsp.tools.base import AbortSignal
from tests.agent.http_fixtures import HOLD, LocalHTTPServer, sse_reply
from tests.agent.planted_secrets import (
    API_KEY,
    ECHOES,
    HEADERS,
    MODEL_HEADERS,
    SECRETS,
    assert_masked_echo,
)
from tests.conformance.responses_fake import ResponsesFake, response_events

PNG = "iVBORw0KGgo="


def make_model(base_url: str, **fields: Any) -> ModelInfo:
    values: dict[str, Any] = {
        "id": "gpt-5",
        "provider": "openai",
        "api": "openai-responses",
        "base_url": base_url + "/v1",
        "reasoning": True,
        "input": ("text", "image"),
        "compat": {"supportsStrictMode": True},
        "thinking_level_map": {"off": None, "xhigh": None},
    }
    values.update(fields)
    return ModelInfo(**values)


def request_for(model: ModelInfo, messages: list[dict[str, Any]], **fields: Any) -> ModelRequest:
    values: dict[str, Any] = {
        "model": model,
        "system_prompt": "Be brief.",
        "messages": messages,
        "api_key": Secret("sk-test-responses-0123456789"),
        "session_id": "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
        "thinking_level": "low",
    }
    values.update(fields)
    return ModelRequest(**values)


def user(*content: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(content), "timestamp": 1}


async def run(
    request: ModelRequest, signal: AbortSignal | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    events = [
        copy.deepcopy(event) async for event in provider_for(request.model).stream(request, signal)
    ]
    last = events[-1]
    return events, last["message"] if last["type"] == "done" else last["error"]


async def test_images_go_as_input_images_and_tool_images_follow_their_text() -> None:
    fake = ResponsesFake([{"text": "A red dot."}])
    async with fake.server() as server:
        model = make_model(server.base_url)
        image = {"type": "image", "mimeType": "image/png", "data": PNG}
        call = {"type": "toolCall", "id": "call_1|fc_1", "name": "read", "arguments": {}}
        messages = [
            user({"type": "text", "text": "look"}, image),
            {
                "role": "assistant",
                "content": [call],
                "api": model.api,
                "provider": model.provider,
                "model": model.id,
                "stopReason": "toolUse",
                "timestamp": 2,
            },
            {
                "role": "toolResult",
                "toolCallId": "call_1|fc_1",
                "toolName": "read",
                "content": [{"type": "text", "text": "dot.png"}, image],
                "isError": False,
                "timestamp": 3,
            },
        ]
        _, message = await run(request_for(model, messages))
    body = server.requests[0].json()
    url = f"data:image/png;base64,{PNG}"
    assert body["input"][1]["content"] == [
        {"type": "input_text", "text": "look"},
        {"type": "input_image", "detail": "auto", "image_url": url},
    ]
    assert body["input"][2] == {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "read",
        "arguments": "{}",
    }
    assert body["input"][3] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": [
            {"type": "input_text", "text": "dot.png"},
            {"type": "input_image", "detail": "auto", "image_url": url},
        ],
    }
    assert message["stopReason"] == "stop"


async def test_a_text_only_model_gets_placeholders_for_images() -> None:
    fake = ResponsesFake([{"text": "ok"}])
    async with fake.server() as server:
        model = make_model(server.base_url, input=("text",))
        image = {"type": "image", "mimeType": "image/png", "data": PNG}
        await run(request_for(model, [user({"type": "text", "text": "see"}, image)]))
    [_, asked] = server.requests[0].json()["input"]
    assert [part["type"] for part in asked["content"]] == ["input_text", "input_text"]
    assert "image omitted" in asked["content"][1]["text"]


async def test_long_text_ids_are_hashed_and_a_phase_is_replayed() -> None:
    fake = ResponsesFake([{"text": "ok"}])
    long_id = "msg_" + "x" * 80
    async with fake.server() as server:
        model = make_model(server.base_url)
        signature = json.dumps({"v": 1, "id": long_id, "phase": "final_answer"})
        messages = [
            user({"type": "text", "text": "hi"}),
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Hello.", "textSignature": signature}],
                "api": model.api,
                "provider": model.provider,
                "model": model.id,
                "stopReason": "stop",
                "timestamp": 2,
            },
            user({"type": "text", "text": "again"}),
        ]
        await run(request_for(model, messages))
    replayed = server.requests[0].json()["input"][2]
    assert replayed["id"] == f"msg_{short_hash(long_id)}" and len(replayed["id"]) <= 64
    assert replayed["phase"] == "final_answer"


async def test_an_abort_hangs_up_and_ends_with_aborted() -> None:
    async with LocalHTTPServer() as server:
        parts = response_events({"text": "never finished"}, 1, "gpt-5")
        server.enqueue(sse_reply([*parts[:6], HOLD]))
        model = make_model(server.base_url)
        signal = AbortSignal()
        last: dict[str, Any] = {}
        async for event in provider_for(model).stream(request_for(model, []), signal):
            if event["type"] == "text_delta":
                signal.abort()
            last = event
        await asyncio.wait_for(server.client_gone.wait(), timeout=10)
    assert last["type"] == "error" and last["reason"] == "aborted"
    assert last["error"]["errorMessage"] == "Request was aborted"


async def test_an_event_that_is_not_json_ends_the_stream_with_a_clear_error() -> None:
    async with LocalHTTPServer() as server:
        parts = response_events({"text": "fine so far"}, 1, "gpt-5")
        broken = "event: response.output_text.delta\ndata: {oops\n\n"
        server.enqueue(sse_reply([*parts[:5], broken]))
        model = make_model(server.base_url)
        _, message = await run(request_for(model, []))
    assert message["stopReason"] == "error"
    assert message["errorMessage"].startswith("OpenAI Responses stream sent an event that is not")
    assert message["content"][0]["type"] == "text"  # what arrived before is kept


@pytest.mark.parametrize("echo", list(ECHOES))
async def test_credentials_a_server_echoes_are_masked(echo: str) -> None:
    async with LocalHTTPServer(handler=ECHOES[echo]) as server:
        headers = {**{k: v for k, v in HEADERS.items() if not v.startswith(("$", "!"))}}
        headers.update(MODEL_HEADERS)
        headers["X-Env-Token"] = Secret("env-resolved-secret-a93b")
        headers["X-Cmd-Token"] = Secret("cmd-printed-secret-77d0")
        model = make_model(server.base_url, headers=headers)
        events, message = await run(request_for(model, [], api_key=Secret(API_KEY)))
    assert message["stopReason"] == "error"
    text = json.dumps(events)
    for secret in SECRETS:
        assert secret not in text, f"{secret} leaked ({echo})"
    assert_masked_echo(message["errorMessage"])
