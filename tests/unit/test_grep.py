"""The grep tool: ripgrep's matches shown as Pi shows them (spec §2.3, §1.6, §14.2)."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import subprocess
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from pi_lsp.tools import grep
from pi_lsp.tools.base import AbortSignal, ToolContext, ToolResult
from pi_lsp.tools.registry import run_tool
from tests.shared_data import CONFORMANCE

NO_MATCHES = "No matches found"


async def run_grep(cwd: Path, signal: AbortSignal | None = None, **args: Any) -> ToolResult:
    return await run_tool("grep", args, ToolContext(cwd=cwd, signal=signal))


def text(result: ToolResult) -> str:
    block = result.content[0]
    assert block.type == "text"
    return block.text


def write(root: Path, relative: str, content: str | bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def without_descriptions(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        key: (
            {name: {"type": prop["type"]} for name, prop in value.items()}
            if key == "properties"
            else value
        )
        for key, value in schema.items()
    }


def test_schema_matches_pi() -> None:
    requests = json.loads(
        (CONFORMANCE / "sp-system-md-trusted" / "expected-requests.json").read_text()
    )
    pi_tool = next(t for t in requests[0]["tools"] if t["function"]["name"] == "grep")
    pi_schema = pi_tool["function"]["parameters"]
    ours = grep.TOOL.parameters
    assert list(ours) == list(pi_schema)
    assert without_descriptions(ours) == without_descriptions(pi_schema)
    assert list(ours["properties"]) == list(pi_schema["properties"])
    assert grep.TOOL.label == "grep"
    for limit in ("100 matches", "50KB", "500 characters"):
        assert limit in grep.TOOL.description


async def test_match_in_a_single_file(tmp_path: Path) -> None:
    write(tmp_path, "example.txt", "first line\nmatch line\nlast line")
    result = await run_grep(tmp_path, pattern="match", path="example.txt")
    assert text(result) == "example.txt:2: match line"
    assert result.details is None and not result.is_error


async def test_option_like_pattern_is_never_an_option(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    payload = write(tmp_path, "payload.sh", f"#!/bin/sh\ntouch {marker}\ncat\n")
    payload.chmod(0o755)
    write(tmp_path, "data.txt", "harmless\n")
    result = await run_grep(tmp_path, pattern=f"--pre={payload}")
    assert text(result) == NO_MATCHES
    assert not marker.exists()


async def test_context_and_match_limit(tmp_path: Path) -> None:
    write(tmp_path, "src/a.txt", "before\nmatch one\nafter\nmiddle\nmatch two\nafter two\n")
    result = await run_grep(tmp_path, pattern="match", path="src/a.txt", context=1, limit=1)
    assert text(result) == (
        "a.txt-1- before\na.txt:2: match one\na.txt-3- after\n\n"
        "[1 matches limit reached. Use limit=2 for more, or refine pattern]"
    )
    assert result.details == {"matchLimitReached": 1}


async def test_context_windows_are_not_merged(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "x\nhit 1\nhit 2\ny\n")
    result = await run_grep(tmp_path, pattern="hit", context=1)
    assert text(result) == (
        "a.txt-1- x\na.txt:2: hit 1\na.txt-3- hit 2\na.txt-2- hit 1\na.txt:3: hit 2\na.txt-4- y"
    )


async def test_context_lines_lose_carriage_returns(tmp_path: Path) -> None:
    write(tmp_path, "crlf.txt", b"one\r\ntwo hit\r\nthree\r\n")
    with_context = await run_grep(tmp_path, pattern="hit", context=1)
    assert text(with_context) == "crlf.txt-1- one\ncrlf.txt:2: two hit\ncrlf.txt-3- three"
    assert text(await run_grep(tmp_path, pattern="hit")) == "crlf.txt:2: two hit"


async def test_lone_carriage_returns_split_context_lines_like_pi(tmp_path: Path) -> None:
    # Pi reads context from the file with every CR or CRLF turned into a line break, while
    # ripgrep numbers lines by LF only: a lone CR shifts the context window, as in Pi.
    write(tmp_path, "mixed.txt", b"one\rtwo\r\nthree hit\nfour\r\n")
    with_context = await run_grep(tmp_path, pattern="hit", context=1)
    assert text(with_context) == "mixed.txt-1- one\nmixed.txt:2: two\nmixed.txt-3- three hit"
    # without context ripgrep's own line is shown, carriage returns dropped
    assert text(await run_grep(tmp_path, pattern="hit|one")) == (
        "mixed.txt:1: onetwo\nmixed.txt:2: three hit"
    )


_T = TypeVar("_T")


async def longest_stall(work: Awaitable[_T]) -> tuple[_T, float]:
    """Run ``work`` while a heartbeat ticks every 10 ms; the longest the loop went without one."""
    beats = [time.monotonic()]

    async def heartbeat() -> None:
        while True:
            await asyncio.sleep(0.01)
            beats.append(time.monotonic())

    ticking = asyncio.ensure_future(heartbeat())
    try:
        result = await work
    finally:
        ticking.cancel()
    beats.append(time.monotonic())
    return result, max(later - earlier for earlier, later in itertools.pairwise(beats))


async def test_reading_context_does_not_stall_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "a.txt", "x\nhit\ny\n")
    read_lines = grep._BlockFormatter.file_lines

    def slow_disk(self: Any, path: str) -> list[str]:
        time.sleep(0.5)  # a file on a slow network share
        return read_lines(self, path)

    monkeypatch.setattr(grep._BlockFormatter, "file_lines", slow_disk)
    result, stall = await longest_stall(run_grep(tmp_path, pattern="hit", context=1))
    assert text(result) == "a.txt-1- x\na.txt:2: hit\na.txt-3- y"
    assert stall < 0.3, stall


async def test_long_lines_cut_at_500_chars(tmp_path: Path) -> None:
    write(tmp_path, "long.txt", "match " + "x" * 600 + "\n")
    result = await run_grep(tmp_path, pattern="match")
    shown, notice = text(result).split("\n\n")
    assert shown == "long.txt:1: " + ("match " + "x" * 600)[:500] + "... [truncated]"
    assert notice == "[Some lines truncated to 500 chars. Use read tool to see full lines]"
    assert result.details == {"linesTruncated": True}


async def test_cut_counts_utf16_units(tmp_path: Path) -> None:
    write(tmp_path, "emoji.txt", "hi " + "🙂" * 300 + "\n")
    result = await run_grep(tmp_path, pattern="hi")
    line = text(result).split("\n\n")[0]
    # 500 UTF-16 units: "hi " and 248 emoji (2 units each) and half of one, which becomes U+FFFD
    assert line == "emoji.txt:1: hi " + "🙂" * 248 + "\ufffd... [truncated]"


async def test_output_capped_at_50kb(tmp_path: Path) -> None:
    body = "".join(f"hit {i:03d} {'y' * 400}\n" for i in range(300))
    write(tmp_path, "src/big.txt", body)
    result = await run_grep(tmp_path, pattern="^hit", path="src/big.txt", limit=1000)
    shown, notice = text(result).rsplit("\n\n", 1)
    assert notice == "[50.0KB limit reached]"
    assert len(shown.split("\n")) == 121 and len(shown.encode()) == 50953
    assert result.details is not None
    assert set(result.details) == {"truncation"}
    truncation = result.details["truncation"]
    assert truncation["totalLines"] == 300 and truncation["totalBytes"] == 126491
    assert truncation["outputLines"] == 121 and truncation["maxLines"] == 9007199254740991
    assert truncation["maxBytes"] == 51200 and truncation["truncatedBy"] == "bytes"


async def test_all_notices_in_one_bracket(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "".join(f"hit {'z' * 700}\n" for _ in range(120)))
    result = await run_grep(tmp_path, pattern="hit", limit=110)
    notice = text(result).rsplit("\n\n", 1)[1]
    assert notice == (
        "[110 matches limit reached. Use limit=220 for more, or refine pattern. "
        "50.0KB limit reached. Some lines truncated to 500 chars. Use read tool to see full lines]"
    )
    assert result.details is not None
    assert list(result.details) == ["matchLimitReached", "truncation", "linesTruncated"]


async def test_hidden_files_searched_gitignored_skipped(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    write(tmp_path, ".hidden/h.txt", "SECRET hidden\n")
    write(tmp_path, "ignored.txt", "SECRET ignored\n")
    write(tmp_path, ".gitignore", "ignored.txt\n")
    assert text(await run_grep(tmp_path, pattern="SECRET")) == ".hidden/h.txt:1: SECRET hidden"


async def test_paths_relative_to_the_searched_directory(tmp_path: Path) -> None:
    write(tmp_path, "pkg/deep/mod.py", "needle\n")
    write(tmp_path, "pkg/a.py", "needle\n")
    write(tmp_path, "top.py", "needle\n")
    assert text(await run_grep(tmp_path, pattern="needle")) == (
        "pkg/a.py:1: needle\npkg/deep/mod.py:1: needle\ntop.py:1: needle"
    )
    assert text(await run_grep(tmp_path, pattern="needle", path="pkg")) == (
        "a.py:1: needle\ndeep/mod.py:1: needle"
    )
    absolute = await run_grep(tmp_path / "pkg", pattern="needle", path=str(tmp_path / "top.py"))
    assert text(absolute) == "top.py:1: needle"


async def test_unicode_names_and_text(tmp_path: Path) -> None:
    write(tmp_path, "dossier/résumé.txt", "naïve café\n")
    write(tmp_path, "日本/語.txt", "日本語テキスト\n")
    assert text(await run_grep(tmp_path, pattern="café")) == "dossier/résumé.txt:1: naïve café"
    assert text(await run_grep(tmp_path, pattern="テキスト")) == "日本/語.txt:1: 日本語テキスト"


async def test_search_options(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "Alpha\nalpha\na.c\nabc\n")
    write(tmp_path, "b.txt", "alpha\n")
    assert text(await run_grep(tmp_path, pattern="ALPHA", ignoreCase=True, glob="*.py")) == (
        "a.py:1: Alpha\na.py:2: alpha"
    )
    assert text(await run_grep(tmp_path, pattern="a.c", literal=True)) == "a.py:3: a.c"
    assert text(await run_grep(tmp_path, pattern="a.c")) == "a.py:3: a.c\na.py:4: abc"


async def test_limit_below_one_counts_as_one(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "hit\nhit\n")
    result = await run_grep(tmp_path, pattern="hit", limit=0)
    assert text(result) == (
        "a.txt:1: hit\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]"
    )


async def test_no_match(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "nothing here\n")
    result = await run_grep(tmp_path, pattern="zzz-no-such-text")
    assert text(result) == NO_MATCHES and result.details is None


async def test_missing_path(tmp_path: Path) -> None:
    result = await run_grep(tmp_path, pattern="x", path="nope")
    assert result.is_error and text(result) == f"Path not found: {tmp_path / 'nope'}"
    assert result.details == {}


async def test_invalid_regex_reports_ripgrep_error(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "x\n")
    result = await run_grep(tmp_path, pattern="(unclosed")
    assert result.is_error
    assert "regex parse error" in text(result)


async def test_unreadable_file_in_context_mode(tmp_path: Path) -> None:
    formatter = grep._BlockFormatter(str(tmp_path), True, 1)
    gone = grep.Match(str(tmp_path / "gone.txt"), 3, "hit\n")
    assert formatter.block(gone) == ["gone.txt:3: (unable to read file)"]


async def test_ripgrep_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grep, "find_ripgrep", lambda: None)
    result = await run_grep(tmp_path, pattern="x")
    assert result.is_error
    assert text(result) == "ripgrep (rg) is not available and could not be downloaded"


async def test_already_aborted(tmp_path: Path) -> None:
    signal = AbortSignal()
    signal.abort()
    result = await run_grep(tmp_path, signal=signal, pattern="x")
    assert result.is_error and text(result) == "Operation aborted"


async def test_abort_kills_ripgrep(tmp_path: Path) -> None:
    # A pipe named as the search path is refused; one that ripgrep finds as an ignore file on
    # its walk still blocks it (it opens the pipe, which nobody writes to).
    (tmp_path / "src").mkdir()
    os.mkfifo(tmp_path / "src" / ".ignore")
    signal = AbortSignal()
    task = asyncio.ensure_future(run_grep(tmp_path, signal=signal, pattern="x", path="src"))
    await asyncio.sleep(0.3)
    assert not task.done()
    signal.abort()
    result = await asyncio.wait_for(task, 5)
    assert result.is_error and text(result) == "Operation aborted"


async def test_a_pipe_or_device_named_as_the_path_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    for path, shown in (
        ("pipe", f"{tmp_path}/pipe (named pipe)"),
        ("/dev/zero", "/dev/zero (character device)"),
    ):
        result = await run_grep(tmp_path, pattern="x", path=path)
        assert result.is_error and text(result) == f"Not a regular file: {shown}"


def test_golden_case_texts(tmp_path: Path) -> None:
    """The grep-limits case end to end (also run by the conformance suite through the CLI)."""
    case = CONFORMANCE / "grep-limits"
    ws = tmp_path / "ws"
    ws.mkdir()
    setup = (case / "setup.sh").read_text()
    subprocess.run(
        ["bash", "-e", "-c", setup], cwd=ws, env={**os.environ, "WS": str(ws)}, check=True
    )
    calls = json.loads((case / "script.json").read_text())[0]["tool_calls"]
    for index, call in enumerate(calls, start=1):
        result = asyncio.run(run_grep(ws / "proj", **call["arguments"]))
        assert text(result).encode() == (case / f"expected-tool-result-{index}.txt").read_bytes()
