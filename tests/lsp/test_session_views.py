"""The editor's read-only session views over stdio: the context meter (``pi/session/usage``),
the session picker (``pi/session/list``), the transcript (``pi/session/messages``) and the
compaction preview (``pi/session/compact`` with ``dryRun``).

Sessions are made the way the chat view makes them — ``pi/chat`` against a scripted
OpenAI-compatible model on a local HTTP server (see ``tests/lsp/test_chat.py``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from pi_lsp.session.session_file import SessionFile
from tests.agent.http_fixtures import LocalHTTPServer, openai_text_reply
from tests.lsp.harness import start_client
from tests.lsp.test_chat import API_KEY, request, write_models
from tests.sessions import compacted_fixture_session, fixture_session_params

KINDS = ["systemPrompt", "contextFiles", "skills", "tools", "messages", "summaries"]
RESERVE = 5000


@pytest.fixture(autouse=True)
def private_temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    temp = tmp_path / "tmp"
    temp.mkdir(exist_ok=True)
    monkeypatch.setenv("TMPDIR", str(temp))
    return temp


def settings(workspace: Path, **compaction: int) -> None:
    (workspace / "agent" / "settings.json").write_text(json.dumps({"compaction": compaction}))


def fingerprint(path: Path) -> tuple[str, int]:
    """Content hash and modification time: equal before and after means untouched."""
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def tokens(result: dict[str, Any]) -> dict[str, int]:
    return {c["kind"]: c["tokens"] for c in result["categories"]}


def cli_preview(file: str, window: int, reserve: int, keep: int) -> dict[str, Any]:
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "pi_lsp", "session", "compact", file, "--dry-run", "--json"),
            *("--context-window", str(window), "--reserve-tokens", str(reserve)),
            *("--keep-recent-tokens", str(keep)),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def text_of(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(block["text"] for block in content if block["type"] == "text")


def transcript(result: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) per message entry, (type, "") for the others."""
    rows = []
    for entry in result["entries"]:
        message = entry.get("message")
        rows.append((entry["type"], "") if message is None else (message["role"], text_of(message)))
    return rows


async def error_of(client: LanguageClient, method: str, params: dict[str, Any]) -> Any:
    with pytest.raises(JsonRpcException) as raised:
        await request(client, method, params)
    return raised.value


# --- the context meter ------------------------------------------------------------------------


async def test_the_meter_shows_the_prompt_the_messages_and_a_compaction_summary(
    workspace: Path,
) -> None:
    settings(workspace, keepRecentTokens=20, reserveTokens=RESERVE)
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_text_reply("First answer, " + "long " * 100),
            openai_text_reply("Second answer."),
            openai_text_reply("## Goal\nAnswer two questions. " + "Detail. " * 60),
        )
        client = await start_client(workspace)
        try:
            # No session: the working directory's prompt and tools, nothing else.
            bare = await request(client, "pi/session/usage", {})
            assert [c["kind"] for c in bare["categories"]] == KINDS
            assert bare["session"] is None and bare["estimated"] is False
            assert tokens(bare)["messages"] == tokens(bare)["summaries"] == 0
            prompt = await request(client, "pi/systemPrompt", {})
            # (by span: pygls's client renames the dashed keys of tokensByKind)
            spans = prompt["spans"]
            wrapped = ("context-file", "context-wrapper")
            assert tokens(bare)["contextFiles"] == sum(
                span["tokens"] for span in spans if span["kind"] in wrapped
            )
            assert tokens(bare)["contextFiles"] > 0
            assert tokens(bare)["tools"] > 100 and tokens(bare)["systemPrompt"] > 100
            assert bare["total"] == sum(tokens(bare).values())
            # the model pi/chat would take: the first with a key (m1, default window)
            assert bare["model"] == {"provider": "local", "id": "m1"}
            assert (bare["contextWindow"], bare["reserveTokens"]) == (128000, RESERVE)
            assert bare["threshold"] == 128000 - RESERVE

            first = await request(
                client,
                "pi/chat",
                {"text": "question one", "model": "m2", "sessionDir": str(workspace / "s")},
            )
            session = first["session"]
            # a long question, a short answer: the cut keeps the second turn whole
            await request(client, "pi/chat", {"session": session, "text": "two " * 30})
            before = await request(client, "pi/session/usage", {"session": session})
            assert before["session"] == session and before["estimated"] is True
            assert before["model"] == {"provider": "local", "id": "m2"}
            assert (before["contextWindow"], before["threshold"]) == (64000, 64000 - RESERVE)
            assert tokens(before)["messages"] > 100 and tokens(before)["summaries"] == 0
            for kind in KINDS[:4]:  # same folder: the same prompt and tools
                assert tokens(before)[kind] == tokens(bare)[kind]

            compacted = await request(client, "pi/session/compact", {"session": session})
            after = await request(client, "pi/session/usage", {"session": session})
            summary_tokens = math.ceil(len(compacted["summary"]) / 4)
            assert tokens(after)["summaries"] == summary_tokens > 0
            assert tokens(after)["messages"] < tokens(before)["messages"]
            assert after["total"] == sum(tokens(after).values())

            # The same file, no longer held: read, with the window of the model it recorded.
            await request(client, "pi/session/close", {"session": session})
            by_file = await request(client, "pi/session/usage", {"file": first["file"]})
            assert by_file["session"] is None
            assert by_file["categories"] == after["categories"]
            assert (by_file["contextWindow"], by_file["model"]["id"]) == (64000, "m2")
            assert API_KEY not in json.dumps([bare, before, after, by_file])

            # The transcript shows the compaction where it happened.
            shown = await request(client, "pi/session/messages", {"file": first["file"]})
            compaction = [e for e in shown["entries"] if e["type"] == "compaction"]
            assert len(compaction) == 1 and compaction[0]["summary"] == compacted["summary"]
            assert compaction[0]["tokensBefore"] == compacted["tokensBefore"]
        finally:
            await client.shutdown_session()


async def test_without_a_model_the_window_is_the_model_window_setting(workspace: Path) -> None:
    client = await start_client(workspace, options={"modelWindow": 50000})
    try:
        usage = await request(client, "pi/session/usage", {"cwd": str(workspace / "ws" / "pkg")})
        assert usage["model"] is None
        assert (usage["contextWindow"], usage["reserveTokens"]) == (50000, 16384)
        assert usage["threshold"] == 50000 - 16384
        assert usage["cwd"] == os.path.realpath(workspace / "ws" / "pkg")
        assert tokens(usage)["contextFiles"] > 0  # ws/AGENTS.md and ws/pkg/AGENTS.md
    finally:
        await client.shutdown_session()


# --- the picker and the transcript ------------------------------------------------------------


async def test_list_is_newest_first_and_only_reads(workspace: Path) -> None:
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_text_reply("One."),
            openai_text_reply("Two."),
            openai_text_reply("Three."),
        )
        client = await start_client(workspace)
        try:
            older = await request(client, "pi/chat", {"text": "  first\n question  "})
            newer = await request(client, "pi/chat", {"text": "x" * 300})
            await request(client, "pi/chat", {"session": newer["session"], "text": "more"})
            old_file, new_file = Path(older["file"]), Path(newer["file"])
            os.utime(old_file, ns=(old_file.stat().st_atime_ns, 1_700_000_000_000_000_000))
            (old_file.parent / "stray.jsonl").write_text("not a session\n")
            before = [fingerprint(old_file), fingerprint(new_file)]

            listed = (await request(client, "pi/session/list", {}))["sessions"]
            assert [s["id"] for s in listed] == [newer["session"], older["session"]]
            top, bottom = listed
            assert top["file"] == str(new_file) and top["cwd"] == str(workspace / "ws")
            assert top["messageCount"] == 4 and top["name"] is None
            assert top["firstMessage"] == "x" * 199 + "…"
            assert bottom["firstMessage"] == "first question"
            assert bottom["modified"] == "2023-11-14T22:13:20.000Z"
            assert [fingerprint(old_file), fingerprint(new_file)] == before

            # While the server holds both, listing took no lock of its own: once it lets the
            # sessions go, another writer opens them.
            for held in (older, newer):
                await request(client, "pi/session/close", {"session": held["session"]})
            for file in (old_file, new_file):
                SessionFile.open(file).close()
            by_folder = await request(
                client, "pi/session/list", {"sessionDir": str(old_file.parent)}
            )
            assert [s["id"] for s in by_folder["sessions"]] == [s["id"] for s in listed]
            elsewhere = await request(client, "pi/session/list", {"cwd": str(workspace / "home")})
            assert elsewhere == {"sessions": []}
        finally:
            await client.shutdown_session()


async def test_messages_follow_the_leaf_and_leave_the_file_alone(workspace: Path) -> None:
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_text_reply("Answer one."),
            openai_text_reply("Answer two."),
            openai_text_reply("Answer three."),
        )
        client = await start_client(workspace)
        try:
            first = await request(client, "pi/chat", {"text": "q1", "model": "m1"})
            session = first["session"]
            second = await request(client, "pi/chat", {"session": session, "text": "q2"})
            shown = await request(client, "pi/session/messages", {"session": session})
            user_q2 = [
                e for e in shown["entries"] if "message" in e and text_of(e["message"]) == "q2"
            ]
            moved = await request(
                client, "pi/session/navigate", {"session": session, "entryId": user_q2[0]["id"]}
            )
            third = await request(client, "pi/chat", {"session": session, "text": "q3"})

            current = await request(client, "pi/session/messages", {"session": session})
            assert current["session"] == session and current["file"] == first["file"]
            assert current["leafId"] == third["leafId"] != second["leafId"]
            assert transcript(current) == [
                ("model_change", ""),
                ("thinking_level_change", ""),
                ("user", "q1"),
                ("assistant", "Answer one."),
                ("user", "q3"),
                ("assistant", "Answer three."),
            ]
            assert current["entries"][0]["provider"] == "local"
            assert current["entries"][0]["modelId"] == "m1"
            assert moved["leafId"] == current["entries"][3]["id"]
            assert all({"id", "type", "timestamp"} <= set(e) for e in current["entries"])

            # An abandoned branch, by its leaf.
            old = await request(
                client, "pi/session/messages", {"session": session, "leafId": second["leafId"]}
            )
            assert old["leafId"] == second["leafId"]
            assert transcript(old)[-2:] == [("user", "q2"), ("assistant", "Answer two.")]
            assert old["entries"][:4] == current["entries"][:4]

            # The file, once let go: read only, the same path, while someone else writes it.
            await request(client, "pi/session/close", {"session": session})
            file = Path(first["file"])
            before = fingerprint(file)
            with SessionFile.open(file):  # another writer holds the lock
                read = await request(client, "pi/session/messages", {"file": str(file)})
            assert read["session"] is None and read["entries"] == current["entries"]
            assert fingerprint(file) == before

            error = await error_of(
                client, "pi/session/messages", {"file": str(file), "leafId": "nope"}
            )
            assert error.code == types.ErrorCodes.InvalidParams and "nope" in error.message
        finally:
            await client.shutdown_session()


# --- the compaction preview -------------------------------------------------------------------


async def test_a_dry_run_reports_the_cut_of_the_cli_and_writes_nothing(workspace: Path) -> None:
    settings(workspace, keepRecentTokens=30, reserveTokens=RESERVE)
    async with LocalHTTPServer() as model:
        write_models(workspace, model.base_url)
        model.enqueue(
            openai_text_reply("Answer one."),
            openai_text_reply("Answer two."),
            openai_text_reply("Answer three."),
            openai_text_reply("## Goal\nThe summary."),
            openai_text_reply("A long answer, " + "word " * 40),
            openai_text_reply("Another long answer, " + "word " * 40),
        )
        client = await start_client(workspace)
        try:
            # long questions, short answers: the cut falls on the last question (no split turn)
            first = await request(client, "pi/chat", {"text": "q1 " * 40, "model": "m2"})
            session = first["session"]
            for text in ("q2 " * 40, "q3 " * 40):
                await request(client, "pi/chat", {"session": session, "text": text})
            file = Path(first["file"])
            before = fingerprint(file)
            asked = len(model.requests)

            preview = await request(
                client, "pi/session/compact", {"session": session, "dryRun": True}
            )
            assert fingerprint(file) == before and len(model.requests) == asked
            cli = cli_preview(str(file), 64000, RESERVE, 30)
            assert preview == {
                "dryRun": True,
                "cutEntryId": cli["cut"]["firstKeptEntryId"],  # the cut splits no turn here
                "firstKeptEntryId": cli["cut"]["firstKeptEntryId"],
                "isSplitTurn": False,
                "summarizedCount": len(cli["summarized"]),
                "keptCount": len(cli["kept"]),
                "tokensBefore": cli["tokensBefore"],
                "estimatedTokensAfter": cli["estimatedTokensAfter"],
                "readFiles": cli["readFiles"],
                "modifiedFiles": cli["modifiedFiles"],
            }
            assert (preview["summarizedCount"], preview["keptCount"]) == (4, 2)

            # By file, not held, while another writer has it: the same preview.
            await request(client, "pi/session/close", {"session": session})
            with SessionFile.open(file):
                by_file = await request(
                    client, "pi/session/compact", {"file": str(file), "dryRun": True}
                )
            assert by_file == preview and fingerprint(file) == before

            # The real compaction cuts where the preview said.
            done = await request(client, "pi/session/compact", {"file": str(file)})
            assert done["firstKeptEntryId"] == preview["firstKeptEntryId"]
            assert done["tokensBefore"] == preview["tokensBefore"]
            error = await error_of(
                client, "pi/session/compact", {"session": done["session"], "dryRun": True}
            )
            assert error.code == types.LSPErrorCodes.RequestFailed
            assert "Already compacted" in error.message

            # Short questions, long answers: the last answer alone is kept, its turn is split.
            split = await request(client, "pi/chat", {"text": "q"})
            last = await request(client, "pi/chat", {"session": split["session"], "text": "q"})
            cut = await request(
                client, "pi/session/compact", {"session": split["session"], "dryRun": True}
            )
            cli = cli_preview(split["file"], 64000, RESERVE, 30)["cut"]
            assert cut["isSplitTurn"] is True and cli["isSplitTurn"] is True
            assert cut["firstKeptEntryId"] == cli["firstKeptEntryId"] == last["leafId"]
            assert cut["cutEntryId"] == cli["turnStartEntryId"] != cut["firstKeptEntryId"]
        finally:
            await client.shutdown_session()


# --- bad input --------------------------------------------------------------------------------


async def test_bad_sessions_are_named_and_the_server_stays_up(workspace: Path) -> None:
    not_a_session = workspace / "ws" / "notes.jsonl"
    not_a_session.write_text('{"hello": "world"}\n')
    folder = workspace / "ws" / "folder.jsonl"
    folder.mkdir()
    missing = workspace / "ws" / "gone.jsonl"
    client = await start_client(workspace)
    try:
        unknown = await error_of(client, "pi/session/usage", {"session": "0190-nope"})
        assert unknown.code == types.ErrorCodes.InvalidParams and "0190-nope" in unknown.message

        for method in ("pi/session/messages", "pi/session/usage"):
            error = await error_of(client, method, {"file": str(not_a_session)})
            assert error.code == types.ErrorCodes.InvalidParams
            assert str(not_a_session) in error.message
            for path in (folder, missing):
                error = await error_of(client, method, {"file": str(path)})
                assert error.code == types.LSPErrorCodes.RequestFailed
                assert str(path) in error.message and error.data == {"path": str(path)}

        dry = await error_of(client, "pi/session/compact", {"file": str(missing), "dryRun": True})
        assert dry.code == types.LSPErrorCodes.RequestFailed and str(missing) in dry.message
        assert not missing.exists()  # a dry run never creates the file
        flag = await error_of(client, "pi/session/compact", {"file": "x", "dryRun": "yes"})
        assert flag.code == types.ErrorCodes.InvalidParams and "dryRun" in flag.message
        for params in ({"sessionDir": 5}, {"cwd": ""}):
            error = await error_of(client, "pi/session/list", params)
            assert error.code == types.ErrorCodes.InvalidParams
        error = await error_of(client, "pi/session/messages", {})
        assert error.code == types.ErrorCodes.InvalidParams

        status = await request(client, "pi/status", {})
        assert status["root"] == str(workspace / "ws")
    finally:
        with contextlib.suppress(Exception):
            await client.shutdown_session()


@pytest.mark.parametrize("source", fixture_session_params("large-session.jsonl"))
async def test_a_held_session_rewritten_in_place_fails_by_name(
    source: Path, workspace: Path
) -> None:
    """A large session keeps most entries in its file; when another program rewrites that
    file in place, the views say which file went wrong instead of failing inside."""
    file = compacted_fixture_session(workspace / "ws", source)
    with SessionFile.open(file) as session:  # past 1 MiB: entries stay in the file
        long_prompt = session.append_message(
            {"role": "user", "content": "a long prompt " * 8000, "timestamp": 4}
        )
        session.append_compaction("the story so far", long_prompt, 2)
    assert file.stat().st_size > 1 << 20
    write_models(workspace, "http://127.0.0.1:9")  # never called: nothing asks the model
    client = await start_client(workspace)
    try:
        leaf = SessionFile.read(file).leaf_id
        held = await request(client, "pi/session/navigate", {"file": str(file), "entryId": leaf})
        before = await request(client, "pi/session/messages", {"session": held["session"]})
        assert before["entries"][-1]["id"] == leaf
        data = re.sub(rb'"id":"[^"]', b'"id":"@', file.read_bytes())  # same size, other ids
        with open(file, "r+b") as handle:
            handle.write(data)
        for method in ("pi/session/messages", "pi/session/tree"):
            error = await error_of(client, method, {"session": held["session"]})
            assert error.code == types.LSPErrorCodes.RequestFailed, method
            assert str(file) in error.message and "changed on disk" in error.message
            assert error.data == {"path": str(file)}
        status = await request(client, "pi/status", {})
        assert status["root"] == str(workspace / "ws")
    finally:
        with contextlib.suppress(Exception):
            await client.shutdown_session()
