"""Document links in context files and completion in skill frontmatter, over stdio."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from pi_lsp.lint.checks import KNOWN_SKILL_FIELDS
from pi_lsp.server.features.completion import FIELD_DOCS
from tests.lsp.harness import CLIENTS, open_document, start_client

AGENTS = (
    "# Map\n"
    "\n"
    "Read [the guide](docs/guide.md) and `src/app.py`; `src/gone.py` and "
    "[web](https://x.io/src/app.py) are no files.\n"
    "🎉 漢字 see src/app.py:3 😀 [g](docs/guide.md)\n"
)


def make_project(workspace: Path) -> Path:
    ws = workspace / "ws"
    (ws / "docs").mkdir()
    (ws / "src").mkdir()
    (ws / "docs" / "guide.md").write_text("# Guide\n")
    (ws / "src" / "app.py").write_text("print()\n")
    agents = ws / "AGENTS.md"
    agents.write_text(AGENTS)
    return agents


def tooltip(client: LanguageClient, text: str) -> str:
    """``text`` if the client shows tooltips of links (VS Code), else nothing (Neovim)."""
    links = client.capabilities.text_document.document_link if client.capabilities else None
    supported = bool(links and links.tooltip_support) if client.capabilities else False
    return text if supported else ""


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


async def links_of(client: LanguageClient, path: Path) -> list[tuple[int, int, int, str, str]]:
    result = await client.text_document_document_link_async(
        types.DocumentLinkParams(types.TextDocumentIdentifier(path.as_uri()))
    )
    return [
        (
            link.range.start.line,
            link.range.start.character,
            link.range.end.character,
            link.target or "",
            link.tooltip or "",
        )
        for link in result or []
    ]


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_links_to_existing_files_only(workspace: Path, client_name: str) -> None:
    agents = make_project(workspace)
    ws = workspace / "ws"
    client = await start_client(workspace, client_name)
    try:
        open_document(client, agents)
        found = await links_of(client, agents)
        ascii_line = [link for link in found if link[0] == 2]
        assert ascii_line == [
            (2, 17, 30, (ws / "docs" / "guide.md").as_uri(), tooltip(client, "Open docs/guide.md")),
            (2, 37, 47, (ws / "src" / "app.py").as_uri(), tooltip(client, "Open src/app.py")),
        ]
        assert {link[0] for link in found} == {2, 3}  # nothing for the heading
    finally:
        await client.shutdown_session()


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_link_ranges_after_emoji_and_cjk(workspace: Path, client_name: str) -> None:
    agents = make_project(workspace)
    ws = workspace / "ws"
    client = await start_client(workspace, client_name)
    try:
        open_document(client, agents)
        found = [link for link in await links_of(client, agents) if link[0] == 3]
        line = AGENTS.split("\n")[3]
        encoding = "utf-16"  # the server always says UTF-16, whatever the client offers first

        def span(written: str) -> tuple[int, int]:
            start = line.index(written)
            return units(line[:start], encoding), units(line[: start + len(written)], encoding)

        app, guide = span("src/app.py:3"), span("docs/guide.md")
        assert (app, guide) == ((10, 22), (30, 43))  # 🎉 and 😀 take two units each
        assert found == [
            (
                3,
                *app,
                (ws / "src" / "app.py").as_uri() + "#L3",
                tooltip(client, "Open src/app.py:3"),
            ),
            (3, *guide, (ws / "docs" / "guide.md").as_uri(), tooltip(client, "Open docs/guide.md")),
        ]
    finally:
        await client.shutdown_session()


async def test_unsaved_text_and_folders(workspace: Path) -> None:
    agents = make_project(workspace)
    client = await start_client(workspace)
    try:
        open_document(client, agents, "Folders: `docs/`, [src](./src).\n")
        found = await links_of(client, agents)
        assert [(f[1], f[2], f[4]) for f in found] == [
            (10, 15, "Open folder docs/"),
            (24, 29, "Open folder ./src"),
        ]
    finally:
        await client.shutdown_session()


SKILL = "---\nname: review\ndescription: Reviews a change before it is merged.\n\n---\n\nBody\n"


def skill_file(workspace: Path) -> Path:
    path = workspace / "ws" / ".pi" / "skills" / "review" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(SKILL)
    return path


async def complete(
    client: LanguageClient, path: Path, line: int, character: int
) -> list[types.CompletionItem]:
    result = await client.text_document_completion_async(
        types.CompletionParams(
            types.TextDocumentIdentifier(path.as_uri()), types.Position(line, character)
        )
    )
    if result is None:
        return []
    return result.items if isinstance(result, types.CompletionList) else list(result)


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_frontmatter_keys_minus_present_ones(workspace: Path, client_name: str) -> None:
    skill = skill_file(workspace)
    client = await start_client(workspace, client_name)
    try:
        open_document(client, skill)
        items = await complete(client, skill, 3, 0)
        labels = [item.label for item in items]
        assert set(labels) == KNOWN_SKILL_FIELDS - {"name", "description"}
        assert labels[0] == "disable-model-invocation"  # Pi's own field first
        for item in items:
            assert isinstance(item.documentation, types.MarkupContent)
            assert item.documentation.value
        edit = items[0].text_edit
        assert isinstance(edit, types.TextEdit)
        assert edit.new_text == "disable-model-invocation: "
        assert edit.range == types.Range(types.Position(3, 0), types.Position(3, 0))
        metadata = next(item for item in items if item.label == "metadata")
        assert isinstance(metadata.text_edit, types.TextEdit)
        assert metadata.text_edit.new_text == "metadata:\n  "
    finally:
        await client.shutdown_session()


async def test_no_completion_outside_the_frontmatter(workspace: Path) -> None:
    skill = skill_file(workspace)
    agents = make_project(workspace)
    client = await start_client(workspace)
    try:
        open_document(client, skill)
        for line in (0, 4, 5, 6):  # the --- lines, the blank line after, the body
            assert await complete(client, skill, line, 0) == []
        assert await complete(client, skill, 2, 16) == []  # inside the description's value
        open_document(client, agents, "---\ndescription: x\n\n---\n")
        assert await complete(client, agents, 2, 0) == []  # not a skill file
    finally:
        await client.shutdown_session()


async def test_a_typed_prefix_is_replaced(workspace: Path) -> None:
    skill = skill_file(workspace)
    client = await start_client(workspace)
    try:
        open_document(client, skill, SKILL.replace("\n\n---", "\nlic\n---"))
        items = await complete(client, skill, 3, 3)
        license_item = next(item for item in items if item.label == "license")
        assert license_item.text_edit == types.TextEdit(
            types.Range(types.Position(3, 0), types.Position(3, 3)), "license: "
        )
    finally:
        await client.shutdown_session()


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_values_for_booleans_and_the_name(workspace: Path, client_name: str) -> None:
    skill = skill_file(workspace)
    client = await start_client(workspace, client_name)
    try:
        text = SKILL.replace("name: review", "name: ").replace(
            "\n\n---", "\ndisable-model-invocation: \n---"
        )
        open_document(client, skill, text)
        booleans = await complete(client, skill, 3, len("disable-model-invocation: "))
        assert [item.label for item in booleans] == ["true", "false"]
        names = await complete(client, skill, 1, len("name: "))
        assert [item.label for item in names] == ["review"]
        edit = names[0].text_edit
        assert isinstance(edit, types.TextEdit)
        assert edit.range.start == types.Position(1, 6)
    finally:
        await client.shutdown_session()


async def test_an_unclosed_frontmatter_still_completes(workspace: Path) -> None:
    skill = skill_file(workspace)
    client = await start_client(workspace)
    try:
        open_document(client, skill, "---\nname: review\n")
        items = await complete(client, skill, 2, 0)
        assert "description" in [item.label for item in items]
    finally:
        await client.shutdown_session()


def test_every_known_field_is_documented() -> None:
    assert set(FIELD_DOCS) == KNOWN_SKILL_FIELDS
