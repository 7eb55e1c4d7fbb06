"""The find tool: fd's matching and ignore rules, Pi's text, notices and errors (spec §2.4)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.tools import find
from pi_lsp.tools.base import AbortSignal, ToolContext, ToolResult
from pi_lsp.tools.file_walk import FdWalk, WalkCancelled
from pi_lsp.tools.registry import run_tool
from tests.shared_data import CONFORMANCE

NOTHING = "No files found matching pattern"


def make_tree(root: Path, files: dict[str, str]) -> Path:
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    return root


def git_init(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)


async def run_find(cwd: Path, signal: AbortSignal | None = None, **args: Any) -> ToolResult:
    return await run_tool("find", args, ToolContext(cwd=cwd, signal=signal))


def text(result: ToolResult) -> str:
    block = result.content[0]
    assert block.type == "text"
    return block.text


def lines(result: ToolResult) -> list[str]:
    return text(result).split("\n")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home, so no global ignore file of the machine takes part."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    return home


@pytest.fixture
def proj(tmp_path: Path, home: Path) -> Path:
    """The golden case's tree: a git repository with a hidden and a gitignored directory."""
    root = tmp_path / "proj"
    make_tree(
        root,
        {
            **{f"flat/{n}.txt": "x\n" for n in ("one", "two", "three", "four", "five")},
            "docs/a.md": "# a\n",
            "docs/sub/b.md": "# b\n",
            ".hidden/h.md": "# h\n",
            "build/ignored.md": "# ignored\n",
            ".gitignore": "build/\n",
        },
    )
    git_init(root)
    return root


def test_schema() -> None:
    params = find.TOOL.parameters
    assert params["required"] == ["pattern"]
    assert list(params["properties"]) == ["pattern", "path", "limit"]
    assert [p["type"] for p in params["properties"].values()] == ["string", "string", "number"]
    assert find.TOOL.label == "find"
    assert "1000 results" in find.TOOL.description and "50KB" in find.TOOL.description


async def test_limit_notice(proj: Path) -> None:
    result = await run_find(proj, pattern="*.txt", path="flat", limit=3)
    assert text(result) == (
        "five.txt\nfour.txt\none.txt\n\n"
        "[3 results limit reached. Use limit=6 for more, or refine pattern]"
    )
    assert result.details == {"resultLimitReached": 3}


async def test_limit_notice_when_results_equal_limit(proj: Path) -> None:
    # Pi says the limit was reached as soon as the count reaches it
    result = await run_find(proj, pattern="*.txt", path="flat", limit=5)
    assert text(result).endswith(
        "[5 results limit reached. Use limit=10 for more, or refine pattern]"
    )


async def test_hidden_included_gitignored_excluded(proj: Path) -> None:
    result = await run_find(proj, pattern="**/*.md")
    assert text(result) == ".hidden/h.md\ndocs/a.md\ndocs/sub/b.md"
    assert result.details is None


async def test_pattern_with_slash_matches_the_path(proj: Path) -> None:
    assert text(await run_find(proj, pattern="sub/*.md")) == "docs/sub/b.md"
    assert text(await run_find(proj, pattern="docs/*.md")) == "docs/a.md"


async def test_no_match(proj: Path) -> None:
    result = await run_find(proj, pattern="nothing-matches-*")
    assert text(result) == NOTHING
    assert result.details is None and not result.is_error


async def test_directories_end_with_slash_and_git_dir_is_skipped(proj: Path) -> None:
    assert lines(await run_find(proj, pattern="*")) == [
        ".gitignore",
        ".hidden/",
        ".hidden/h.md",
        "docs/",
        "docs/a.md",
        "docs/sub/",
        "docs/sub/b.md",
        "flat/",
        "flat/five.txt",
        "flat/four.txt",
        "flat/one.txt",
        "flat/three.txt",
        "flat/two.txt",
    ]


async def test_golden_case_set(tmp_path: Path, home: Path) -> None:
    """Same tree as the find-limits case; results compared as a set, as its README says."""
    setup = (CONFORMANCE / "find-limits" / "setup.sh").read_text()
    ws = tmp_path / "ws"
    ws.mkdir()
    subprocess.run(
        ["bash", "-e", "-c", setup], cwd=ws, env={**os.environ, "WS": str(ws)}, check=True
    )
    calls = json.loads((CONFORMANCE / "find-limits" / "script.json").read_text())[0]["tool_calls"]
    expected = sorted(
        (CONFORMANCE / "find-limits").glob("expected-tool-result-*.txt"),
        key=lambda p: int(p.stem.rsplit("-", 1)[1]),
    )
    for call, want_file in list(zip(calls, expected, strict=True))[1:]:
        got = text(await run_find(ws / "proj", **call["arguments"]))
        assert sorted(got.split("\n")) == sorted(want_file.read_text().split("\n"))


async def test_invalid_glob_is_an_error(proj: Path) -> None:
    result = await run_find(proj, pattern="[")
    assert result.is_error
    assert (
        text(result) == "[fd error]: error parsing glob '[': unclosed character class; missing ']'"
    )
    assert result.details == {}


async def test_option_like_pattern_is_a_pattern(proj: Path) -> None:
    result = await run_find(proj, pattern="--help")
    assert text(result) == NOTHING
    (proj / "--help").write_text("")
    assert text(await run_find(proj, pattern="--help")) == "--help"


async def test_path_errors(proj: Path) -> None:
    missing = await run_find(proj, pattern="*", path="nope")
    assert missing.is_error and text(missing) == f"Path not found: {proj / 'nope'}"
    a_file = await run_find(proj, pattern="*", path="docs/a.md")
    assert a_file.is_error
    assert text(a_file) == (
        f"[fd error]: Search path '{proj / 'docs/a.md'}' is not a directory.\n"
        "[fd error]: No valid search paths given."
    )


async def test_nested_gitignore_with_negation(tmp_path: Path, home: Path) -> None:
    root = make_tree(
        tmp_path / "repo",
        {
            "a.tmp": "",
            "sub/b.tmp": "",
            "sub/keep.tmp": "",
            "sub/deeper/c.tmp": "",
            "sub/.gitignore": "*.tmp\n!keep.tmp\n",
        },
    )
    git_init(root)
    assert lines(await run_find(root, pattern="*.tmp")) == ["a.tmp", "sub/keep.tmp"]


async def test_anchored_and_directory_rules(tmp_path: Path, home: Path) -> None:
    root = make_tree(
        tmp_path / "repo",
        {
            "out": "a file named out",
            "src/out/gen.py": "",
            "logs/x.py": "",
            "src/logs/y.py": "",
            ".gitignore": "out/\n/logs\n",
        },
    )
    git_init(root)
    assert lines(await run_find(root, pattern="*.py")) == ["src/logs/y.py"]
    assert "out" in lines(await run_find(root, pattern="out"))


async def test_git_info_exclude(tmp_path: Path, home: Path) -> None:
    root = make_tree(tmp_path / "repo", {"keep.txt": "", "secret.txt": ""})
    git_init(root)
    (root / ".git" / "info" / "exclude").write_text("secret.txt\n")
    assert lines(await run_find(root, pattern="*.txt")) == ["keep.txt"]


async def test_gitignore_applies_outside_a_repository(tmp_path: Path, home: Path) -> None:
    root = make_tree(
        tmp_path / "plain",
        {"a.log": "", "b.txt": "", ".gitignore": "*.log\n", "sub/c.log": "", "sub/d.txt": ""},
    )
    assert lines(await run_find(root, pattern="*")) == [".gitignore", "b.txt", "sub/", "sub/d.txt"]
    # the rules of a parent directory apply when searching below it
    assert lines(await run_find(root / "sub", pattern="*")) == ["d.txt"]


async def test_rules_above_a_repository_root_do_not_apply(tmp_path: Path, home: Path) -> None:
    make_tree(tmp_path / "outer", {".gitignore": "*.md\n", "repo/readme.md": ""})
    git_init(tmp_path / "outer" / "repo")
    assert text(await run_find(tmp_path / "outer" / "repo", pattern="*.md")) == "readme.md"


async def test_ignore_and_fdignore_files(tmp_path: Path, home: Path) -> None:
    root = make_tree(
        tmp_path / "plain",
        {
            "a.log": "",
            "b.log": "",
            "c.bak": "",
            "d.txt": "",
            ".gitignore": "*.log\n",
            ".ignore": "!a.log\n*.bak\n",
            ".fdignore": "d.txt\n",
        },
    )
    # .ignore's whitelist beats .gitignore; .fdignore removes d.txt
    assert lines(await run_find(root, pattern="*.*")) == [
        ".fdignore",
        ".gitignore",
        ".ignore",
        "a.log",
    ]


async def test_global_git_excludes(tmp_path: Path, home: Path) -> None:
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "ignore").write_text("*.swp\n")
    root = make_tree(tmp_path / "repo", {"a.swp": "", "a.txt": ""})
    git_init(root)
    assert lines(await run_find(root, pattern="a.*")) == ["a.txt"]


async def test_smart_case(tmp_path: Path, home: Path) -> None:
    root = make_tree(tmp_path / "d", {"README.MD": "", "notes.md": ""})
    assert lines(await run_find(root, pattern="*.md")) == ["README.MD", "notes.md"]
    assert lines(await run_find(root, pattern="*.MD")) == ["README.MD"]


async def test_unicode_names(tmp_path: Path, home: Path) -> None:
    root = make_tree(tmp_path / "d", {"ünïcödé/été.txt": "", "日本/語.txt": "", "plain.txt": ""})
    assert lines(await run_find(root, pattern="*.txt")) == [
        "plain.txt",
        "ünïcödé/été.txt",
        "日本/語.txt",
    ]
    assert lines(await run_find(root, pattern="été*")) == ["ünïcödé/été.txt"]
    assert lines(await run_find(root, pattern="日本/*")) == ["日本/語.txt"]


async def test_symlinks_are_listed_not_followed(tmp_path: Path, home: Path) -> None:
    root = make_tree(tmp_path / "d", {"real/inside.txt": ""})
    (root / "link").symlink_to("real")
    (root / "broken").symlink_to("missing")
    assert lines(await run_find(root, pattern="*")) == [
        "broken",
        "link",
        "real/",
        "real/inside.txt",
    ]


async def test_output_capped_at_50kb(tmp_path: Path, home: Path) -> None:
    root = tmp_path / "d"
    root.mkdir()
    for index in range(600):
        (root / f"{index:03d}-{'n' * 100}.txt").write_text("")
    result = await run_find(root, pattern="*.txt")
    body, notice = text(result).rsplit("\n\n", 1)
    assert notice == "[50.0KB limit reached]"
    assert len(body.encode()) <= 51200 and len(body.split("\n")) == 469
    assert result.details is not None
    truncation = result.details["truncation"]
    assert (truncation["truncated"], truncation["truncatedBy"], truncation["totalLines"]) == (
        True,
        "bytes",
        600,
    )
    assert truncation["maxLines"] == 9007199254740991


async def test_limit_zero_and_invalid_limits(proj: Path) -> None:
    zero = await run_find(proj, pattern="*.txt", path="flat", limit=0)
    assert len(text(zero).split("\n\n")[0].split("\n")) == 5
    assert text(zero).endswith("[0 results limit reached. Use limit=0 for more, or refine pattern]")
    fraction = await run_find(proj, pattern="*.txt", limit=2.5)
    assert fraction.is_error and "invalid value '2.5'" in text(fraction)


async def test_already_aborted(proj: Path) -> None:
    signal = AbortSignal()
    signal.abort()
    result = await run_find(proj, signal=signal, pattern="*")
    assert result.is_error and text(result) == "Operation aborted"


async def test_abort_stops_the_walk(proj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stopped = threading.Event()

    def endless_search(walk: FdWalk, *args: Any) -> list[str]:
        assert walk.cancelled is not None
        walk.cancelled.wait(10)  # a walk far too long to finish, until it is told to stop
        stopped.set()
        raise WalkCancelled

    monkeypatch.setattr(find, "_search", endless_search)
    signal = AbortSignal()
    task = asyncio.ensure_future(run_find(proj, signal=signal, pattern="*"))
    await asyncio.sleep(0.05)
    signal.abort()
    result = await asyncio.wait_for(task, 5)
    assert text(result) == "Operation aborted"
    assert stopped.wait(5)


async def test_cancelling_the_call_stops_the_walk(
    proj: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = threading.Event()
    stopped = threading.Event()

    def endless_search(walk: FdWalk, *args: Any) -> list[str]:
        assert walk.cancelled is not None
        started.set()
        walk.cancelled.wait(10)  # a walk far too long to finish, until it is told to stop
        stopped.set()
        raise WalkCancelled

    monkeypatch.setattr(find, "_search", endless_search)
    task = asyncio.ensure_future(run_find(proj, pattern="*"))  # no abort signal at all
    assert await asyncio.to_thread(started.wait, 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(stopped.wait, 5)


@pytest.fixture
def deep_tree(tmp_path: Path) -> Iterator[Path]:
    """``deep/d/d/…/d/bottom.txt``, 1100 levels: deeper than Python's recursion limit.

    Made and removed without recursion (pytest's own clean-up would overflow on it).
    """
    root = tmp_path / "deep"
    levels = [str(root)]
    for _ in range(1100):
        levels.append(levels[-1] + "/d")
    for level in levels:
        os.mkdir(level)
    Path(levels[-1], "bottom.txt").write_text("")
    yield root
    os.remove(Path(levels[-1], "bottom.txt"))
    for level in reversed(levels):
        os.rmdir(level)


async def test_very_deep_tree(deep_tree: Path, home: Path) -> None:
    root = deep_tree
    result = await run_find(root, pattern="bottom.txt")
    assert text(result) == "/".join(["d"] * 1100) + "/bottom.txt"
    everything = await run_find(root, pattern="*", limit=2000)
    assert lines(everything)[:3] == ["d/", "d/d/", "d/d/d/"]  # parents before children
    assert everything.details is not None  # the long paths pass the 50KB cap
    assert everything.details["truncation"]["totalLines"] == 1101


async def test_nested_repository_below_a_plain_directory(tmp_path: Path, home: Path) -> None:
    # The search root is in no repository, so Pi runs fd with --no-require-git: every
    # .gitignore applies, and a nested repository does not cut off the rules above it.
    root = make_tree(
        tmp_path / "plain",
        {
            ".gitignore": "*.log\n",
            "a.log": "",
            "a.txt": "",
            "c.tmp": "",
            "nested/.gitignore": "*.tmp\n",
            "nested/b.tmp": "",
            "nested/b.txt": "",
            "nested/b.log": "",
            "nested/deeper/d.tmp": "",
        },
    )
    git_init(root / "nested")
    assert lines(await run_find(root, pattern="*.*")) == [
        ".gitignore",
        "a.txt",
        "c.tmp",  # the nested repository's rules stay inside it
        "nested/.gitignore",
        "nested/b.txt",
    ]
    # searched from inside the nested repository, fd requires git again: the rules of the
    # plain directory above the repository root no longer apply
    assert lines(await run_find(root / "nested", pattern="*.*")) == [
        ".gitignore",
        "b.log",
        "b.txt",
    ]
