"""Hover on a skill's name line and on ``/skill:name``: the entry, collisions, trust."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.harness import CLIENTS, open_document, start_client


def write_skill(path: Path, name: str, description: str, extra: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\n\nBody\n")
    return path


def trust(workspace: Path) -> None:
    store = workspace / "agent" / "trust.json"
    store.write_text(json.dumps({os.path.realpath(workspace / "ws"): True}))


def real(path: Path) -> str:
    return os.path.realpath(path)


async def hover(client: LanguageClient, path: Path, line: int, character: int) -> str | None:
    result = await client.text_document_hover_async(
        types.HoverParams(
            types.TextDocumentIdentifier(path.as_uri()), types.Position(line, character)
        )
    )
    if result is None:
        return None
    assert isinstance(result.contents, types.MarkupContent)
    return result.contents.value


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_winner_and_loser_of_a_name(workspace: Path, client_name: str) -> None:
    trust(workspace)
    project = write_skill(
        workspace / "ws" / ".pi" / "skills" / "review" / "SKILL.md", "review", "Project review."
    )
    user = write_skill(
        workspace / "agent" / "skills" / "review" / "SKILL.md", "review", "User review."
    )
    client = await start_client(workspace, client_name)
    try:
        loser = await hover(client, user, 1, 7)
        assert loser is not None
        assert f"the skill of the same name in `{real(project)}` wins" in loser
        assert "<description>Project review.</description>" in loser  # what is used instead

        winner = await hover(client, project, 1, 7)
        assert winner is not None
        assert "<description>Project review.</description>" in winner
        assert f"Wins over these skills of the same name (Pi ignores them):\n- `{real(user)}`" in (
            winner
        )
    finally:
        await client.shutdown_session()


async def test_a_project_skill_of_an_untrusted_project(workspace: Path) -> None:
    (workspace / "ws" / ".git").mkdir()
    project = write_skill(
        workspace / "ws" / ".agents" / "skills" / "deploy" / "SKILL.md", "deploy", "Deploys it."
    )
    user = write_skill(
        workspace / "agent" / "skills" / "notes" / "SKILL.md", "notes", "Takes notes for you."
    )
    client = await start_client(workspace)
    try:
        shown = await hover(client, project, 1, 0)
        assert shown is not None
        assert shown.startswith(
            f"Pi does not load this skill: the project `{real(workspace / 'ws')}` is not trusted ("
        )
        assert "Trust the project to load them." in shown

        other = await hover(client, user, 1, 0)  # a user skill: loaded, with a note
        assert other is not None
        assert "<name>notes</name>" in other
        assert "The skills of the project" in other
        assert "are not loaded: it is not trusted" in other
    finally:
        await client.shutdown_session()


async def test_only_the_name_line_and_hidden_skills(workspace: Path) -> None:
    hidden = write_skill(
        workspace / "agent" / "skills" / "secret" / "SKILL.md",
        "secret",
        "Only when asked for.",
        "disable-model-invocation: true\n",
    )
    client = await start_client(workspace)
    try:
        shown = await hover(client, hidden, 1, 3)
        assert shown is not None
        assert "Hidden from the model (`disable-model-invocation: true`)" in shown
        assert await hover(client, hidden, 6, 1) is None  # the body
        assert await hover(client, hidden, 2, 1) is None  # the description line
    finally:
        await client.shutdown_session()


async def test_a_skill_pi_does_not_load(workspace: Path) -> None:
    broken = workspace / "agent" / "skills" / "empty" / "SKILL.md"
    broken.parent.mkdir(parents=True)
    broken.write_text("---\nname: empty\n---\nBody\n")
    stray = write_skill(workspace / "ws" / "tools" / "x" / "SKILL.md", "x", "Somewhere else.")
    client = await start_client(workspace)
    try:
        shown = await hover(client, broken, 1, 0)
        assert shown is not None
        assert shown.startswith("Pi does not load this skill:")
        assert "description" in shown
        nowhere = await hover(client, stray, 1, 0)
        assert nowhere is not None
        assert "not in a folder Pi reads skills from" in nowhere
    finally:
        await client.shutdown_session()


async def test_skill_command_in_a_context_file(workspace: Path) -> None:
    skill = write_skill(
        workspace / "agent" / "skills" / "review" / "SKILL.md", "review", "Reviews changes."
    )
    agents = workspace / "ws" / "AGENTS.md"
    text = "# Tools\n\n- 漢字 Run /skill:review before merging.\n"
    agents.write_text(text)
    client = await start_client(workspace)
    try:
        open_document(client, agents)
        result = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(agents.as_uri()), types.Position(2, 12))
        )
        assert result is not None
        assert isinstance(result.contents, types.MarkupContent)
        assert result.contents.value.startswith(f"`/skill:review` loads `{real(skill)}`.")
        assert result.range == types.Range(types.Position(2, 9), types.Position(2, 22))
        missing = text.replace("review", "nothing")
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=agents.as_uri(), version=2),
                [types.TextDocumentContentChangeWholeDocument(text=missing)],
            )
        )
        shown = await hover(client, agents, 2, 12)
        assert shown is not None
        assert shown.startswith("No skill named `nothing` is loaded")
        # elsewhere in the file: the instruction order, as before
        order = await hover(client, agents, 0, 0)
        assert order is not None
        assert order.startswith("**Instruction order for ")
    finally:
        await client.shutdown_session()
