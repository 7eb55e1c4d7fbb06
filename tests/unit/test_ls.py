"""The ls tool: Pi's order, suffixes, limits and errors (spec §2.5)."""

from __future__ import annotations

import asyncio
import errno
import itertools
import os
import time
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.tools import ls
from pi_lsp.tools.base import AbortSignal, ToolContext, ToolResult
from pi_lsp.tools.registry import run_tool


async def run_ls(cwd: Path, signal: AbortSignal | None = None, **args: Any) -> ToolResult:
    return await run_tool("ls", args, ToolContext(cwd=cwd, signal=signal))


def text(result: ToolResult) -> str:
    block = result.content[0]
    assert block.type == "text"
    return block.text


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """The ls-limits golden case's directory."""
    root = tmp_path / "mixed"
    (root / "c-dir").mkdir(parents=True)
    (root / ".hidden-dir").mkdir()
    for name in ("B.txt", "a.txt", ".hidden", "_under", "Zeta", "10.txt", "9.txt", "é-accent.txt"):
        (root / name).write_text("x\n")
    (root / "link-to-dir").symlink_to("c-dir")
    (root / "broken-link").symlink_to("does-not-exist")
    return root


def test_schema() -> None:
    params = ls.TOOL.parameters
    assert "required" not in params
    assert list(params["properties"]) == ["path", "limit"]
    assert [p["type"] for p in params["properties"].values()] == ["string", "number"]
    assert ls.TOOL.label == "ls"
    for fact in ("500 entries", "50KB", "Dotfiles", "'/'"):
        assert fact in ls.TOOL.description


async def test_full_listing(mixed: Path) -> None:
    result = await run_ls(mixed.parent, path="mixed")
    assert text(result) == (
        "_under\n.hidden\n.hidden-dir/\n10.txt\n9.txt\na.txt\nB.txt\nc-dir/\n"
        "é-accent.txt\nlink-to-dir/\nZeta"
    )
    assert result.details is None


async def test_limit_notice_only_when_more_entries_exist(mixed: Path) -> None:
    limited = await run_ls(mixed, limit=3)
    assert (
        text(limited)
        == "_under\n.hidden\n.hidden-dir/\n\n[3 entries limit reached. Use limit=6 for more]"
    )
    assert limited.details == {"entryLimitReached": 3}
    exact = await run_ls(mixed, limit=11)
    assert "limit reached" not in text(exact) and exact.details is None


async def test_unstatable_entries_still_count_as_more(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("")
    (tmp_path / "zz-broken").symlink_to("missing")
    result = await run_ls(tmp_path, limit=1)
    assert text(result) == "a\n\n[1 entries limit reached. Use limit=2 for more]"


async def test_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "emptydir").mkdir()
    result = await run_ls(tmp_path, path="emptydir")
    assert text(result) == "(empty directory)" and result.details is None


async def test_only_broken_links_is_empty(tmp_path: Path) -> None:
    (tmp_path / "dangling").symlink_to("nowhere")
    assert text(await run_ls(tmp_path)) == "(empty directory)"


async def test_not_a_directory(mixed: Path) -> None:
    result = await run_ls(mixed.parent, path="mixed/a.txt")
    assert result.is_error and text(result) == f"Not a directory: {mixed / 'a.txt'}"
    assert result.details == {}


async def test_path_not_found(tmp_path: Path) -> None:
    result = await run_ls(tmp_path, path="nope")
    assert result.is_error and text(result) == f"Path not found: {tmp_path / 'nope'}"


async def test_cannot_read_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(path: Any) -> list[bytes]:
        raise PermissionError(errno.EACCES, "Permission denied", path)

    monkeypatch.setattr(os, "listdir", refuse)
    result = await run_ls(tmp_path)
    assert result.is_error
    assert text(result) == f"Cannot read directory: EACCES: permission denied, scandir '{tmp_path}'"


async def test_default_is_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "file.txt").write_text("")
    assert text(await run_ls(tmp_path)) == "file.txt\nsub/"


async def test_unicode_names_sort_by_base_letter(tmp_path: Path) -> None:
    for name in ("zèbre", "Éclair", "eau", "été", "Ärger", "arbre", "Ω", "日本", "ñu", "nube"):
        (tmp_path / name).write_text("")
    assert text(await run_ls(tmp_path)).split("\n") == [
        "arbre",
        "Ärger",
        "eau",
        "Éclair",
        "été",
        "ñu",  # base letters first: "nu" sorts before "nube"
        "nube",
        "zèbre",
        "Ω",
        "日本",
    ]


async def test_output_capped_at_50kb(tmp_path: Path) -> None:
    for index in range(400):
        (tmp_path / f"{index:03d}{'n' * 200}").write_text("")
    result = await run_ls(tmp_path)
    shown, notice = text(result).rsplit("\n\n", 1)
    assert notice == "[50.0KB limit reached]"
    assert len(shown.split("\n")) == 51200 // 204
    assert result.details is not None and result.details["truncation"]["totalLines"] == 400


async def test_limit_and_size_notices_together(tmp_path: Path) -> None:
    for index in range(400):
        (tmp_path / f"{index:03d}{'n' * 200}").write_text("")
    result = await run_ls(tmp_path, limit=300)
    assert text(result).endswith(
        "\n\n[300 entries limit reached. Use limit=600 for more. 50.0KB limit reached]"
    )
    assert result.details is not None
    assert list(result.details) == ["entryLimitReached", "truncation"]


async def test_already_aborted(tmp_path: Path) -> None:
    signal = AbortSignal()
    signal.abort()
    result = await run_ls(tmp_path, signal=signal)
    assert result.is_error and text(result) == "Operation aborted"


async def test_listing_does_not_stall_the_event_loop(
    mixed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suffix = ls._suffix

    def slow_stat(path: str) -> str | None:
        time.sleep(0.05)  # a directory on a slow network share
        return suffix(path)

    monkeypatch.setattr(ls, "_suffix", slow_stat)
    beats = [time.monotonic()]

    async def heartbeat() -> None:
        while True:
            await asyncio.sleep(0.01)
            beats.append(time.monotonic())

    ticking = asyncio.ensure_future(heartbeat())
    try:
        result = await run_ls(mixed)
    finally:
        ticking.cancel()
    beats.append(time.monotonic())
    assert not result.is_error and "\n" in text(result)
    assert max(later - earlier for earlier, later in itertools.pairwise(beats)) < 0.2
