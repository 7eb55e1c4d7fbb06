"""A client that sends garbage, odd URIs and requests out of order never takes the server down."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.lsp.harness import WAIT, server_env, start_client


class RawClient:
    """JSON-RPC over the server's stdio, byte by byte, so we can send what no library would."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.messages: list[dict[str, Any]] = []

    @classmethod
    async def start(cls, tmp: Path) -> RawClient:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "pi_lsp",
            "serve",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=server_env(tmp),
        )
        return cls(process)

    def send_bytes(self, body: bytes, length: int | None = None) -> None:
        assert self.process.stdin is not None
        header = f"Content-Length: {len(body) if length is None else length}\r\n\r\n"
        self.process.stdin.write(header.encode() + body)

    def send(self, message: dict[str, Any]) -> None:
        self.send_bytes(json.dumps({"jsonrpc": "2.0", **message}).encode())

    async def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        length = 0
        while True:
            line = await asyncio.wait_for(self.process.stdout.readline(), WAIT)
            assert line, "the server closed its output"
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        body = await asyncio.wait_for(self.process.stdout.readexactly(length), WAIT)
        message: dict[str, Any] = json.loads(body)
        self.messages.append(message)
        return message

    async def response(self, request_id: int) -> dict[str, Any]:
        while True:
            message = await self.read()
            if message.get("id") == request_id and "method" not in message:
                return message


async def test_garbage_before_and_after_initialize(workspace: Path) -> None:
    client = await RawClient.start(workspace)
    try:
        client.send_bytes(b"{ this is not json")
        client.send_bytes(b'"just a string"')
        client.send_bytes(b"[1, 2, 3]")
        client.send({"id": 1, "method": "no/suchMethod", "params": {}})
        assert "error" in await client.response(1)
        client.send(
            {
                "id": 2,
                "method": "initialize",
                "params": {
                    "processId": None,
                    "rootUri": (workspace / "ws").as_uri(),
                    "capabilities": {},
                    "initializationOptions": {"agentDir": str(workspace / "agent")},
                },
            }
        )
        initialized = await client.response(2)
        assert initialized["result"]["serverInfo"]["name"] == "pi-lsp"
        client.send({"method": "initialized", "params": {}})
        # wrong shapes, unknown documents, odd URIs
        client.send({"id": 3, "method": "textDocument/hover", "params": {"nonsense": True}})
        assert "error" in await client.response(3)
        for n, uri in enumerate(
            ["untitled:Untitled-1", "file:///no/such/AGENTS.md", "not a uri at all"], start=4
        ):
            client.send(
                {
                    "id": n,
                    "method": "textDocument/hover",
                    "params": {
                        "textDocument": {"uri": uri},
                        "position": {"line": 9, "character": 99},
                    },
                }
            )
            reply = await client.response(n)
            assert "result" in reply or "error" in reply
        client.send(
            {
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": "file:///never/opened.md", "version": 3},
                    "contentChanges": [{"text": "x"}],
                },
            }
        )
        client.send({"id": 10, "method": "pi/systemPrompt", "params": {"cwd": 42}})
        await client.response(10)
        # and after all that, it still does its job
        client.send({"id": 11, "method": "pi/status"})  # no params at all: JSON-RPC allows it
        status = await client.response(11)
        assert status["result"]["root"] == str(workspace / "ws")
        while not any(
            m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"].endswith("pkg/AGENTS.md")
            for m in client.messages
        ):
            await client.read()
        client.send({"id": 12, "method": "shutdown"})
        await client.response(12)
        client.send({"method": "exit"})
        assert await asyncio.wait_for(client.process.wait(), WAIT) == 0
    finally:
        if client.process.returncode is None:
            client.process.kill()
            await client.process.wait()


async def test_bytes_that_are_not_utf8_and_an_empty_body(workspace: Path) -> None:
    client = await RawClient.start(workspace)
    try:
        client.send_bytes(b"\xff\xfe\x00garbage\x80")
        client.send_bytes(b"")
        client.send_bytes(b"{}")
        client.send({"id": 2, "method": "no/suchMethod", "params": {}})
        reply = await client.response(2)
        assert "error" in reply
    finally:
        client.process.kill()
        await client.process.wait()


async def test_a_deleted_workspace_folder_is_survived(workspace: Path) -> None:
    import shutil

    client = await start_client(workspace, "neovim")  # the server watches the folder itself
    try:
        pkg = workspace / "ws" / "pkg" / "AGENTS.md"
        while pkg.as_uri() not in client.diagnostics:
            await asyncio.wait_for(
                client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), WAIT
            )
        shutil.rmtree(workspace / "ws")
        while client.diagnostics.get(pkg.as_uri()):
            await asyncio.wait_for(
                client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), WAIT
            )
        status = await asyncio.wait_for(client.protocol.send_request_async("pi/status", {}), WAIT)
        assert status.root == str(workspace / "ws")
        (workspace / "ws" / "pkg").mkdir(parents=True)  # and it comes back
        (workspace / "ws" / "AGENTS.md").write_text("- Use npm to install packages.\n")
        pkg.write_text("- Always use pnpm.\n")
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                [types.FileEvent(uri=pkg.as_uri(), type=types.FileChangeType.Created)]
            )
        )
        while not client.diagnostics.get(pkg.as_uri()):
            await asyncio.wait_for(
                client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), WAIT
            )
    finally:
        await client.shutdown_session()


async def _quit_during_a_full_reload(workspace: Path, attempt: int) -> tuple[int | None, bytes]:
    """Open a conflicting file, change the settings (a full reload, with progress), then
    shutdown + exit at once, answering every server request meanwhile; the exit code and
    stderr."""
    sub = workspace / "ws" / "pkg" / "AGENTS.md"
    client = await RawClient.start(workspace)
    pending: dict[int, asyncio.Future[dict[str, Any]]] = {}

    async def answer_the_server() -> None:
        while True:
            message = await client.read()
            if "method" in message and "id" in message:  # progress tokens, configuration
                items = (message.get("params") or {}).get("items")
                answer = [None] * len(items) if isinstance(items, list) else None
                client.send({"id": message["id"], "result": answer})
            elif message.get("id") in pending:
                pending.pop(message["id"]).set_result(message)

    async def ask(request_id: int, method: str, params: Any) -> dict[str, Any]:
        pending[request_id] = asyncio.get_running_loop().create_future()
        client.send({"id": request_id, "method": method, "params": params})
        return await asyncio.wait_for(pending[request_id], WAIT)

    reader = asyncio.ensure_future(answer_the_server())
    try:
        capabilities = {"window": {"workDoneProgress": True}, "workspace": {"configuration": True}}
        root = (workspace / "ws").as_uri()
        await ask(
            1, "initialize", {"processId": None, "rootUri": root, "capabilities": capabilities}
        )
        client.send({"method": "initialized", "params": {}})
        text = sub.read_text() + f"\n- Never use pnpm ({attempt}).\n"
        document = {"uri": sub.as_uri(), "languageId": "markdown", "version": 1, "text": text}
        client.send({"method": "textDocument/didOpen", "params": {"textDocument": document}})
        client.send({"method": "workspace/didChangeConfiguration", "params": {"settings": {}}})
        await asyncio.sleep(0.01 * attempt)
        await ask(2, "shutdown", None)
        client.send({"method": "exit", "params": None})
        assert client.process.stderr is not None
        stderr = await asyncio.wait_for(client.process.stderr.read(), WAIT)
        await asyncio.wait_for(client.process.wait(), WAIT)
    finally:
        reader.cancel()
    return client.process.returncode, stderr


async def test_exit_during_a_full_reload_writes_nothing_to_the_closed_output(
    workspace: Path,
) -> None:
    """Neovim quits with shutdown + exit at once, while a full reload may still be reporting
    its progress: the server exits 0 and never writes to the output it has closed (pygls
    would log a traceback on stderr, which Neovim shows as an error)."""
    for attempt in range(6):
        code, stderr = await _quit_during_a_full_reload(workspace, attempt)
        assert code == 0, stderr.decode()
        assert b"Traceback" not in stderr and b"Error sending data" not in stderr, stderr.decode()
