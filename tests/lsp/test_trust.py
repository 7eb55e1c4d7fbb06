"""``pi/trust`` over stdio: query, decide, and never overwrite a broken trust.json."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.lsp.harness import project_needing_trust, start_client, wait_until


async def trust(client: LanguageClient, params: dict[str, Any]) -> Any:
    return await client.protocol.send_request_async("pi/trust", params)


def _untrusted(diagnostics: list[types.Diagnostic]) -> bool:
    return any(d.code == "PI203" for d in diagnostics)


async def test_query_reports_what_needs_trust(workspace: Path) -> None:
    ws, system = project_needing_trust(workspace)
    client = await start_client(workspace)
    try:
        result = await trust(client, {"cwd": str(ws)})
        assert result.cwd == os.path.realpath(ws)
        assert result.trusted is False
        assert result.directory is None
        assert result.decision is None
        assert list(result.requires) == [os.path.realpath(system)]
        assert result.storePath == str(workspace / "agent" / "trust.json")
        assert result.rule == "no-ui"
        assert not (workspace / "agent" / "trust.json").exists()  # a query writes nothing
    finally:
        await client.shutdown_session()


async def test_query_of_a_project_that_needs_no_trust(workspace: Path) -> None:
    client = await start_client(workspace)
    try:
        result = await trust(client, {"cwd": (workspace / "ws" / "pkg").as_uri()})
        assert result.trusted is True
        assert list(result.requires) == []
        assert result.rule == "nothing-requires-trust"
    finally:
        await client.shutdown_session()


async def test_trusting_clears_the_diagnostic_and_saves_the_decision(workspace: Path) -> None:
    ws, system = project_needing_trust(workspace)
    store = workspace / "agent" / "trust.json"
    client = await start_client(workspace)
    try:
        await wait_until(client, system, _untrusted)
        result = await trust(client, {"cwd": str(ws), "decision": True})
        assert result.trusted is True
        assert result.directory == os.path.realpath(ws)
        assert result.decision is True
        assert json.loads(store.read_text()) == {os.path.realpath(ws): True}
        await wait_until(client, system, lambda ds: not _untrusted(ds))

        # a subfolder that needs trust too is trusted through its parent's entry
        (ws / "pkg" / ".pi").mkdir()
        (ws / "pkg" / ".pi" / "APPEND_SYSTEM.md").write_text("More.\n")
        below = await trust(client, {"cwd": str(ws / "pkg")})
        assert (below.trusted, below.directory, below.rule) == (
            True,
            os.path.realpath(ws),
            "saved-decision",
        )

        result = await trust(client, {"cwd": str(ws), "decision": False})
        assert (result.trusted, result.decision) == (False, False)
        assert json.loads(store.read_text()) == {os.path.realpath(ws): False}
        await wait_until(client, system, _untrusted)

        result = await trust(client, {"cwd": str(ws), "decision": None})  # forget it
        assert (result.trusted, result.directory, result.decision) == (False, None, None)
        assert json.loads(store.read_text()) == {}
    finally:
        await client.shutdown_session()


async def test_a_broken_store_is_never_overwritten(workspace: Path) -> None:
    ws, _ = project_needing_trust(workspace)
    store = workspace / "agent" / "trust.json"
    broken = b'{\n  "/elsewhere": true,\n  "/other": yes\n}\n'
    store.write_bytes(broken)
    client = await start_client(workspace)
    try:
        with pytest.raises(JsonRpcException) as raised:
            await trust(client, {"cwd": str(ws), "decision": True})
        error = raised.value
        assert error.code == types.LSPErrorCodes.RequestFailed
        assert f"{store}:3:" in error.message
        assert isinstance(error.data, dict)
        assert (error.data["storePath"], error.data["line"]) == (str(store), 3)
        assert store.read_bytes() == broken

        # the trust command behind the code action refuses the same way
        with pytest.raises(JsonRpcException, match=r"trust\.json was not changed"):
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="pi-lsp.trustProject", arguments=[str(ws)])
            )
        assert store.read_bytes() == broken

        # a query still answers, and says what is wrong
        result = await trust(client, {"cwd": str(ws)})
        assert (result.trusted, result.rule) == (False, "store-error")
        assert any(p.startswith(f"{store}:3:") for p in result.problems)
    finally:
        await client.shutdown_session()


async def test_a_decision_must_be_a_boolean_or_null(workspace: Path) -> None:
    ws, _ = project_needing_trust(workspace)
    client = await start_client(workspace)
    try:
        with pytest.raises(JsonRpcException, match="decision must be true, false or null"):
            await trust(client, {"cwd": str(ws), "decision": "yes"})
        assert not (workspace / "agent" / "trust.json").exists()
    finally:
        await client.shutdown_session()
