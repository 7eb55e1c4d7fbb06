"""Edit review over stdio: the editor applies a reviewed edit or write and answers
``{"decision": "applied"}``; the server checks the file and does not write it again.

The pytest-lsp client plays the editor: its ``pi/approve`` handler writes the question's
``proposed`` text (or something else) to disk before answering, as VS Code's Accept does after
its workspace edit and save.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from tests.agent.http_fixtures import LocalHTTPServer, openai_text_reply, openai_tool_calls_reply
from tests.lsp.harness import start_client
from tests.lsp.test_approvals import Asker, chat, tool_results
from tests.lsp.test_chat import Events, private_temp_dir, request, write_models
from tests.lsp.test_checkpoints import by_name, edit, user_entry, write

__all__ = ["private_temp_dir"]

RESTORE = "pi/session/restoreFiles"
FILE_CHANGE = "pi/session/fileChange"


def applying(text: str | None = None) -> Any:
    """An editor that writes the proposed text (or ``text`` instead) and says it applied it."""

    async def answer(question: dict[str, Any]) -> dict[str, Any]:
        target = Path(question["path"])
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("w", newline="") as out:  # line breaks exactly as given
            out.write(question["proposed"] if text is None else text)
        return {"decision": "applied"}

    return answer


async def test_an_edit_the_editor_applied_succeeds_once_and_is_checkpointed(
    workspace: Path,
) -> None:
    target = workspace / "ws" / "notes.txt"
    target.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply([edit("notes.txt", "two", "TWO", "e1")]),
            openai_text_reply("Done."),
        )
        client = await start_client(workspace, options={"approvalMode": "mutating"})
        asker = Asker(client, applying())
        events = Events(client)
        try:
            result = await chat(client, "shout", model="m1", persist=False)
            [question] = asker.questions
            # The whole proposed text, with the file's own line breaks, for the diff editor.
            assert question["proposed"] == "one\r\nTWO\r\nthree\r\n"
            assert target.read_bytes() == b"one\r\nTWO\r\nthree\r\n"
            # Had the tool run after the editor, "two" would not be found: it did not.
            assert tool_results(model.requests[1]) == [
                "Successfully replaced 1 block(s) in notes.txt."
            ]
            [end] = [
                e for e in events.of(result["session"], 1) if e["type"] == "tool_execution_end"
            ]
            assert end["isError"] is False
            assert end["result"]["details"]["diff"] == " 1 one\n-2 two\n+2 TWO\n 3 three"
            # The checkpoint holds the text before the editor applied it.
            entry = await user_entry(client, result["session"], "shout")
            restored = await request(
                client, RESTORE, {"session": result["session"], "entryId": entry}
            )
            assert by_name(restored)["notes.txt"]["action"] == "restore"
            assert target.read_bytes() == b"one\r\ntwo\r\nthree\r\n"
        finally:
            await client.shutdown_session()


async def test_a_write_the_editor_applied_creates_the_file(workspace: Path) -> None:
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply([write("new/a.txt", "hello\n", "w1")]),
            openai_text_reply("Fine."),
        )
        client = await start_client(workspace, options={"approvalMode": "mutating"})
        asker = Asker(client, applying())
        try:
            await chat(client, "write", model="m1", persist=False)
            [question] = asker.questions
            assert question["proposed"] == "hello\n" and question["newFile"] is True
            assert (workspace / "ws" / "new" / "a.txt").read_text() == "hello\n"
            assert tool_results(model.requests[1]) == ["Successfully wrote to new/a.txt"]
        finally:
            await client.shutdown_session()


async def test_applied_but_the_file_differs_is_an_error_for_the_model(workspace: Path) -> None:
    target = workspace / "ws" / "notes.txt"
    target.write_text("one\ntwo\n")
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply([edit("notes.txt", "two", "TWO", "e1")]),
            openai_text_reply("Hm."),
        )
        client = await start_client(workspace, options={"approvalMode": "mutating"})
        Asker(client, applying("one\ntwo, changed by hand\n"))
        events = Events(client)
        try:
            result = await chat(client, "shout", model="m1", persist=False)
            assert tool_results(model.requests[1]) == [
                "edit call not applied: notes.txt does not hold the proposed change "
                "(the editor applied something else, or the file changed since)"
            ]
            [end] = [
                e for e in events.of(result["session"], 1) if e["type"] == "tool_execution_end"
            ]
            assert end["isError"] is True
            # The server did not write the proposal over the user's text.
            assert target.read_text() == "one\ntwo, changed by hand\n"
        finally:
            await client.shutdown_session()


async def test_never_ask_a_made_change_is_reviewed_and_reverted_alone(workspace: Path) -> None:
    ws = workspace / "ws"
    (ws / "a.txt").write_text("one\n")
    (ws / "b.txt").write_text("bee\n")
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply(
                [
                    edit("a.txt", "one", "ONE", "e1"),
                    edit("b.txt", "bee", "BEE", "e2"),
                    write("c.txt", "new\n", "w1"),
                ]
            ),
            openai_text_reply("Done."),
        )
        client = await start_client(workspace)  # approvalMode never: nothing asked
        try:
            result = await chat(client, "go", model="m1", persist=False)
            session = result["session"]
            change = await request(client, FILE_CHANGE, {"session": session, "toolCallId": "e1"})
            assert change["path"] == str(ws / "a.txt") and change["relativePath"] == "a.txt"
            assert (change["tool"], change["existed"], change["before"]) == ("edit", True, "one\n")
            assert (change["changedSince"], change["reverted"]) == (False, False)
            created = await request(client, FILE_CHANGE, {"session": session, "toolCallId": "w1"})
            assert (created["existed"], created["before"]) == (False, None)

            reverted = await request(client, RESTORE, {"session": session, "toolCallId": "e1"})
            assert [(f["relativePath"], f["action"]) for f in reverted["files"]] == [
                ("a.txt", "restore")
            ]
            assert (ws / "a.txt").read_text() == "one\n"
            assert (ws / "b.txt").read_text() == "BEE\n"  # the other changes stay
            assert (ws / "c.txt").exists()
            again = await request(client, FILE_CHANGE, {"session": session, "toolCallId": "e1"})
            assert again["reverted"] is True

            (ws / "b.txt").write_text("BEE, then mine\n")
            kept = await request(client, RESTORE, {"session": session, "toolCallId": "e2"})
            assert [(f["action"], f["userChanged"]) for f in kept["files"]] == [("keep", True)]
            assert (ws / "b.txt").read_text() == "BEE, then mine\n"
            forced = await request(
                client, RESTORE, {"session": session, "toolCallId": "e2", "force": True}
            )
            assert [f["action"] for f in forced["files"]] == ["restore"]
            assert (ws / "b.txt").read_text() == "bee\n"

            deleted = await request(client, RESTORE, {"session": session, "toolCallId": "w1"})
            assert [f["action"] for f in deleted["files"]] == ["delete"]
            assert not (ws / "c.txt").exists()
        finally:
            await client.shutdown_session()


async def test_a_call_without_a_recorded_change_is_invalid_params(workspace: Path) -> None:
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(openai_text_reply("Hi."))
        client = await start_client(workspace)
        try:
            result = await chat(client, "hi", model="m1", persist=False)
            for method in (FILE_CHANGE, RESTORE):
                with pytest.raises(JsonRpcInvalidParams):
                    await request(client, method, {"session": result["session"], "toolCallId": "x"})
        finally:
            await client.shutdown_session()
