"""Findings a user can act on, once: what the editor shows for an untrusted skills folder seen
from many working directories, a CLAUDE.md linked to AGENTS.md, a conflict with the global file
and a copied block of sentences — diagnostics, hover, code lens and the fixes' edits."""

from __future__ import annotations

import json
import os
from pathlib import Path

from lsprotocol import types

from tests.lsp.harness import start_client, wait_until
from tests.lsp.test_code_actions import (
    TRUST_COMMAND,
    acknowledged_override_of,
    actions_for,
    apply_workspace_edit,
    diagnostic,
    lacks,
    notify,
    read_code_actions_as_the_spec_says,
    settled,
    write,
)

SKILL = "---\nname: review\ndescription: Review the pull request line by line.\n---\nBody.\n"


async def test_an_untrusted_skills_folder_is_one_finding_with_its_trust_fix(
    workspace: Path,
) -> None:
    ws = workspace / "ws"
    for folder in ("a", "b", "c"):
        write(ws / folder / "AGENTS.md", f"# {folder}\n")
    skill = write(ws / ".agents" / "skills" / "review" / "SKILL.md", SKILL)
    client = await start_client(workspace)
    read_code_actions_as_the_spec_says(client)
    try:
        found = await diagnostic(client, skill, "PI203")
        await settled(client, ws / "c" / "AGENTS.md")
        everywhere = [
            (uri, d) for uri, ds in client.diagnostics.items() for d in ds if d.code == "PI203"
        ]
        assert [uri for uri, _ in everywhere] == [skill.as_uri()]  # once, on the SKILL.md
        assert (ws / ".agents" / "skills").as_uri() not in client.diagnostics
        # the Problems panel asks for the actions of that file and diagnostic
        [action] = await actions_for(client, skill, found)
        assert action.title == f"Trust this project ({os.path.realpath(ws)})"
        assert action.command is not None
        assert action.command.command == TRUST_COMMAND
        assert list(action.command.arguments or ()) == [os.path.realpath(ws)]
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command=action.command.command, arguments=action.command.arguments
            )
        )
        store = json.loads((workspace / "agent" / "trust.json").read_text())
        assert store == {os.path.realpath(ws): True}
        await wait_until(client, skill, lacks("PI203"))
    finally:
        await client.shutdown_session()


async def test_the_trust_fix_names_the_ancestor_folder_it_would_trust(workspace: Path) -> None:
    """A skills folder in ~/code seen from the workspace ~/code/app: trusting it trusts ~/code
    and everything below it, so the fix's title says ~/code."""
    code = workspace / "home" / "code"
    app = code / "app"
    write(app / "AGENTS.md", "# app\n")
    skill = write(code / ".agents" / "skills" / "review" / "SKILL.md", SKILL)
    client = await start_client(workspace, root=app)
    read_code_actions_as_the_spec_says(client)
    try:
        found = await diagnostic(client, skill, "PI203")
        [action] = await actions_for(client, skill, found)
        assert action.title == "Trust this project (~/code)"
        assert action.command is not None
        assert list(action.command.arguments or ()) == [os.path.realpath(code)]
    finally:
        await client.shutdown_session()


async def test_a_claude_md_linked_to_agents_md_is_the_file_pi_reads(workspace: Path) -> None:
    pkg = workspace / "ws" / "pkg"
    os.symlink("AGENTS.md", pkg / "CLAUDE.md")
    claude = pkg / "CLAUDE.md"
    client = await start_client(workspace)
    try:
        document = types.TextDocumentIdentifier(claude.as_uri())
        hover = await client.text_document_hover_async(
            types.HoverParams(document, types.Position(0, 0))
        )
        assert hover is not None
        text = hover.contents.value  # type: ignore[union-attr]
        assert "2. **`pkg/AGENTS.md`** ← this file (`CLAUDE.md` links to it)" in text
        assert "does not read" not in text
        assert "`?`" not in text
        lenses = await client.text_document_code_lens_async(types.CodeLensParams(document))
        assert lenses is not None
        assert lenses[0].command is not None
        assert lenses[0].command.title.startswith("2nd of 2 in the prompt · ")
        assert not [d for d in await settled(client, claude) if d.code == "PI201"]
    finally:
        await client.shutdown_session()


async def test_the_override_fix_names_the_global_file_relative_to_the_edited_one(
    workspace: Path,
) -> None:
    # the agent dir lies outside the home folder: the note used to carry its absolute path
    write(workspace / "agent" / "AGENTS.md", "# Global\n\n- Always use yarn for packages.\n")
    root = workspace / "ws" / "AGENTS.md"
    client = await start_client(workspace)
    try:
        found = await diagnostic(client, root, "PI101")
        [action] = await actions_for(client, root, found)
        assert action.title == "State that this instruction overrides ../agent/AGENTS.md"
        assert action.edit is not None
        notify(client, apply_workspace_edit(action.edit))
        assert root.read_text() == (
            "# Tools\n\n- Use npm to install packages (this overrides `../agent/AGENTS.md`).\n"
        )
        assert str(workspace) not in root.read_text()
        # the warning gives way to an acknowledged override naming the global file
        await wait_until(client, root, acknowledged_override_of("../agent/AGENTS.md"))
    finally:
        await client.shutdown_session()


BLOCK = (
    "- Run the full test suite before every commit.\n"
    "- Keep the changelog up to date with each change.\n"
    "- Write docstrings for every public function.\n"
)


async def test_a_copied_block_is_one_diagnostic_removed_by_one_fix(workspace: Path) -> None:
    ws = workspace / "ws"
    write(ws / "AGENTS.md", "# Tools\n\n- Use npm to install packages.\n" + BLOCK)
    pkg = write(ws / "pkg" / "AGENTS.md", "# Tools\n\n- Ship it.\n\n## Shared\n\n" + BLOCK)
    client = await start_client(workspace)
    try:
        found = await diagnostic(client, pkg, "PI103")
        assert [d.code for d in await settled(client, pkg)].count("PI103") == 1
        assert (found.range.start.line, found.range.end.line) == (6, 8)
        assert found.range.end.character == len(BLOCK.splitlines()[-1])
        [action] = await actions_for(client, pkg, found)
        assert (
            action.title == "Remove this duplicate block of 3 instructions (kept in ../AGENTS.md)"
        )
        assert action.edit is not None
        notify(client, apply_workspace_edit(action.edit))
        assert pkg.read_text() == "# Tools\n\n- Ship it.\n\n## Shared\n\n"
        await wait_until(client, pkg, lacks("PI103"))
    finally:
        await client.shutdown_session()
