"""The request bodies pi-lsp sends for the messages of the golden cases equal the ones Pi 0.85
sent (``expected-requests.json``), over real HTTP.

The messages are rebuilt the way the agent builds them: the session file Pi wrote is projected at
the leaf before each request (``build_session_context``) and converted (``convert_to_llm``); for
read-images, from the fake model's script and the recorded tool results. The system prompt text
is Pi's (pi-lsp writes its own default prompt) and the tools are pi-lsp's own, so tool
descriptions (and the descriptions inside their parameter schemas) are masked; everything else
— key order included — must match: model, messages, stream options, store, the output budget,
tool names, order, schemas and ``strict``.
"""

from __future__ import annotations

import asyncio
import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.agent.model_api import ModelInfo, ModelRequest
from pi_lsp.agent.providers import provider_for
from pi_lsp.agent.providers.openai_completions import build_request_body
from pi_lsp.agent.providers.secret import Secret
from pi_lsp.agent.providers.transport import aclose_shared_clients
from pi_lsp.js.json import json_stringify
from pi_lsp.session.context import build_session_context
from pi_lsp.session.llm_messages import convert_to_llm
from pi_lsp.session.session_file import SessionFile
from pi_lsp.tools.registry import BUILTIN_TOOLS
from tests.agent.http_fixtures import LocalHTTPServer, openai_text_reply
from tests.shared_data import CONFORMANCE, ORACLE

Message = dict[str, Any]

SESSION_CASES = [
    "compaction-threshold-midrun",
    "compaction-split-turn",
    "compaction-split-after-compaction",
    "overflow-compact-retry",
    "overflow-retry-exhausted",
]


def oracle_model(case: Path, base_url: str) -> ModelInfo:
    """The model the oracle declares in models.json (see oracle/pi-oracle)."""
    spec = json.loads((case / "case.json").read_text("utf-8"))
    return ModelInfo(
        id="oracle-model",
        provider="oracle",
        api="openai-completions",
        base_url=base_url + "/v1",
        context_window=spec.get("context_window") or 128_000,
        max_tokens=spec.get("max_tokens") or 16_384,
        reasoning=False,
        input=("text",),
        compat={"supportsDeveloperRole": False, "supportsReasoningEffort": False},
        cost={"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
    )


def our_tools(body: Message) -> list[dict[str, Any]]:
    """pi-lsp's definitions of the tools Pi offered in ``body``, in the same order."""
    tools = []
    for entry in body.get("tools", []):
        tool = BUILTIN_TOOLS[entry["function"]["name"]]
        tools.append(
            {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
        )
    return tools


def _strip_descriptions(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_descriptions(v) for k, v in value.items() if k != "description"}
    if isinstance(value, list):
        return [_strip_descriptions(v) for v in value]
    return value


def masked(body: Message) -> Message:
    """``body`` with the parts that are pi-lsp's own text masked (system prompt, descriptions)."""
    out = copy.deepcopy(body)
    assert out["messages"][0]["role"] == "system"
    out["messages"][0]["content"] = "{SYSTEM_PROMPT}"
    if "tools" in out:
        out["tools"] = [_strip_descriptions(tool) for tool in out["tools"]]
    return out


def request(model: ModelInfo, body: Message, messages: list[Message]) -> ModelRequest:
    return ModelRequest(
        model=model,
        system_prompt=body["messages"][0]["content"],
        messages=messages,
        tools=our_tools(body),
        max_tokens=body["max_completion_tokens"],
        api_key=Secret("oracle"),
    )


def session_requests(case: Path, model: ModelInfo) -> list[tuple[Message, ModelRequest]]:
    """Each recorded request with the request pi-lsp builds for the same moment."""
    entries = list(SessionFile.read(case / "expected-session.jsonl").entries)
    bodies = json.loads((case / "expected-requests.json").read_text("utf-8"))
    answers = [e for e in entries if e["type"] == "message" and e["message"]["role"] == "assistant"]
    agent_bodies = [body for body in bodies if "tools" in body]
    assert len(agent_bodies) == len(answers)
    leaves = {
        id(body): answer["parentId"] for body, answer in zip(agent_bodies, answers, strict=True)
    }
    pairs = []
    for body in bodies:
        if "tools" in body:
            context = build_session_context(entries, leaves[id(body)])
            messages = convert_to_llm(context.messages)
        else:  # a summarization request: one user message with the serialized conversation
            assert len(body["messages"]) == 2
            messages = [{"role": "user", "content": body["messages"][1]["content"], "timestamp": 0}]
        pairs.append((body, request(model, body, messages)))
    return pairs


def read_images_requests(model: ModelInfo) -> list[tuple[Message, ModelRequest]]:
    case = CONFORMANCE / "read-images"
    bodies = json.loads((case / "expected-requests.json").read_text("utf-8"))
    script = json.loads((case / "script.json").read_text("utf-8"))
    spec = json.loads((case / "case.json").read_text("utf-8"))
    prompt: Message = {
        "role": "user",
        "content": [{"type": "text", "text": spec["prompt"]}],
        "timestamp": 0,
    }
    calls = [
        {
            "type": "toolCall",
            "id": f"call_0_{j}",
            "name": call["name"],
            "arguments": call["arguments"],
        }
        for j, call in enumerate(script[0]["tool_calls"])
    ]
    answer: Message = {
        "role": "assistant",
        "content": calls,
        "api": "openai-completions",
        "provider": "oracle",
        "model": "oracle-model",
        "usage": {"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 110},
        "stopReason": "toolUse",
        "timestamp": 0,
    }
    results = []
    for event in json.loads((case / "expected-tool-events.json").read_text("utf-8")):
        content = []
        for block in event["result"]["content"]:
            if block["type"] == "image":  # the recorded bytes are digested; any data will do
                block = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": block["mimeType"]}
            content.append(block)
        results.append(
            {
                "role": "toolResult",
                "toolCallId": event["toolCallId"],
                "toolName": event["toolName"],
                "content": content,
                "isError": event["isError"],
                "timestamp": 0,
            }
        )
    return [
        (bodies[0], request(model, bodies[0], [prompt])),
        (bodies[1], request(model, bodies[1], [prompt, answer, *results])),
    ]


async def check_over_http(
    server: LocalHTTPServer, pairs: list[tuple[Message, ModelRequest]]
) -> None:
    for number, (expected, ours) in enumerate(pairs):
        assert masked(build_request_body(ours)) == masked(expected), f"request {number}"
        server.enqueue(openai_text_reply("ok"))
        events = [event async for event in provider_for(ours.model).stream(ours)]
        assert events[-1]["type"] == "done"
        sent = server.requests[-1].json()
        assert sent == build_request_body(ours)
        # the same JSON text once masked: key order too, at every level
        assert json.dumps(masked(sent)) == json.dumps(masked(expected)), f"request {number}"


@pytest.mark.parametrize("case", SESSION_CASES)
async def test_session_cases(server: LocalHTTPServer, case: str) -> None:
    folder = CONFORMANCE / case
    pairs = session_requests(folder, oracle_model(folder, server.base_url))
    assert len(pairs) >= 4
    await check_over_http(server, pairs)


async def test_read_images(server: LocalHTTPServer) -> None:
    model = oracle_model(CONFORMANCE / "read-images", server.base_url)
    pairs = read_images_requests(model)
    await check_over_http(server, pairs)
    tool_messages = [m for m in pairs[1][0]["messages"] if m["role"] == "tool"]
    assert tool_messages[0]["content"].endswith(
        "(tool image omitted: model does not support images)"
    )


async def test_default_tools_request(server: LocalHTTPServer) -> None:
    folder = CONFORMANCE / "sp-default"
    (body,) = json.loads((folder / "expected-requests.json").read_text("utf-8"))
    prompt = json.loads((folder / "case.json").read_text("utf-8"))["prompt"]
    model = oracle_model(folder, server.base_url)
    user = {"role": "user", "content": [{"type": "text", "text": prompt}], "timestamp": 0}
    await check_over_http(server, [(body, request(model, body, [user]))])


# --- the response side, against the oracle's own fake server ---------------------------------


@pytest.mark.shared
@pytest.mark.parametrize("case", ["overflow-compact-retry", "compaction-threshold-midrun"])
async def test_responses_equal_pis_against_the_oracle_fake_server(
    tmp_path: Path, case: str
) -> None:
    """Run ``oracle/fake_openai.py`` with the case's script: each request pi-lsp sends must be
    recorded exactly as built, and each answer must become the assistant message Pi stored in
    the session file (an HTTP 400 included, with Pi's ``errorMessage``), timestamps aside."""
    folder = CONFORMANCE / case
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(ORACLE / "fake_openai.py"),
        "--out",
        str(tmp_path / "recorded"),
        "--script",
        str(folder / "script.json"),
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        port = int(await asyncio.wait_for(process.stdout.readline(), timeout=30))
        model = oracle_model(folder, f"http://127.0.0.1:{port}")
        pairs = session_requests(folder, model)
        finals = []
        for _body, ours in pairs:
            events = [event async for event in provider_for(model).stream(ours)]
            finals.append(events[-1]["message" if events[-1]["type"] == "done" else "error"])
    finally:
        process.terminate()
        await process.wait()
        await aclose_shared_clients()

    for number, (_body, ours) in enumerate(pairs):
        recorded = json.loads((tmp_path / "recorded" / f"request-{number:03d}.json").read_bytes())
        assert recorded == build_request_body(ours), f"request {number}"

    entries = list(SessionFile.read(folder / "expected-session.jsonl").entries)
    stored = [
        e["message"]
        for e in entries
        if e["type"] == "message" and e["message"]["role"] == "assistant"
    ]
    summaries = [e for e in entries if e["type"] == "compaction"]
    agent_finals = [m for m, (body, _) in zip(finals, pairs, strict=True) if "tools" in body]
    summary_finals = [m for m, (body, _) in zip(finals, pairs, strict=True) if "tools" not in body]
    assert len(agent_finals) == len(stored) and len(summary_finals) == len(summaries)
    for ours_message, pis in zip(agent_finals, stored, strict=True):
        assert json_stringify({**ours_message, "timestamp": 0}, key_order="insertion") == (
            json_stringify(pis, key_order="insertion")
        )
    for ours_message, compaction in zip(summary_finals, summaries, strict=True):
        assert ours_message["content"] == [{"type": "text", "text": compaction["summary"]}]
        assert json_stringify(ours_message["usage"]) == json_stringify(compaction["usage"])
