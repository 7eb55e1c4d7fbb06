"""The server's ``pi/chat`` and ``pi-lsp chat`` claim a new session file the same way: while
the server's chat on a new ``file`` waits for its first answer, a terminal chat on that file
stops before it asks the model anything, and the server's answer is saved."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pi_lsp.server.requests import plain
from tests.agent.http_fixtures import LocalHTTPServer, openai_text_reply
from tests.cli import test_chat as cli
from tests.cli.test_chat_shared_session import answers_in, held_until, until_requests
from tests.lsp.harness import WAIT, start_client


async def test_a_terminal_chat_stops_while_the_server_starts_the_same_file(
    workspace: Path,
) -> None:
    session = workspace / "shared.jsonl"
    gate = asyncio.Event()
    async with LocalHTTPServer() as model:
        cli.setup(workspace, model.base_url)
        model.enqueue(held_until(gate, openai_text_reply("From the editor.")))
        client = await start_client(workspace)
        try:
            params = {"text": "one", "model": "m1", "file": str(session)}
            editor = asyncio.ensure_future(client.protocol.send_request_async("pi/chat", params))
            await until_requests(model, 1)
            terminal = await cli.chat(workspace, "--model", "m1", "--session", str(session), "two")
            assert len(model.requests) == 1
            gate.set()
            result = plain(await asyncio.wait_for(editor, WAIT))
        finally:
            await client.shutdown_session()

    assert terminal.code == 1
    assert f"{session}: another pi-lsp writer is starting this new session file" in terminal.stderr
    assert result["text"] == "From the editor."
    assert answers_in(session) == ["From the editor."]
