"""``pi/model/select`` and ``pi/chat`` naming a model or level for a saved session, over stdio.

A session the server does not hold yet is opened with what it records, then switched: the
change is appended as Pi's ``/model`` and ``/thinking`` append it. ``pi/chat`` on a saved session
it does not hold resumes it as Pi's ``--session`` with ``--model``/``--thinking`` does (no
``model_change``), and switches it once held.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.agent.http_fixtures import LocalHTTPServer, openai_text_reply
from tests.lsp.harness import start_client
from tests.lsp.test_chat import API_KEY, private_temp_dir, request

__all__ = ["private_temp_dir"]  # the autouse fixture, for this module too


def write_reasoning_models(workspace: Path, base_url: str) -> None:
    models = {
        "providers": {
            "local": {
                "baseUrl": base_url + "/v1",
                "api": "openai-completions",
                "apiKey": API_KEY,
                "models": [{"id": "m1", "reasoning": True}, {"id": "m2", "reasoning": True}],
            }
        }
    }
    (workspace / "agent" / "models.json").write_text(json.dumps(models, indent=2))


def entries(file: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(file).read_text().splitlines() if line.strip()]


def changes(file: str, after: int) -> list[tuple[Any, ...]]:
    """The model and level entries after the first ``after`` lines of the file."""
    out: list[tuple[Any, ...]] = []
    for entry in entries(file)[after:]:
        if entry["type"] == "model_change":
            out.append(("model_change", entry["provider"], entry["modelId"]))
        elif entry["type"] == "thinking_level_change":
            out.append(("thinking_level_change", entry["thinkingLevel"]))
        else:
            out.append((entry["type"],))
    return out


async def test_select_on_a_session_not_held_appends_the_change(workspace: Path) -> None:
    sessions = workspace / "sessions"
    async with LocalHTTPServer() as model:
        write_reasoning_models(workspace, model.base_url)
        model.enqueue(openai_text_reply("Thought hard."), openai_text_reply("Thought less."))
        client = await start_client(workspace)
        try:
            first = await request(
                client,
                "pi/chat",
                {
                    "text": "hi",
                    "model": "m1",
                    "thinkingLevel": "high",
                    "sessionDir": str(sessions),
                },
            )
            file, session = first["file"], first["session"]
            assert first["thinkingLevel"] == "high"
            assert model.requests[0].json()["reasoning_effort"] == "high"
            close = {"session": session}
            assert (await request(client, "pi/session/close", close))["closed"] is True

            # The reproduction: the level changes, and the file says so.
            size = len(entries(file))
            low = await request(client, "pi/model/select", {"file": file, "thinkingLevel": "low"})
            assert low["thinkingLevel"] == "low"
            assert low["model"] == {"provider": "local", "id": "m1"}
            assert changes(file, size) == [("thinking_level_change", "low")]

            # Naming the level it already has appends nothing, held or not.
            size = len(entries(file))
            same = await request(client, "pi/model/select", {"file": file, "thinkingLevel": "low"})
            assert same["thinkingLevel"] == "low" and changes(file, size) == []
            await request(client, "pi/session/close", close)
            again = {"session": session, "sessionDir": str(sessions), "thinkingLevel": "low"}
            same = await request(client, "pi/model/select", again)
            assert same["thinkingLevel"] == "low" and changes(file, size) == []
            await request(client, "pi/session/close", close)

            # Another model, by session id: a model_change, the level kept.
            by_id = {"session": session, "sessionDir": str(sessions), "model": "local/m2"}
            m2 = await request(client, "pi/model/select", by_id)
            assert m2["model"] == {"provider": "local", "id": "m2"} and m2["thinkingLevel"] == "low"
            assert changes(file, size) == [("model_change", "local", "m2")]

            # The next chat asks m2 with the low level.
            await request(client, "pi/chat", {"session": session, "text": "again"})
            sent = model.requests[1].json()
            assert sent["model"] == "m2" and sent["reasoning_effort"] == "low"
            assert API_KEY not in Path(file).read_text()
        finally:
            await client.shutdown_session()


async def test_an_unknown_model_leaves_a_session_not_held_alone(workspace: Path) -> None:
    async with LocalHTTPServer() as model:
        write_reasoning_models(workspace, model.base_url)
        model.enqueue(openai_text_reply("Hello."))
        client = await start_client(workspace)
        try:
            first = await request(client, "pi/chat", {"text": "hi", "model": "m1"})
            file = first["file"]
            await request(client, "pi/session/close", {"session": first["session"]})
            before = Path(file).read_text()
            with pytest.raises(JsonRpcException, match='unknown model "nope"') as raised:
                await request(
                    client,
                    "pi/model/select",
                    {"file": file, "model": "nope", "thinkingLevel": "low"},
                )
            assert raised.value.code == types.ErrorCodes.InvalidParams
            assert Path(file).read_text() == before
            closed = await request(client, "pi/session/close", {"file": file})
            assert closed == {"closed": False}  # not held
        finally:
            await client.shutdown_session()


async def test_chat_naming_a_model_resumes_then_switches(workspace: Path) -> None:
    async with LocalHTTPServer() as model:
        write_reasoning_models(workspace, model.base_url)
        model.enqueue(
            openai_text_reply("One."), openai_text_reply("Two."), openai_text_reply("Three.")
        )
        client = await start_client(workspace)
        try:
            first = await request(
                client, "pi/chat", {"text": "one", "model": "m1", "thinkingLevel": "high"}
            )
            file, session = first["file"], first["session"]
            await request(client, "pi/session/close", {"session": session})

            # Not held: resumed with the named model and level, as Pi's --session --model
            # --thinking resumes one — the request uses them, no change entry is written.
            size = len(entries(file))
            params = {"file": file, "text": "two", "model": "m2", "thinkingLevel": "low"}
            second = await request(client, "pi/chat", params)
            assert second["model"]["id"] == "m2" and second["thinkingLevel"] == "low"
            sent = model.requests[1].json()
            assert sent["model"] == "m2" and sent["reasoning_effort"] == "low"
            assert changes(file, size) == [("message",), ("message",)]

            # Held: naming another level switches it, appending the change first.
            size = len(entries(file))
            params = {"session": session, "text": "three", "thinkingLevel": "medium"}
            third = await request(client, "pi/chat", params)
            assert third["thinkingLevel"] == "medium"
            assert model.requests[2].json()["reasoning_effort"] == "medium"
            assert changes(file, size) == [
                ("thinking_level_change", "medium"),
                ("message",),
                ("message",),
            ]
        finally:
            await client.shutdown_session()


async def test_select_when_nothing_the_session_records_is_usable(workspace: Path) -> None:
    """The recorded model is gone and no other is usable: it starts with the one selected,
    which the file records."""
    async with LocalHTTPServer() as model:
        write_reasoning_models(workspace, model.base_url)
        model.enqueue(openai_text_reply("Hello."), openai_text_reply("From the other one."))
        client = await start_client(workspace)
        try:
            first = await request(client, "pi/chat", {"text": "hi", "model": "m1"})
            file, session = first["file"], first["session"]
            await request(client, "pi/session/close", {"session": session})
            builtin = {"groq": {"baseUrl": model.base_url + "/v1", "apiKey": API_KEY}}
            models_json = workspace / "agent" / "models.json"
            models_json.write_text(json.dumps({"providers": builtin}))

            size = len(entries(file))
            chosen = await request(client, "pi/model/select", {"file": file, "model": "groq/o9"})
            assert chosen["model"] == {"provider": "groq", "id": "o9"}
            assert changes(file, size) == [("model_change", "groq", "o9")]
            await request(client, "pi/chat", {"session": session, "text": "again"})
            assert model.requests[1].json()["model"] == "o9"
        finally:
            await client.shutdown_session()
