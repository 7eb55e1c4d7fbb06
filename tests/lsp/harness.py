"""Driving `pi-lsp serve` over stdio from pytest-lsp, as VS Code or Neovim would."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from pi_lsp.agent.providers.catalogue import builtin_providers

WAIT = 20.0  # seconds; pytest-lsp's own waits never time out
CLIENTS = ("visual-studio-code", "neovim")


def server_env(tmp: Path) -> dict[str, str]:
    """The environment of a server whose home and agent dir live under ``tmp`` (no provider
    keys of the developer's own: a test gives the keys it means)."""
    keys = {name for p in builtin_providers().values() for name in p.env_keys}
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_") and k not in keys}
    env.update(HOME=str(tmp / "home"), PI_CODING_AGENT_DIR=str(tmp / "agent"))
    return env


async def start_client(
    tmp: Path,
    client_name: str = "visual-studio-code",
    *,
    root: Path | None = None,
    options: dict[str, Any] | None = None,
    start: bool = True,
    serve_args: tuple[str, ...] = (),
    watches: bool = False,
) -> LanguageClient:
    """A started, initialized client on ``tmp/ws`` (or ``root``) with ``tmp/agent`` as agent dir.

    With ``start=False`` the client is connected but not initialized (to set it up first);
    ``serve_args`` are added to ``pi-lsp serve`` (``--log-file``). With ``watches=True`` the
    client takes the server's file-watcher registration (pytest-lsp refuses it otherwise), so
    the server does not watch the workspace: only the events the test reports reach it.
    """
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "pi_lsp", "serve", *serve_args],
        server_env=server_env(tmp),
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    if watches:

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def take_registration(params: types.RegistrationParams) -> None:
            return None

    if not start:
        return client
    init = {"agentDir": str(tmp / "agent"), "debounceMs": 5}
    init.update(options or {})
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(client_name),
            root_uri=(root or tmp / "ws").as_uri(),
            initialization_options=init,
        )
    )
    return client


def project_needing_trust(tmp: Path) -> tuple[Path, Path]:
    """``tmp/ws`` given a ``.pi/SYSTEM.md``, which makes it need trust: (ws, that file)."""
    ws = tmp / "ws"
    system = ws / ".pi" / "SYSTEM.md"
    system.parent.mkdir()
    system.write_text("You are the project's agent.\n")
    return ws, system


async def next_notification(client: LanguageClient, method: str) -> Any:
    """Wait for one notification, but never forever."""
    return await asyncio.wait_for(client.wait_for_notification(method), WAIT)


async def diagnostics_for(client: LanguageClient, path: Path) -> list[types.Diagnostic]:
    """The diagnostics of ``path`` once the server has published some for it."""
    uri = path.as_uri()
    while uri not in client.diagnostics:
        await next_notification(client, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[uri])


async def wait_until(
    client: LanguageClient, path: Path, predicate: Any, method: str = ""
) -> list[types.Diagnostic]:
    """Wait for publishes until ``predicate(diagnostics of path)`` holds; return them."""
    uri = path.as_uri()
    while True:
        current = list(client.diagnostics.get(uri, []))
        if uri in client.diagnostics and predicate(current):
            return current
        await next_notification(client, method or types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


def open_document(client: LanguageClient, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri, "markdown", 1, path.read_text() if text is None else text)
        )
    )
    return uri


def replace_document(client: LanguageClient, path: Path, text: str, version: int) -> None:
    """An unsaved whole-document edit of an open file."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
            [types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def prompt_change_for(client: LanguageClient, path: Path, trigger: Any) -> Any:
    """Call ``trigger()`` and return the ``pi/systemPromptChanged`` whose reason names ``path``.

    Earlier announcements (the first load's) may still be on their way: they are passed over.
    """
    while True:
        waiting = asyncio.ensure_future(client.wait_for_notification("pi/systemPromptChanged"))
        await asyncio.sleep(0)
        if trigger is not None:
            trigger()
            trigger = None
        params = await asyncio.wait_for(waiting, WAIT)
        if params.reason and str(path) in list(params.reason):
            return params
