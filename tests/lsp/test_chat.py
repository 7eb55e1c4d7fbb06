"""``pi/chat`` and the session requests over stdio, against a real HTTP model.

The model is :class:`~tests.agent.http_fixtures.LocalHTTPServer` on the test's event loop (the
same loop pytest-lsp drives the client on), answering in OpenAI's streaming format. The agent
dir's models.json points the provider ``local`` at it with a literal key, which must never
reach the client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled
from pytest_lsp import LanguageClient

from pi_lsp.server.features.chat import register, runs
from pi_lsp.server.features.chat.sessions import sessions_of
from pi_lsp.server.language_server import PiLanguageServer
from pi_lsp.server.requests import plain
from pi_lsp.server.settings import ServerSettings
from tests.agent.http_fixtures import (
    HOLD,
    LocalHTTPServer,
    openai_chunk,
    openai_text_reply,
    openai_tool_calls_reply,
    sse_reply,
)
from tests.lsp.harness import WAIT, start_client
from tests.processes import alive, all_gone

Event = dict[str, Any]
API_KEY = "sk-lsp-test-Qx7-secret"


@pytest.fixture(autouse=True)
def private_temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The server inherits TMPDIR: bash's full-output files land in this test's directory."""
    temp = tmp_path / "tmp"
    temp.mkdir(exist_ok=True)
    monkeypatch.setenv("TMPDIR", str(temp))
    return temp


def write_models(workspace: Path, base_url: str) -> None:
    models = {
        "providers": {
            "local": {
                "baseUrl": base_url + "/v1",
                "api": "openai-completions",
                "apiKey": API_KEY,
                "models": [{"id": "m1"}, {"id": "m2", "contextWindow": 64000}],
            }
        }
    }
    (workspace / "agent" / "models.json").write_text(json.dumps(models, indent=2))


class Events:
    """Every ``pi/event`` the client receives, as plain dicts, in arrival order."""

    def __init__(self, client: LanguageClient) -> None:
        self.received: list[Event] = []

        def on_event(params: Any) -> None:
            self.received.append(plain(params))

        client.feature("pi/event")(on_event)

    def of(self, session: str, turn: int) -> list[Event]:
        return [e for e in self.received if e.get("session") == session and e["turn"] == turn]

    async def until(self, predicate: Callable[[list[Event]], bool]) -> None:
        deadline = time.monotonic() + WAIT
        while not predicate(self.received):
            assert time.monotonic() < deadline, f"no such event in {self.received[-5:]}"
            await asyncio.sleep(0.01)


def send(
    client: LanguageClient, method: str, params: dict[str, Any], msg_id: str | None = None
) -> asyncio.Task[Any]:
    return asyncio.ensure_future(client.protocol.send_request_async(method, params, msg_id=msg_id))


async def request(client: LanguageClient, method: str, params: dict[str, Any]) -> Any:
    return plain(await asyncio.wait_for(send(client, method, params), WAIT))


def kinds(events: list[Event]) -> list[str]:
    return [e["type"] for e in events]


def texts(events: list[Event], kind: str) -> str:
    return "".join(e["text"] for e in events if e["type"] == kind)


def contiguous(events: list[Event]) -> bool:
    return [e["seq"] for e in events] == list(range(1, len(events) + 1))


def sleeper(pids: Path) -> str:
    return f"echo $$ > {pids}; sleep 300 & echo $! >> {pids}; echo started; wait"


# --- streaming --------------------------------------------------------------------------------


async def test_a_chat_streams_text_and_bash_output_in_order(workspace: Path) -> None:
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply(
                [{"name": "bash", "arguments": {"command": "echo one; sleep 0.3; echo two"}}],
                text="Let me run it.",
            ),
            openai_text_reply("Both lines were printed.", piece=3),
            openai_text_reply("Again."),
        )
        client = await start_client(workspace)
        events = Events(client)
        try:
            result = await request(client, "pi/chat", {"text": "run it", "model": "m1"})
            session = result["session"]
            assert result["turn"] == 1 and result["stopReason"] == "stop"
            assert result["text"] == "Both lines were printed."
            assert result["model"] == {"provider": "local", "id": "m1"}
            turn = events.of(session, 1)
            assert contiguous(turn) and result["events"] == len(turn)
            order = kinds(turn)
            assert order[0] == "agent_start" and order[-2:] == ["agent_end", "agent_settled"]

            first_text = order.index("text_delta")
            started = order.index("tool_execution_start")
            first_output = order.index("tool_output")
            ended = order.index("tool_execution_end")
            last_text = len(order) - 1 - order[::-1].index("text_delta")
            assert first_text < started < first_output < ended < last_text
            outputs = [e for e in turn if e["type"] == "tool_output"]
            assert [e["text"] for e in outputs] == ["one\n", "two\n"]  # apart by 0.3 s
            assert {e["toolName"] for e in outputs} == {"bash"}
            assert texts(turn[:started], "text_delta") == "Let me run it."
            assert texts(turn[ended:], "text_delta") == "Both lines were printed."
            assert len([e for e in turn[ended:] if e["type"] == "text_delta"]) < 8  # merged
            end = turn[ended]
            assert end["result"]["content"] == [{"type": "text", "text": "one\ntwo\n"}]

            # The same session again: turn 2, numbered from 1, the history sent along.
            again = await request(client, "pi/chat", {"session": session, "text": "again"})
            assert again["turn"] == 2 and again["text"] == "Again."
            second = events.of(session, 2)
            assert contiguous(second) and second[-1]["type"] == "agent_settled"
            history = json.dumps(model.requests[2].json()["messages"])
            assert "run it" in history and "one\\ntwo\\n" in history
            saved = Path(result["file"]).read_text()
            assert API_KEY not in saved and API_KEY not in json.dumps(events.received)
        finally:
            await client.shutdown_session()


async def test_a_prompt_while_busy_is_queued_or_refused(workspace: Path) -> None:
    gate = workspace / "tmp" / "go"
    command = f"echo waiting; while [ ! -e {gate} ]; do sleep 0.02; done; echo went"
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply([{"name": "bash", "arguments": {"command": command}}]),
            openai_text_reply("Steered."),
        )
        client = await start_client(workspace)
        events = Events(client)
        try:
            pending = send(client, "pi/chat", {"text": "start", "persist": False})
            await events.until(lambda got: "waiting" in texts(got, "tool_output"))
            session = events.received[0]["session"]
            with pytest.raises(JsonRpcException, match="streamingBehavior") as raised:
                await request(client, "pi/chat", {"session": session, "text": "hey"})
            assert raised.value.code == types.LSPErrorCodes.RequestFailed
            queued = await request(
                client,
                "pi/chat",
                {"session": session, "text": "look here", "streamingBehavior": "steer"},
            )
            assert queued["queued"] == "steer" and queued["turn"] == 1
            gate.touch()
            result = plain(await asyncio.wait_for(pending, WAIT))
            assert result["text"] == "Steered."
            sent = model.requests[1].json()["messages"]
            assert "look here" in json.dumps(sent[-1])  # delivered after the tool result
            turn = events.of(session, 1)
            assert contiguous(turn)
            assert [e["steering"] for e in turn if e["type"] == "queue_update"] == [
                ["look here"],
                [],
            ]
        finally:
            await client.shutdown_session()


# --- cancelling -------------------------------------------------------------------------------


async def test_cancelling_stops_the_model_stream_and_kills_the_command(workspace: Path) -> None:
    pids_file = workspace / "tmp" / "pids"
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            sse_reply(
                [
                    openai_chunk({"role": "assistant", "content": ""}),
                    openai_chunk({"content": "Thinking about it"}),
                    HOLD,
                ]
            ),
            openai_tool_calls_reply(
                [{"name": "bash", "arguments": {"command": sleeper(pids_file)}}]
            ),
        )
        client = await start_client(workspace)
        events = Events(client)
        try:
            # 1. While the model streams: the connection to the model is dropped.
            msg_id = str(uuid.uuid4())
            pending = send(client, "pi/chat", {"text": "slow", "persist": False}, msg_id)
            await events.until(lambda got: any(e["type"] == "text_delta" for e in got))
            session = events.received[0]["session"]
            client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
            with pytest.raises(JsonRpcRequestCancelled):
                await asyncio.wait_for(pending, WAIT)
            await asyncio.wait_for(model.client_gone.wait(), WAIT)

            turn = events.of(session, 1)
            assert contiguous(turn) and turn[-1]["type"] == "agent_settled"
            [end] = [
                e
                for e in turn
                if e["type"] == "message_end" and e["message"]["role"] == "assistant"
            ]
            assert end["message"]["stopReason"] == "aborted"

            # 2. While bash runs: the command and its background child die.
            msg_id = str(uuid.uuid4())
            pending = send(client, "pi/chat", {"session": session, "text": "wait"}, msg_id)
            await events.until(lambda _: "started" in texts(events.of(session, 2), "tool_output"))
            pids = [int(line) for line in pids_file.read_text().split()]
            assert len(pids) == 2 and all(alive(pid) for pid in pids)
            client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
            with pytest.raises(JsonRpcRequestCancelled):
                await asyncio.wait_for(pending, WAIT)
            assert await all_gone(pids)

            turn = events.of(session, 2)
            assert contiguous(turn) and turn[-1]["type"] == "agent_settled"
            [end] = [e for e in turn if e["type"] == "tool_execution_end"]
            assert end["isError"] is True
            assert len(model.requests) == 2  # the aborted run asked the model nothing more
        finally:
            await client.shutdown_session()


async def test_stopping_the_features_kills_the_commands_of_every_chat(tmp_path: Path) -> None:
    """What the shutdown handler is to call: every command dies, every session is released."""

    class Wire:
        def write(self, data: bytes) -> None:
            pass

        def close(self) -> None:
            pass

    for name in ("home", "agent", "ws"):
        (tmp_path / name).mkdir()
    pids_file = tmp_path / "pids"
    async with LocalHTTPServer() as model:
        write_models(tmp_path, model.base_url)
        model.enqueue(
            openai_tool_calls_reply(
                [{"name": "bash", "arguments": {"command": sleeper(pids_file)}}]
            )
        )
        server = PiLanguageServer()
        server.protocol.set_writer(Wire(), include_headers=False)
        server.state.root = str(tmp_path / "ws")
        server.state.settings = ServerSettings(agent_dir=str(tmp_path / "agent"))
        register(server)
        sessions = sessions_of(server)
        running = asyncio.ensure_future(
            runs.chat(server, sessions, {"text": "go", "persist": False})
        )
        deadline = time.monotonic() + WAIT
        while len(pids_file.read_text().split() if pids_file.exists() else []) < 2:
            assert time.monotonic() < deadline and not running.done()
            await asyncio.sleep(0.01)
        pids = [int(pid) for pid in pids_file.read_text().split()]

        await server.stop_features()
        assert running.done() and running.result()["stopReason"] == "aborted"
        assert await all_gone(pids)
        assert sessions.sessions == {}


# --- the session tree, navigation, compaction --------------------------------------------------


def tree_entries(tree: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    stack = list(reversed(tree["roots"]))
    while stack:
        segment = stack.pop()
        out.extend(segment["entries"])
        stack.extend(reversed(segment["children"]))
    return out


async def test_tree_navigation_with_a_summary_and_compaction(workspace: Path) -> None:
    (workspace / "agent" / "settings.json").write_text(
        json.dumps({"compaction": {"keepRecentTokens": 1}})
    )
    sessions = workspace / "sessions"
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_text_reply("First answer."),
            openai_text_reply("Second answer."),
            openai_text_reply("Another way."),
            openai_text_reply("## Goal\nTried the second question."),  # branch summary
            openai_text_reply("## Goal\nEverything so far."),  # compaction
        )
        client = await start_client(workspace)
        events = Events(client)
        try:
            first = await request(
                client,
                "pi/chat",
                {"text": "question one", "model": "m1", "sessionDir": str(sessions)},
            )
            session = first["session"]
            second = await request(client, "pi/chat", {"session": session, "text": "question two"})

            # The tree, of the held session and of its file alike.
            tree = await request(client, "pi/session/tree", {"session": session})
            assert tree == await request(client, "pi/session/tree", {"file": first["file"]})
            assert tree["leafId"] == second["leafId"] and tree["sessionId"] == session
            users = [e for e in tree_entries(tree) if e.get("role") == "user"]
            assert [u["description"] for u in users] == [
                'user "question one"',
                'user "question two"',
            ]

            # Re-open the second question for editing: the leaf goes to its parent.
            moved = await request(
                client, "pi/session/navigate", {"session": session, "entryId": users[1]["id"]}
            )
            assert moved["editorText"] == "question two" and moved["summaryEntry"] is None
            assert moved["leafId"] == first["leafId"]
            other = await request(client, "pi/chat", {"session": session, "text": "other way"})
            assert other["text"] == "Another way."
            history = json.dumps(model.requests[2].json()["messages"])
            assert "question one" in history and "question two" not in history

            # Back to the first branch's end, leaving a summary of the abandoned one.
            back = await request(
                client,
                "pi/session/navigate",
                {"session": session, "entryId": second["leafId"], "summarize": True},
            )
            summary = back["summaryEntry"]
            assert summary["type"] == "branch_summary" and summary["fromId"] == other["leafId"]
            assert "Tried the second question." in summary["summary"]
            assert back["leafId"] == summary["id"]
            assert "other way" in json.dumps(model.requests[3].json()["messages"])

            compacted = await request(client, "pi/session/compact", {"session": session})
            assert compacted["summary"].startswith("## Goal\nEverything so far.")
            assert compacted["turn"] == 4  # three chats, then this
            turn = events.of(session, 4)
            assert kinds(turn) == ["compaction_start", "compaction_end"] and contiguous(turn)
            assert turn[1]["result"]["summary"] == compacted["summary"]

            tree = await request(client, "pi/session/tree", {"session": session})
            assert tree["countsByType"]["branch_summary"] == 1
            assert tree["countsByType"]["compaction"] == 1
            assert len(tree["roots"][0]["children"]) == 2  # the fork after the first answer

            with pytest.raises(JsonRpcException, match="not found"):
                await request(
                    client, "pi/session/navigate", {"session": session, "entryId": "nope"}
                )

            # Closing releases the file; the id finds it again in its folder.
            closed = await request(client, "pi/session/close", {"session": session})
            assert closed == {"closed": True, "session": session}
            reopened = await request(
                client, "pi/session/tree", {"session": session, "sessionDir": str(sessions)}
            )
            assert reopened["leafId"] == tree["leafId"]
        finally:
            await client.shutdown_session()


# --- models -----------------------------------------------------------------------------------


async def test_models_and_selecting_one(workspace: Path) -> None:
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(openai_text_reply("From m2."))
        client = await start_client(workspace)
        try:
            listed = await request(client, "pi/models", {})
            assert [(m["provider"], m["id"]) for m in listed["models"]] == [
                ("local", "m1"),
                ("local", "m2"),
            ]
            assert all(m["hasKey"] and m["keySource"] == "models.json" for m in listed["models"])
            assert listed["models"][1]["contextWindow"] == 64000
            assert listed["selected"] is None
            assert API_KEY not in json.dumps(listed)

            # a key for a built-in provider brings Pi's catalogue models of it
            auth = {"anthropic": {"type": "api_key", "key": "sk-ant-planted-Kk2"}}
            (workspace / "agent" / "auth.json").write_text(json.dumps(auth))
            keyed = await request(client, "pi/models", {})
            sonnet = next(m for m in keyed["models"] if m["id"] == "claude-sonnet-4-5")
            assert (sonnet["provider"], sonnet["keySource"]) == ("anthropic", "auth.json")
            assert (sonnet["contextWindow"], sonnet["maxTokens"]) == (1_000_000, 64_000)
            assert not sonnet["custom"] and sonnet["unreachable"] is None
            assert {m["provider"] for m in keyed["models"]} == {"local", "anthropic"}
            every = await request(client, "pi/models", {"all": True})
            assert len(every["models"]) > 1300
            bedrock = next(m for m in every["models"] if m["provider"] == "amazon-bedrock")
            assert not bedrock["hasKey"] and "AWS credentials" in bedrock["unreachable"]
            assert "sk-ant-planted-Kk2" not in json.dumps(every)

            chosen = await request(client, "pi/model/select", {"model": "local/m2"})
            assert chosen["model"] == {"provider": "local", "id": "m2"}
            result = await request(client, "pi/chat", {"text": "hi", "persist": False})
            assert result["text"] == "From m2." and result["model"]["id"] == "m2"
            assert model.requests[0].json()["model"] == "m2"

            with pytest.raises(JsonRpcException, match='unknown model "nope"') as raised:
                await request(client, "pi/model/select", {"model": "nope"})
            assert raised.value.code == types.ErrorCodes.InvalidParams

            models_json = workspace / "agent" / "models.json"
            models_json.write_text('{\n  "providers": [\n')
            with pytest.raises(JsonRpcException) as raised:
                await request(client, "pi/models", {})
            assert raised.value.code == types.LSPErrorCodes.RequestFailed
            assert raised.value.message.startswith(f"{models_json}:3:")
        finally:
            with contextlib.suppress(Exception):
                await client.shutdown_session()
