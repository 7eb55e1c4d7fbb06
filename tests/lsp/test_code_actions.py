"""Code actions end to end: diagnostic from the server, action for it, edit applied, gone.

Each test does what an editor does: it takes a published diagnostic, asks for code actions
with it, applies the returned ``WorkspaceEdit`` to the files (``apply_workspace_edit`` below
plays the editor), tells the server (``didChangeWatchedFiles`` or ``didChange``) and waits for
the diagnostic to go. VS Code's capabilities bring ``documentChanges`` and file renames;
Neovim's (as pytest-lsp describes them) have neither, so its edits come as ``changes``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Union

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from pi_lsp.lint.conflicts import INSTRUCTION_BUDGET
from tests.lsp.harness import (
    CLIENTS,
    open_document,
    replace_document,
    server_env,
    start_client,
    wait_until,
)

TRUST_COMMAND = "pi-lsp.trustProject"


# --- the editor's side: applying a WorkspaceEdit ---------------------------------------------


def _offset(text: str, position: types.Position) -> int:
    """The string offset of an LSP position (UTF-16 columns) in ``text``."""
    lines = text.split("\n")
    start = sum(len(line) + 1 for line in lines[: position.line])
    line = lines[position.line] if position.line < len(lines) else ""
    units = 0
    for index, char in enumerate(line):
        if units >= position.character:
            return start + index
        units += 2 if ord(char) > 0xFFFF else 1
    return start + len(line)


def apply_text_edits(text: str, edits: list[types.TextEdit]) -> str:
    spans = sorted(
        ((_offset(text, e.range.start), _offset(text, e.range.end), e.new_text) for e in edits),
        reverse=True,
    )
    for start, end, new_text in spans:
        text = text[:start] + new_text + text[end:]
    return text


def _path(uri: str) -> Path:
    assert uri.startswith("file://")
    return Path(uri[len("file://") :])


def apply_workspace_edit(edit: types.WorkspaceEdit) -> list[types.FileEvent]:
    """Apply ``edit`` to the files on disk, in order; return the file events to report."""
    events: list[types.FileEvent] = []

    def changed(uri: str, kind: types.FileChangeType) -> None:
        events.append(types.FileEvent(uri=uri, type=kind))

    for uri, edits in (edit.changes or {}).items():
        path = _path(uri)
        path.write_bytes(apply_text_edits(path.read_bytes().decode(), list(edits)).encode())
        changed(uri, types.FileChangeType.Changed)
    for change in edit.document_changes or ():
        if isinstance(change, types.TextDocumentEdit):
            path = _path(change.text_document.uri)
            text = apply_text_edits(path.read_bytes().decode(), list(change.edits))  # type: ignore[arg-type]
            path.write_bytes(text.encode())
            changed(change.text_document.uri, types.FileChangeType.Changed)
        elif isinstance(change, types.RenameFile):
            old, new = _path(change.old_uri), _path(change.new_uri)
            assert not new.exists()
            moved = (
                [p.relative_to(old) for p in old.rglob("*") if p.is_file()] if old.is_dir() else []
            )
            old.rename(new)
            for relative in moved or [Path()]:
                changed((old / relative).as_uri(), types.FileChangeType.Deleted)
                changed((new / relative).as_uri(), types.FileChangeType.Created)
        else:
            raise AssertionError(f"unexpected change {change!r}")
    return events


def notify(client: LanguageClient, events: list[types.FileEvent]) -> None:
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(events))


def read_code_actions_as_the_spec_says(client: LanguageClient) -> None:
    """lsprotocol's client-side reading of ``(Command | CodeAction)[]`` takes every object with a
    ``command`` key for a ``Command``, even a ``CodeAction`` whose ``command`` is an object. Read
    them as the spec says: a ``Command`` is the one whose ``command`` is a string."""
    converter = client.protocol._converter

    def hook(value: Any, _: type) -> types.Command | types.CodeAction:
        if isinstance(value.get("command"), str):
            return converter.structure(value, types.Command)
        return converter.structure(value, types.CodeAction)

    converter.register_structure_hook(Union[types.Command, types.CodeAction], hook)  # noqa: UP007


async def settled(client: LanguageClient, path: Path) -> list[types.Diagnostic]:
    """The diagnostics of ``path`` once every notification sent before now has arrived."""
    await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(path.as_uri()), types.Position(0, 0))
    )
    return list(client.diagnostics.get(path.as_uri(), []))


async def actions_for(
    client: LanguageClient, path: Path, diagnostic: types.Diagnostic
) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(path.as_uri()),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    assert result is not None
    assert all(isinstance(a, types.CodeAction) for a in result), result
    return [a for a in result if isinstance(a, types.CodeAction)]


def has(code: str) -> Callable[[list[types.Diagnostic]], bool]:
    return lambda diagnostics: any(d.code == code for d in diagnostics)


def lacks(code: str) -> Callable[[list[types.Diagnostic]], bool]:
    return lambda diagnostics: not any(d.code == code for d in diagnostics)


def acknowledged_override_of(other: str) -> Callable[[list[types.Diagnostic]], bool]:
    """The conflict warning is gone and an acknowledged override (PI106, information) that
    names the other file is there instead."""
    return lambda diagnostics: (
        not any(d.code in ("PI101", "PI102") for d in diagnostics)
        and any(
            d.code == "PI106"
            and d.severity == types.DiagnosticSeverity.Information
            and other in d.message
            for d in diagnostics
        )
    )


async def diagnostic(client: LanguageClient, path: Path, code: str) -> types.Diagnostic:
    found = await wait_until(client, path, has(code))
    return next(d for d in found if d.code == code)


def trust(workspace: Path, folder: Path) -> None:
    store = workspace / "agent" / "trust.json"
    store.write_text(json.dumps({os.path.realpath(folder): True}))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    return path


# --- the server advertises what it offers ----------------------------------------------------


async def test_capabilities_name_the_quick_fixes_and_the_trust_command(workspace: Path) -> None:
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "pi_lsp", "serve"], server_env=server_env(workspace)
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    try:
        result = await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=(workspace / "ws").as_uri(),
                initialization_options={"agentDir": str(workspace / "agent")},
            )
        )
        provider = result.capabilities.code_action_provider
        assert isinstance(provider, types.CodeActionOptions)
        assert list(provider.code_action_kinds or ()) == [types.CodeActionKind.QuickFix]
        commands = result.capabilities.execute_command_provider
        assert commands is not None
        assert TRUST_COMMAND in commands.commands
    finally:
        await client.shutdown_session()


# --- skill-name-collision ----------------------------------------------------------------------


def _colliding_skills(workspace: Path) -> tuple[Path, Path]:
    """A project skill ``review`` in .pi/skills (wins) and one in .agents/skills (loses)."""
    ws = workspace / "ws"
    (ws / ".git").mkdir()
    trust(workspace, ws)
    winner = write(
        ws / ".pi" / "skills" / "review" / "SKILL.md",
        "---\nname: review\ndescription: Reviews a change before it is merged.\n---\nBody\n",
    )
    loser = write(
        ws / ".agents" / "skills" / "review" / "SKILL.md",
        "---\n# the team's review checklist\nname: review # keep short\n"
        "description: Reviews pull requests against the checklist.\n---\nBody\n",
    )
    return winner, loser


async def test_collision_renames_the_skill_and_its_folder_in_vscode(workspace: Path) -> None:
    _, loser = _colliding_skills(workspace)
    client = await start_client(workspace, "visual-studio-code")
    try:
        found = await diagnostic(client, loser, "PI308")
        [action] = await actions_for(client, loser, found)
        assert action.title == 'Rename the skill to "review-2", and its folder'
        assert action.kind == types.CodeActionKind.QuickFix
        assert action.is_preferred
        assert list(action.diagnostics or ()) == [found]
        assert action.edit is not None
        assert action.edit.changes is None
        edit, rename = action.edit.document_changes or []
        assert isinstance(edit, types.TextDocumentEdit)
        assert edit.text_document.version is None  # not open in the editor
        assert isinstance(rename, types.RenameFile)
        assert rename.old_uri == loser.parent.as_uri()
        assert rename.new_uri == (loser.parent.parent / "review-2").as_uri()

        notify(client, apply_workspace_edit(action.edit))
        renamed = loser.parent.parent / "review-2" / "SKILL.md"
        assert renamed.read_text().splitlines()[2] == "name: review-2 # keep short"
        await wait_until(client, loser, lacks("PI308"))
        now = await settled(client, renamed)
        assert not [d for d in now if d.code in ("PI308", "PI320")]
    finally:
        await client.shutdown_session()


async def test_collision_renames_only_the_name_in_neovim(workspace: Path) -> None:
    _, loser = _colliding_skills(workspace)
    client = await start_client(workspace, "neovim")
    try:
        found = await diagnostic(client, loser, "PI308")
        [action] = await actions_for(client, loser, found)
        assert action.title == 'Rename the skill to "review-2" (the folder keeps the name "review")'
        assert action.edit is not None
        assert action.edit.document_changes is None
        assert list(action.edit.changes or {}) == [loser.as_uri()]

        notify(client, apply_workspace_edit(action.edit))
        after = await wait_until(client, loser, lacks("PI308"))
        # the name no longer matches the folder: the spec rule says so, as information
        [mismatch] = [d for d in after if d.code == "PI320"]
        assert mismatch.severity == types.DiagnosticSeverity.Information
    finally:
        await client.shutdown_session()


async def test_collision_prefers_the_folder_name_when_it_is_free(workspace: Path) -> None:
    _, loser = _colliding_skills(workspace)
    moved = loser.parent.parent / "checklist" / "SKILL.md"
    moved.parent.mkdir()
    loser.rename(moved)
    loser.parent.rmdir()
    client = await start_client(workspace, "visual-studio-code")
    try:
        found = await diagnostic(client, moved, "PI308")
        [action] = await actions_for(client, moved, found)
        assert action.title == 'Rename the skill to "checklist", its folder\'s name'
        assert action.edit is not None
        notify(client, apply_workspace_edit(action.edit))
        await wait_until(client, moved, lambda ds: lacks("PI308")(ds) and lacks("PI320")(ds))
    finally:
        await client.shutdown_session()


# --- skill-description-required ------------------------------------------------------------------


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_missing_description_is_drafted_from_the_body(
    workspace: Path, client_name: str
) -> None:
    skill = write(
        workspace / "agent" / "skills" / "deploy" / "SKILL.md",
        "---\r\nname: deploy\r\n# owner: ops\r\n---\r\n# Deploy\r\n\r\n"
        "Ships the **app** to production with `release.sh`.\r\n",
    )
    client = await start_client(workspace, client_name)
    try:
        found = await diagnostic(client, skill, "PI301")
        open_document(client, skill, skill.read_bytes().decode())
        [action] = await actions_for(client, skill, found)
        assert action.title == 'Add a description: "Ships the app to production with…"'
        assert action.edit is not None
        if client_name == "visual-studio-code":
            [edit] = action.edit.document_changes or []
            assert isinstance(edit, types.TextDocumentEdit)
            assert edit.text_document.version == 1  # the open buffer's version
            edits = list(edit.edits)
        else:
            edits = list((action.edit.changes or {})[skill.as_uri()])
        new_text = apply_text_edits(skill.read_bytes().decode(), edits)  # type: ignore[arg-type]
        assert new_text.split("\r\n")[2] == (
            'description: "Ships the app to production with release.sh."'
        )
        replace_document(client, skill, new_text, version=2)  # unsaved, as the editor leaves it
        await wait_until(client, skill, lacks("PI301"))
    finally:
        await client.shutdown_session()


# --- duplicate-instruction ---------------------------------------------------------------------


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_duplicate_instruction_line_is_removed(workspace: Path, client_name: str) -> None:
    ws = workspace / "ws"
    write(ws / "AGENTS.md", "# Tools\n\n- Run the tests before committing.\n")
    pkg = write(
        ws / "pkg" / "AGENTS.md", "# Tools\n\n- Run the tests before committing.\n- Ship it.\n"
    )
    client = await start_client(workspace, client_name)
    try:
        found = await diagnostic(client, pkg, "PI103")
        [action] = await actions_for(client, pkg, found)
        assert action.title == "Remove this duplicate instruction (kept in ../AGENTS.md)"
        assert action.edit is not None
        notify(client, apply_workspace_edit(action.edit))
        assert pkg.read_text() == "# Tools\n\n- Ship it.\n"
        await wait_until(client, pkg, lacks("PI103"))
    finally:
        await client.shutdown_session()


# --- conflicting-instructions ------------------------------------------------------------------


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_conflict_is_marked_as_an_override(workspace: Path, client_name: str) -> None:
    pkg = workspace / "ws" / "pkg" / "AGENTS.md"
    client = await start_client(workspace, client_name)
    try:
        found = await diagnostic(client, pkg, "PI101")
        assert found.severity == types.DiagnosticSeverity.Warning
        [action] = await actions_for(client, pkg, found)
        assert action.title == "State that this instruction overrides ../AGENTS.md"
        assert action.edit is not None
        notify(client, apply_workspace_edit(action.edit))
        assert pkg.read_text() == "# Tools\n\n- Always use pnpm (this overrides `../AGENTS.md`).\n"
        # an intended override stays visible, under its own rule, as information
        found = await wait_until(client, pkg, acknowledged_override_of("../AGENTS.md"))
        [note] = [d for d in found if d.code == "PI106"]
        assert "\u201cAlways use pnpm (this overrides `../AGENTS.md`).\u201d" in note.message
        assert note.related_information is not None
        assert note.related_information[0].location.uri.endswith("/ws/AGENTS.md")
        # already explicit: nothing left to fix
        assert await actions_for(client, pkg, note) == []
    finally:
        await client.shutdown_session()


async def test_an_acknowledged_override_is_published_as_its_own_rule(workspace: Path) -> None:
    pkg = write(
        workspace / "ws" / "pkg" / "AGENTS.md",
        "# Tools\n\n## Overrides\n\n- Unlike the root AGENTS.md, always use pnpm.\n",
    )
    client = await start_client(workspace)
    try:
        found = await wait_until(client, pkg, acknowledged_override_of("../AGENTS.md"))
        [note] = found
        assert note.code == "PI106"
        assert note.severity == types.DiagnosticSeverity.Information
        assert "\u201cUse npm to install packages.\u201d" in note.message
        # the user takes the acknowledgment back: the warning returns
        open_document(client, pkg, "# Tools\n\n- Always use pnpm.\n")
        conflict = await diagnostic(client, pkg, "PI101")
        assert conflict.severity == types.DiagnosticSeverity.Warning
    finally:
        await client.shutdown_session()


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_override_note_lands_after_an_astral_character(
    workspace: Path, client_name: str
) -> None:
    """Columns are UTF-16 on the wire, whatever the client offers first: 📦 counts two."""
    pkg = write(workspace / "ws" / "pkg" / "AGENTS.md", "# Tools\n\n- Always use pnpm 📦.\n")
    client = await start_client(workspace, client_name)
    try:
        found = await diagnostic(client, pkg, "PI101")
        assert found.range.end.character == 21  # "- Always use pnpm 📦." in UTF-16 units
        [action] = await actions_for(client, pkg, found)
        assert action.edit is not None
        if action.edit.document_changes:  # VS Code
            [edit] = action.edit.document_changes
            assert isinstance(edit, types.TextDocumentEdit)
            [text_edit] = edit.edits
        else:  # Neovim 0.7 takes plain changes
            [[text_edit]] = (action.edit.changes or {}).values()
        assert text_edit.range.start == types.Position(line=2, character=20)
        notify(client, apply_workspace_edit(action.edit))
        assert "pnpm 📦 (this overrides `../AGENTS.md`).\n" in pkg.read_text()
        await wait_until(
            client,
            pkg,
            lambda ds: (
                all(d.severity == types.DiagnosticSeverity.Information for d in ds)
                and acknowledged_override_of("../AGENTS.md")(ds)
            ),
        )
    finally:
        await client.shutdown_session()


async def test_conflict_in_one_file_offers_both_fixes(workspace: Path) -> None:
    agents = write(
        workspace / "ws" / "AGENTS.md",
        "# Style\n\n- Indent with tabs.\n- Keep functions short.\n"
        "- Use 4 spaces for indentation.\n",
    )
    client = await start_client(workspace, "visual-studio-code")
    try:
        found = await diagnostic(client, agents, "PI102")
        actions = await actions_for(client, agents, found)
        assert [a.title for a in actions] == [
            "State that this instruction overrides line 3",
            "Remove the earlier instruction on line 3",
        ]
        assert actions[1].edit is not None
        notify(client, apply_workspace_edit(actions[1].edit))
        assert agents.read_text() == (
            "# Style\n\n- Keep functions short.\n- Use 4 spaces for indentation.\n"
        )
        await wait_until(client, agents, lacks("PI102"))
    finally:
        await client.shutdown_session()


# --- untrusted-project-resource ----------------------------------------------------------------


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_trust_this_project_runs_the_trust_command(workspace: Path, client_name: str) -> None:
    ws = workspace / "ws"
    system = write(ws / ".pi" / "SYSTEM.md", "You are the project's agent.\n")
    client = await start_client(workspace, client_name)
    read_code_actions_as_the_spec_says(client)
    try:
        found = await diagnostic(client, system, "PI203")
        [action] = await actions_for(client, system, found)
        assert action.title == f"Trust this project ({os.path.realpath(ws)})"
        assert action.edit is None
        assert not action.is_preferred  # trusting is a decision, never an automatic fix
        command = action.command
        assert command is not None
        assert command.command == TRUST_COMMAND
        assert list(command.arguments or ()) == [os.path.realpath(ws)]
        result = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command.command, arguments=command.arguments)
        )
        assert result is not None
        assert result["trusted"] is True
        store = json.loads((workspace / "agent" / "trust.json").read_text())
        assert store == {os.path.realpath(ws): True}
        await wait_until(client, system, lacks("PI203"))
    finally:
        await client.shutdown_session()


async def test_trust_command_without_a_folder_is_refused(workspace: Path) -> None:
    client = await start_client(workspace)
    try:
        with pytest.raises(Exception, match="takes one argument"):
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=TRUST_COMMAND, arguments=[])
            )
        assert not (workspace / "agent" / "trust.json").exists()
    finally:
        await client.shutdown_session()


async def test_stale_diagnostic_gets_no_action(workspace: Path) -> None:
    """The file changed since the diagnostic was published: no edit at the old place."""
    pkg = workspace / "ws" / "pkg" / "AGENTS.md"
    client = await start_client(workspace)
    try:
        found = await diagnostic(client, pkg, "PI101")
        open_document(client, pkg, "# Tools\n\nNothing to see.\n")
        assert await actions_for(client, pkg, found) == []
    finally:
        await client.shutdown_session()


async def test_a_file_past_the_size_budget_gets_fixes_only_where_the_lint_reads(
    workspace: Path,
) -> None:
    """The quick fixes read a file as the lint does, up to the size budget: a fix in the part
    read is offered, and a diagnostic placed past the budget (the lint never reports one
    there) gets no action, rather than the whole file being read in the request."""
    head = (
        "# Style\n\n- Indent with tabs.\n- Keep functions short.\n- Use 4 spaces for indentation.\n"
    )
    filler = "```\n" + "x = 1\n" * (INSTRUCTION_BUDGET // 6) + "```\n"
    agents = write(workspace / "ws" / "AGENTS.md", head + filler + "\n- Indent with tabs.\n")
    tail_line = (head + filler).count("\n") + 1
    client = await start_client(workspace, "visual-studio-code")
    try:
        found = await wait_until(client, agents, has("PI104"))
        [conflict] = [d for d in found if d.code == "PI102"]
        assert conflict.range.start.line == 4
        actions = await actions_for(client, agents, conflict)
        assert [a.title for a in actions] == [
            "State that this instruction overrides line 3",
            "Remove the earlier instruction on line 3",
        ]
        past_budget = types.Diagnostic(
            range=types.Range(types.Position(tail_line, 2), types.Position(tail_line, 19)),
            message=conflict.message,
            severity=conflict.severity,
            code=conflict.code,
            source=conflict.source,
            related_information=conflict.related_information,
            data=conflict.data,
        )
        assert agents.read_text().split("\n")[tail_line][2:19] == "Indent with tabs."
        assert await actions_for(client, agents, past_budget) == []
    finally:
        await client.shutdown_session()
