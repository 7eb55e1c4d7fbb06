"""Approvals over stdio: ``pi/approve`` asked before bash, edit and write (``approvalMode``).

The client is pytest-lsp's, answering ``pi/approve`` the way the test says; the model is the
scripted local HTTP server, whose recorded requests show what the model received as the
tool's result.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled
from pytest_lsp import LanguageClient

from pi_lsp.server.requests import plain
from tests.agent.http_fixtures import (
    LocalHTTPServer,
    RecordedRequest,
    openai_text_reply,
    openai_tool_calls_reply,
)
from tests.lsp.harness import WAIT, start_client
from tests.lsp.test_chat import Events, request, send, write_models

Answer = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class Asker:
    """The client's ``pi/approve`` handler: records each question, answers with ``answer``."""

    def __init__(self, client: LanguageClient, answer: Answer) -> None:
        self.questions: list[dict[str, Any]] = []
        self.withdrawn: list[str] = []

        @client.feature("pi/approve")
        async def approve(params: Any) -> dict[str, Any]:
            question = plain(params)
            self.questions.append(question)
            try:
                return await answer(question)
            except asyncio.CancelledError:  # the server sent $/cancelRequest
                self.withdrawn.append(question["toolCallId"])
                raise


def answering(decision: str, reason: str | None = None) -> Answer:
    async def answer(_: dict[str, Any]) -> dict[str, Any]:
        return {"decision": decision, **({"reason": reason} if reason else {})}

    return answer


def tool_results(model_request: RecordedRequest) -> list[str]:
    """The tool results (their text) in one request the model received."""
    messages = model_request.json()["messages"]
    return [str(m["content"]) for m in messages if m["role"] == "tool"]


async def chat(client: LanguageClient, text: str, **params: Any) -> dict[str, Any]:
    result: dict[str, Any] = await request(client, "pi/chat", {"text": text, **params})
    return result


async def test_an_allowed_command_runs_after_one_question_with_its_cwd(workspace: Path) -> None:
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply(
                [{"name": "bash", "arguments": {"command": "echo approved-run", "timeout": 30}}]
            ),
            openai_text_reply("Done."),
        )
        client = await start_client(workspace, options={"approvalMode": "mutating"})
        asker = Asker(client, answering("allow"))
        try:
            result = await chat(client, "run it", model="m1", persist=False)
            [question] = asker.questions
            assert question["session"] == result["session"]
            assert question["tool"] == "bash" and question["toolCallId"] == "call_0"
            assert question["command"] == "echo approved-run" and question["timeout"] == 30
            assert question["cwd"] == str(workspace / "ws")
            assert tool_results(model.requests[1]) == ["approved-run\n"]
        finally:
            await client.shutdown_session()


async def test_a_denied_edit_is_not_written_and_the_model_reads_the_reason(
    workspace: Path,
) -> None:
    target = workspace / "ws" / "notes.txt"
    target.write_text("one\ntwo\nthree\n")
    edit = {"path": "notes.txt", "edits": [{"oldText": "two", "newText": "TWO"}]}
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply([{"name": "edit", "arguments": edit}]),
            openai_text_reply("Understood."),
        )
        client = await start_client(workspace, options={"approvalMode": "mutating"})
        asker = Asker(client, answering("deny", "keep the lower case"))
        events = Events(client)
        try:
            result = await chat(client, "shout", model="m1", persist=False)
            [question] = asker.questions
            assert question["tool"] == "edit" and question["displayPath"] == "notes.txt"
            assert question["path"] == str(target) and question["newFile"] is False
            assert question["diff"] == (
                "--- notes.txt\n+++ notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
            )
            assert target.read_text() == "one\ntwo\nthree\n"  # asking wrote nothing
            denied = "edit call denied by the user: keep the lower case"
            assert tool_results(model.requests[1]) == [denied]
            [end] = [
                e for e in events.of(result["session"], 1) if e["type"] == "tool_execution_end"
            ]
            assert end["isError"] is True
        finally:
            await client.shutdown_session()


async def test_a_new_file_shows_its_whole_content_and_a_bare_deny_says_so(
    workspace: Path,
) -> None:
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply(
                [{"name": "write", "arguments": {"path": "new/a.txt", "content": "hello\n"}}]
            ),
            openai_text_reply("Fine."),
        )
        client = await start_client(workspace, options={"approvalMode": "mutating"})
        asker = Asker(client, answering("deny"))
        try:
            await chat(client, "write", model="m1", persist=False)
            [question] = asker.questions
            assert question["tool"] == "write" and question["newFile"] is True
            assert question["diff"] == "--- new/a.txt\n+++ new/a.txt\n@@ -0,0 +1,1 @@\n+hello\n"
            assert not (workspace / "ws" / "new").exists()
            assert tool_results(model.requests[1]) == ["write call denied by the user"]
        finally:
            await client.shutdown_session()


async def test_allowed_for_the_session_the_next_call_is_not_asked(workspace: Path) -> None:
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply([{"name": "bash", "arguments": {"command": "echo first"}}]),
            openai_tool_calls_reply([{"name": "bash", "arguments": {"command": "echo second"}}]),
            openai_text_reply("Both ran."),
            openai_tool_calls_reply(
                [{"name": "write", "arguments": {"path": "w.txt", "content": "x"}}]
            ),
            openai_text_reply("Written."),
        )
        client = await start_client(workspace, options={"approvalMode": "mutating"})
        asker = Asker(client, answering("allowSession"))
        try:
            result = await chat(client, "run both", model="m1", persist=False)
            assert [q["command"] for q in asker.questions] == ["echo first"]
            assert tool_results(model.requests[2]) == ["first\n", "second\n"]
            # Bash was allowed, not file changes: a write is still asked about.
            await chat(client, "write", session=result["session"])
            assert [q["tool"] for q in asker.questions] == ["bash", "write"]
            assert (workspace / "ws" / "w.txt").read_text() == "x"
        finally:
            await client.shutdown_session()


async def test_allow_listed_commands_and_paths_are_not_asked(workspace: Path) -> None:
    (workspace / "ws" / "docs").mkdir()
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply(
                [
                    {"name": "bash", "arguments": {"command": "echo listed"}, "id": "c1"},
                    {
                        "name": "bash",
                        "arguments": {"command": "echo listed; echo more"},
                        "id": "c2",
                    },
                    {
                        "name": "write",
                        "arguments": {"path": "docs/a.md", "content": "a"},
                        "id": "c3",
                    },
                    {"name": "write", "arguments": {"path": "b.md", "content": "b"}, "id": "c4"},
                ]
            ),
            openai_text_reply("Done."),
        )
        options = {
            "approvalMode": "mutating",
            "approvalAllowCommands": ["echo listed"],
            "approvalAllowPaths": ["docs"],
        }
        client = await start_client(workspace, options=options)
        asker = Asker(client, answering("allow"))
        try:
            await chat(client, "go", model="m1", persist=False)
            # A listed prefix followed by more shell is asked about; the folder's file is not.
            assert [q["toolCallId"] for q in asker.questions] == ["c2", "c4"]
            assert (workspace / "ws" / "docs" / "a.md").read_text() == "a"
            assert (workspace / "ws" / "b.md").read_text() == "b"
        finally:
            await client.shutdown_session()


async def test_bash_mode_asks_about_bash_only(workspace: Path) -> None:
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply(
                [
                    {"name": "write", "arguments": {"path": "f.txt", "content": "f"}, "id": "w"},
                    {"name": "bash", "arguments": {"command": "cat f.txt"}, "id": "b"},
                ]
            ),
            openai_text_reply("Done."),
        )
        client = await start_client(workspace, options={"approvalMode": "bash"})
        asker = Asker(client, answering("deny", "no shell"))
        try:
            await chat(client, "go", model="m1", persist=False)
            assert [q["toolCallId"] for q in asker.questions] == ["b"]
            assert tool_results(model.requests[1]) == [
                "Successfully wrote to f.txt",
                "bash call denied by the user: no shell",
            ]
        finally:
            await client.shutdown_session()


async def test_a_client_without_the_request_gets_pis_behaviour(workspace: Path) -> None:
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply(
                [{"name": "write", "arguments": {"path": "p.txt", "content": "pi"}}]
            ),
            openai_text_reply("Written."),
        )
        client = await start_client(workspace, options={"approvalMode": "mutating"})
        try:
            result = await chat(client, "write", model="m1", persist=False)
            assert result["stopReason"] == "stop"
            assert (workspace / "ws" / "p.txt").read_text() == "pi"
            assert tool_results(model.requests[1]) == ["Successfully wrote to p.txt"]
        finally:
            await client.shutdown_session()


async def test_never_is_the_default_and_asks_nothing(workspace: Path) -> None:
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply([{"name": "bash", "arguments": {"command": "echo pi"}}]),
            openai_text_reply("Ran."),
        )
        client = await start_client(workspace)
        asker = Asker(client, answering("deny"))
        try:
            await chat(client, "run", model="m1", persist=False)
            assert asker.questions == []
            assert tool_results(model.requests[1]) == ["pi\n"]
        finally:
            await client.shutdown_session()


async def test_stop_while_asking_withdraws_the_question_and_ends_the_turn(
    workspace: Path,
) -> None:
    never = asyncio.Event()

    async def wait_forever(_: dict[str, Any]) -> dict[str, Any]:
        await never.wait()
        return {"decision": "allow"}

    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply(
                [{"name": "write", "arguments": {"path": "s.txt", "content": "s"}}]
            ),
            openai_text_reply("After the stop."),
        )
        client = await start_client(workspace, options={"approvalMode": "mutating"})
        asker = Asker(client, wait_forever)
        events = Events(client)
        try:
            msg_id = str(uuid.uuid4())
            pending = send(client, "pi/chat", {"text": "write", "model": "m1"}, msg_id)
            await events.until(lambda _: bool(asker.questions))
            session = asker.questions[0]["session"]
            client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
            with pytest.raises(JsonRpcRequestCancelled):
                await asyncio.wait_for(pending, WAIT)
            await events.until(lambda _: asker.withdrawn == ["call_0"])
            turn = events.of(session, 1)
            assert turn[-1]["type"] == "agent_settled"
            [end] = [e for e in turn if e["type"] == "tool_execution_end"]
            assert end["isError"] is True
            assert end["result"]["content"] == [{"type": "text", "text": "Operation aborted"}]
            assert not (workspace / "ws" / "s.txt").exists()
            assert len(model.requests) == 1

            # The session goes on: the next prompt is answered.
            again = await chat(client, "go on", session=session)
            assert again["text"] == "After the stop."
            history = json.dumps(model.requests[1].json()["messages"])
            assert "Operation aborted" in history
        finally:
            await client.shutdown_session()
