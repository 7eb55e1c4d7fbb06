"""The language server over stdio, driven by pytest-lsp as an editor would drive it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.lsp.harness import (
    CLIENTS,
    diagnostics_for,
    next_notification,
    prompt_change_for,
    server_env,
    start_client,
)


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_conflict_appears_without_opening_anything(workspace: Path, client_name: str) -> None:
    client = await start_client(workspace, client_name)
    try:
        pkg = workspace / "ws" / "pkg" / "AGENTS.md"
        [diagnostic] = await diagnostics_for(client, pkg)
        assert diagnostic.code == "PI101"
        assert diagnostic.severity == types.DiagnosticSeverity.Warning
        assert diagnostic.range.start == types.Position(line=2, character=2)
        assert diagnostic.related_information
        assert (
            diagnostic.related_information[0].location.uri
            == (workspace / "ws" / "AGENTS.md").as_uri()
        )
    finally:
        await client.shutdown_session()


async def test_unsaved_edit_clears_and_brings_back_the_warning(workspace: Path) -> None:
    client = await start_client(workspace)
    try:
        pkg = workspace / "ws" / "pkg" / "AGENTS.md"
        await diagnostics_for(client, pkg)
        uri = pkg.as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri, "markdown", 1, pkg.read_text())
            )
        )
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                [types.TextDocumentContentChangeWholeDocument(text="# Tools\n\n- Use npm too.\n")],
            )
        )
        while client.diagnostics.get(uri):
            await next_notification(client, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        assert not client.diagnostics[uri]
        assert pkg.read_text() == "# Tools\n\n- Always use pnpm.\n"  # nothing written
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=3),
                [types.TextDocumentContentChangeWholeDocument(text="- Use yarn only.\n")],
            )
        )
        while not client.diagnostics.get(uri):
            await next_notification(client, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        assert client.diagnostics[uri][0].range.start.line == 0
    finally:
        await client.shutdown_session()


async def test_hover_shows_the_resolved_order(workspace: Path) -> None:
    client = await start_client(workspace)
    try:
        pkg = workspace / "ws" / "pkg" / "AGENTS.md"
        hover = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(pkg.as_uri()), types.Position(0, 0))
        )
        assert hover is not None
        text = hover.contents.value  # type: ignore[union-attr]
        # paths as the reader knows them: relative to the workspace root
        assert text.startswith("**Instruction order for `pkg`**")
        assert "1. `AGENTS.md` — " in text
        assert "2. **`pkg/AGENTS.md`** ← this file" in text
        assert str(workspace) not in text
    finally:
        await client.shutdown_session()


async def test_system_prompt_request(workspace: Path) -> None:
    client = await start_client(workspace)
    try:
        result = await client.protocol.send_request_async(
            "pi/systemPrompt", {"cwd": str(workspace / "ws" / "pkg")}
        )
        assert result.text.endswith(f"Current working directory: {workspace / 'ws' / 'pkg'}")
        kinds = [span.kind for span in result.spans]
        assert kinds.count("context-file") == 2
    finally:
        await client.shutdown_session()


async def test_bad_settings_do_not_fail_initialize(workspace: Path) -> None:
    client = await _raw_client(workspace)
    try:
        result = await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=(workspace / "ws").as_uri(),
                initialization_options={"modelWindow": "huge", "debounceMs": -3},
            )
        )
        assert result.server_info is not None
        assert result.server_info.name == "pi-lsp"
        while not client.log_messages:
            await next_notification(client, types.WINDOW_LOG_MESSAGE)
        messages = [m.message for m in client.log_messages]
        assert any("modelWindow" in m for m in messages)
    finally:
        await client.shutdown_session()


async def test_a_binary_agents_file_does_not_take_the_server_down(workspace: Path) -> None:
    (workspace / "ws" / "pkg" / "AGENTS.md").write_bytes(b"\x00\xff\xfe\x89PNG\r\n")
    client = await start_client(workspace)
    try:
        diagnostics = await diagnostics_for(client, workspace / "ws" / "pkg" / "AGENTS.md")
        assert any(d.code == "PI502" for d in diagnostics)
    finally:
        await client.shutdown_session()


async def test_symbols_code_lens_and_prompt_changed(workspace: Path) -> None:
    client = await start_client(workspace)
    try:
        pkg = workspace / "ws" / "pkg" / "AGENTS.md"
        document = types.TextDocumentIdentifier(pkg.as_uri())
        symbols = await client.text_document_document_symbol_async(
            types.DocumentSymbolParams(document)
        )
        assert [s.name for s in symbols or []] == ["Tools"]  # type: ignore[union-attr]
        lenses = await client.text_document_code_lens_async(types.CodeLensParams(document))
        assert lenses is not None
        assert lenses[0].command is not None
        assert lenses[0].command.title.startswith("2nd of 2 in the prompt · ")
        # the first lint announces every working directory's prompt; an edit announces again
        await diagnostics_for(client, pkg)

        def edit() -> None:
            pkg.write_text("- Use npm.\n")
            client.workspace_did_change_watched_files(
                types.DidChangeWatchedFilesParams(
                    [types.FileEvent(uri=pkg.as_uri(), type=types.FileChangeType.Changed)]
                )
            )

        params = await prompt_change_for(client, pkg, edit)
        assert str(workspace / "ws" / "pkg") in list(params.cwds)
        assert str(workspace / "ws") not in list(params.cwds)  # its prompt did not change
    finally:
        await client.shutdown_session()


async def test_hover_on_a_skill_shows_it_as_the_model_sees_it(workspace: Path) -> None:
    agent_skill = workspace / "agent" / "skills" / "review" / "SKILL.md"
    project_skill = workspace / "ws" / ".agents" / "skills" / "review" / "SKILL.md"
    for path, text in ((agent_skill, "User review."), (project_skill, "Project <review>.")):
        path.parent.mkdir(parents=True)
        path.write_text(f"---\nname: review\ndescription: {text}\n---\nBody\n")
    (workspace / "ws" / ".git").mkdir()  # the .agents/skills walk stops at the git root
    client = await start_client(workspace)
    try:

        async def hover(path: Path) -> str:
            result = await client.text_document_hover_async(
                types.HoverParams(types.TextDocumentIdentifier(path.as_uri()), types.Position(1, 7))
            )
            assert result is not None
            return result.contents.value  # type: ignore[union-attr]

        # untrusted project: its .agents/skills do not load, the user skill is the one
        shown = await hover(agent_skill)
        assert "<description>User review.</description>" in shown
        assert "Project" not in shown
    finally:
        await client.shutdown_session()


async def _raw_client(tmp: Path) -> LanguageClient:
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "pi_lsp", "serve"], server_env=server_env(tmp)
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    return client


async def test_hover_on_a_parent_file_names_the_folders_below_that_read_it(
    workspace: Path,
) -> None:
    client = await start_client(workspace)
    try:
        await diagnostics_for(client, workspace / "ws" / "pkg" / "AGENTS.md")
        root_file = workspace / "ws" / "AGENTS.md"
        hover = await client.text_document_hover_async(
            types.HoverParams(
                types.TextDocumentIdentifier(root_file.as_uri()), types.Position(0, 0)
            )
        )
        assert hover is not None
        text = hover.contents.value  # type: ignore[union-attr]
        assert text.startswith("**Instruction order for `.`**")
        assert "1. **`AGENTS.md`** ← this file" in text
        assert "- `pkg` (1st of 2)" in text
    finally:
        await client.shutdown_session()
