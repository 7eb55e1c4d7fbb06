"""Checkpoints over stdio: the agent's ``edit`` / ``write`` calls are recorded beside the session
and ``pi/session/restoreFiles`` puts the files back.

Sessions are made as the chat view makes them: ``pi/chat`` against a scripted OpenAI-compatible
model on a local HTTP server that calls the tools (see ``tests/lsp/test_chat.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.agent.http_fixtures import LocalHTTPServer, openai_text_reply, openai_tool_calls_reply
from tests.lsp.harness import start_client
from tests.lsp.test_chat import private_temp_dir, request, write_models

__all__ = ["private_temp_dir"]  # the autouse fixture: bash output files stay in the test's dir

RESTORE = "pi/session/restoreFiles"


def edit(path: str, old: str, new: str, call_id: str) -> dict[str, Any]:
    return {
        "name": "edit",
        "id": call_id,
        "arguments": {"path": path, "edits": [{"oldText": old, "newText": new}]},
    }


def write(path: str, content: str, call_id: str) -> dict[str, Any]:
    return {"name": "write", "id": call_id, "arguments": {"path": path, "content": content}}


async def user_entry(client: LanguageClient, session: str, text: str, role: str = "user") -> str:
    """The id of the user (or assistant) message ``text`` in the session's branch."""
    shown = await request(client, "pi/session/messages", {"session": session})
    for entry in shown["entries"]:
        message = entry.get("message") or {}
        content = message.get("content") or [{}]
        if message.get("role") == role and content[0].get("text") == text:
            return str(entry["id"])
    raise AssertionError(f"no {role} message {text!r}")


def by_name(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["relativePath"]: f for f in result["files"]}


async def test_restore_puts_edits_back_keeps_user_changes_and_force_overwrites(
    workspace: Path,
) -> None:
    ws = workspace / "ws"
    (ws / "a.txt").write_text("one\n")
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply(
                [edit("a.txt", "one", "two", "c1"), write("notes/new.txt", "created\n", "c2")]
            ),
            openai_text_reply("Changed a.txt and wrote notes/new.txt."),
            openai_tool_calls_reply([edit("a.txt", "two", "three", "c3")]),
            openai_text_reply("Changed a.txt again."),
        )
        client = await start_client(workspace)
        try:
            first = await request(client, "pi/chat", {"text": "first", "model": "m1"})
            session = first["session"]
            await request(client, "pi/chat", {"session": session, "text": "second"})
            assert (ws / "a.txt").read_text() == "three\n"
            p1 = await user_entry(client, session, "first")
            p2 = await user_entry(client, session, "second")

            # The checkpoints live beside the session file; the session file knows nothing of them.
            session_file = Path(first["file"])
            sidecar = session_file.with_name(session_file.stem + ".checkpoints")
            assert (sidecar / "changes.jsonl").is_file()
            assert "checkpoint" not in session_file.read_text()

            # A dry run lists what would be done and writes nothing.
            preview = await request(
                client, RESTORE, {"session": session, "entryId": p1, "dryRun": True}
            )
            assert preview["dryRun"] is True
            assert {k: v["action"] for k, v in by_name(preview).items()} == {
                "a.txt": "restore",
                "notes/new.txt": "delete",
            }
            assert preview["userChanged"] == []
            assert (ws / "a.txt").read_text() == "three\n"

            # Right after the first answer: only the second prompt's change would be undone.
            answer = await user_entry(
                client, session, "Changed a.txt and wrote notes/new.txt.", role="assistant"
            )
            after = {"session": session, "entryId": answer, "after": True, "dryRun": True}
            preview = await request(client, RESTORE, after)
            assert {k: v["action"] for k, v in by_name(preview).items()} == {"a.txt": "restore"}

            # Back to before the second prompt: only its change is undone.
            undone = await request(client, RESTORE, {"session": session, "entryId": p2})
            assert undone["touched"] == [str((ws / "a.txt").resolve())]
            assert (ws / "a.txt").read_text() == "two\n"
            assert (ws / "notes" / "new.txt").read_text() == "created\n"

            # The user changes the created file: restoring keeps it and says so.
            (ws / "notes" / "new.txt").write_text("mine\n")
            kept = await request(client, RESTORE, {"session": session, "entryId": p1})
            files = by_name(kept)
            assert files["a.txt"]["action"] == "restore" and not files["a.txt"]["userChanged"]
            assert files["notes/new.txt"]["action"] == "keep"
            assert kept["userChanged"] == [str((ws / "notes" / "new.txt").resolve())]
            assert (ws / "a.txt").read_text() == "one\n"
            assert (ws / "notes" / "new.txt").read_text() == "mine\n"

            # With force the user's change is overwritten: the file the agent created goes.
            forced = await request(
                client, RESTORE, {"session": session, "entryId": p1, "force": True}
            )
            files = by_name(forced)
            assert list(files) == ["notes/new.txt"]
            assert files["notes/new.txt"]["action"] == "delete"
            assert files["notes/new.txt"]["userChanged"] is True
            assert not (ws / "notes" / "new.txt").exists()

            # Everything is back: a second restore has nothing left to do.
            again = await request(client, RESTORE, {"session": session, "entryId": p1})
            assert again["files"] == [] and again["touched"] == []
        finally:
            await client.shutdown_session()


async def test_a_reloaded_session_still_restores(workspace: Path) -> None:
    ws = workspace / "ws"
    (ws / "code.py").write_text("x = 1\n")
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply([write("code.py", "x = 2\n", "w1")]),
            openai_text_reply("Rewrote it."),
        )
        client = await start_client(workspace)
        try:
            chat = await request(client, "pi/chat", {"text": "rewrite", "model": "m1"})
            entry = await user_entry(client, chat["session"], "rewrite")
        finally:
            await client.shutdown_session()
    assert (ws / "code.py").read_text() == "x = 2\n"

    client = await start_client(workspace)  # a new server: nothing held, the file only read
    try:
        with pytest.raises(JsonRpcException, match="Entry nope not found"):
            await request(client, RESTORE, {"file": chat["file"], "entryId": "nope"})
        restored = await request(client, RESTORE, {"file": chat["file"], "entryId": entry})
        assert [f["action"] for f in restored["files"]] == ["restore"]
        assert (ws / "code.py").read_text() == "x = 1\n"
        # The session file is still one Pi reads: every line a JSON entry, none of ours.
        lines = Path(chat["file"]).read_text().splitlines()
        assert all(json.loads(line)["type"] != "change" for line in lines)
    finally:
        await client.shutdown_session()


async def test_a_file_over_the_limit_is_reported_not_restorable(workspace: Path) -> None:
    ws = workspace / "ws"
    big = "0123456789abcdef\n" * (3 * 1024 * 1024 // 17)
    (ws / "big.txt").write_text(big)
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply([write("big.txt", "small now\n", "w1")]),
            openai_text_reply("Shrunk it."),
        )
        client = await start_client(workspace)
        try:
            chat = await request(client, "pi/chat", {"text": "shrink", "model": "m1"})
            entry = await user_entry(client, chat["session"], "shrink")
            result = await request(client, RESTORE, {"session": chat["session"], "entryId": entry})
            [only] = result["files"]
            assert only["action"] == "notRestorable"
            assert "larger than the 2.0 MiB checkpoint limit" in only["reason"]
            assert (ws / "big.txt").read_text() == "small now\n"
        finally:
            await client.shutdown_session()


async def test_an_unsaved_session_restores_and_a_failed_edit_records_nothing(
    workspace: Path,
) -> None:
    ws = workspace / "ws"
    (ws / "a.txt").write_text("one\n")
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_tool_calls_reply(
                [edit("a.txt", "not there", "x", "e1"), write("made.txt", "new\n", "w1")]
            ),
            openai_text_reply("One edit failed."),
        )
        client = await start_client(workspace)
        try:
            chat = await request(client, "pi/chat", {"text": "go", "model": "m1", "persist": False})
            assert chat["file"] is None
            entry = await user_entry(client, chat["session"], "go")
            result = await request(client, RESTORE, {"session": chat["session"], "entryId": entry})
            assert [(f["relativePath"], f["action"]) for f in result["files"]] == [
                ("made.txt", "delete")
            ]
            assert not (ws / "made.txt").exists()
            assert (ws / "a.txt").read_text() == "one\n"
            assert not list(workspace.rglob("*.checkpoints"))
        finally:
            await client.shutdown_session()
