"""The edit tool as the model and the user see it: result texts, details and the file's bytes.

Expected texts are Pi 0.85's (spec §2.6, §14.2), re-checked against the real Pi with the oracle.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.tools import edit, file_mutation
from pi_lsp.tools.base import AbortSignal, ToolContext, ToolResult
from pi_lsp.tools.edit import EditOperations, EditTool, prepare_edit_arguments
from pi_lsp.tools.registry import execute, run_tool
from tests.growth import assert_linear_growth_async
from tests.shared_data import CONFORMANCE


def _write(path: Path, data: str | bytes) -> Path:
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


async def _edit(cwd: Path, args: dict[str, Any], tool: EditTool | None = None) -> ToolResult:
    ctx = ToolContext(cwd=cwd)
    if tool is None:
        return await run_tool("edit", args, ctx)
    return await execute(tool, tool.prepare_arguments(dict(args)), ctx)


def _text(result: ToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def _one(old: str, new: str) -> list[dict[str, str]]:
    return [{"oldText": old, "newText": new}]


# --------------------------------------------------------------------------------------------
# success


async def test_single_replacement(tmp_path: Path) -> None:
    target = _write(tmp_path / "test.txt", "Hello, world!")
    result = await _edit(tmp_path, {"path": "test.txt", "edits": _one("world", "testing")})
    assert not result.is_error
    assert _text(result) == "Successfully replaced 1 block(s) in test.txt."
    assert target.read_bytes() == b"Hello, testing!"
    assert result.details == {
        "diff": "-1 Hello, world!\n+1 Hello, testing!",
        "patch": (
            "--- test.txt\n+++ test.txt\n@@ -1,1 +1,1 @@\n-Hello, world!\n"
            "\\ No newline at end of file\n+Hello, testing!\n\\ No newline at end of file\n"
        ),
        "firstChangedLine": 1,
    }


async def test_two_edits_report_diff_patch_and_first_line(tmp_path: Path) -> None:
    target = _write(tmp_path / "multi.txt", "alpha\nbeta\ngamma\ndelta\n")
    edits = [{"oldText": "alpha", "newText": "ALPHA"}, {"oldText": "gamma", "newText": "GAMMA"}]
    result = await _edit(tmp_path, {"path": "multi.txt", "edits": edits})
    assert _text(result) == "Successfully replaced 2 block(s) in multi.txt."
    assert target.read_bytes() == b"ALPHA\nbeta\nGAMMA\ndelta\n"
    assert result.details == {
        "diff": "-1 alpha\n+1 ALPHA\n 2 beta\n-3 gamma\n+3 GAMMA\n 4 delta",
        "patch": (
            "--- multi.txt\n+++ multi.txt\n@@ -1,4 +1,4 @@\n"
            "-alpha\n+ALPHA\n beta\n-gamma\n+GAMMA\n delta\n"
        ),
        "firstChangedLine": 1,
    }


async def test_edits_match_the_original_not_each_other(tmp_path: Path) -> None:
    target = _write(tmp_path / "f.txt", "foo\nbar\nbaz\n")
    edits = [{"oldText": "foo\n", "newText": "foo bar\n"}, {"oldText": "bar\n", "newText": "BAR\n"}]
    result = await _edit(tmp_path, {"path": "f.txt", "edits": edits})
    assert _text(result) == "Successfully replaced 2 block(s) in f.txt."
    assert target.read_bytes() == b"foo bar\nBAR\nbaz\n"


async def test_crlf_and_bom_are_kept(tmp_path: Path) -> None:
    target = _write(tmp_path / "crlf.txt", "\ufefffirst\r\nsecond\r\nthird\r\n")
    result = await _edit(tmp_path, {"path": "crlf.txt", "edits": _one("second\n", "REPLACED\n")})
    assert _text(result) == "Successfully replaced 1 block(s) in crlf.txt."
    assert target.read_bytes() == "\ufefffirst\r\nREPLACED\r\nthird\r\n".encode()
    # the diff is of the LF text without the BOM
    assert result.details is not None
    assert result.details["diff"] == " 1 first\n-2 second\n+2 REPLACED\n 3 third"
    assert result.details["firstChangedLine"] == 2


async def test_crlf_old_text_matches_lf_file(tmp_path: Path) -> None:
    target = _write(tmp_path / "f.txt", "a\nb\nc\n")
    await _edit(tmp_path, {"path": "f.txt", "edits": _one("a\r\nb", "x\r\ny")})
    assert target.read_bytes() == b"x\ny\nc\n"


async def test_line_ending_follows_the_first_line_break(tmp_path: Path) -> None:
    target = _write(tmp_path / "mixed.txt", "a\nb\r\nc\n")
    await _edit(tmp_path, {"path": "mixed.txt", "edits": _one("c", "C")})
    assert target.read_bytes() == b"a\nb\nC\n"


async def test_absolute_path_and_path_text_in_reply(tmp_path: Path) -> None:
    target = _write(tmp_path / "abs.txt", "one\n")
    result = await _edit(Path("/"), {"path": str(target), "edits": _one("one", "two")})
    assert _text(result) == f"Successfully replaced 1 block(s) in {target}."
    assert target.read_text() == "two\n"


# --------------------------------------------------------------------------------------------
# errors leave the file as it was


@pytest.mark.parametrize(
    ("content", "edits", "message"),
    [
        (
            "foo foo foo",
            _one("foo", "bar"),
            "Found 3 occurrences of the text in f.txt. The text must be unique. "
            "Please provide more context to make it unique.",
        ),
        (
            "a foo b foo\n",
            [{"oldText": "a", "newText": "A"}, {"oldText": "foo", "newText": "bar"}],
            "Found 2 occurrences of edits[1] in f.txt. Each oldText must be unique. "
            "Please provide more context to make it unique.",
        ),
        (
            "hello\n",
            _one("absent", "x"),
            "Could not find the exact text in f.txt. The old text must match exactly "
            "including all whitespace and newlines.",
        ),
        (
            "x\n",
            [{"oldText": "x", "newText": "y"}, {"oldText": "zz", "newText": "q"}],
            "Could not find edits[1] in f.txt. The oldText must match exactly "
            "including all whitespace and newlines.",
        ),
        (
            "one two three\n",
            [{"oldText": "one two", "newText": "1 2"}, {"oldText": "two three", "newText": "2 3"}],
            "edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target "
            "disjoint regions.",
        ),
        ("x\n", _one("", "y"), "oldText must not be empty in f.txt."),
        (
            "x\n",
            [{"oldText": "x", "newText": "y"}, {"oldText": "", "newText": "z"}],
            "edits[1].oldText must not be empty in f.txt.",
        ),
        (
            "x\n",
            _one("x", "x"),
            "No changes made to f.txt. The replacement produced identical content. This might "
            "indicate an issue with special characters or the text not existing as expected.",
        ),
        (
            "x y\n",
            [{"oldText": "x", "newText": "x"}, {"oldText": "y", "newText": "y"}],
            "No changes made to f.txt. The replacements produced identical content.",
        ),
    ],
)
async def test_rejected_edit_changes_nothing(
    tmp_path: Path, content: str, edits: list[dict[str, str]], message: str
) -> None:
    target = _write(tmp_path / "f.txt", content)
    result = await _edit(tmp_path, {"path": "f.txt", "edits": edits})
    assert result.is_error
    assert _text(result) == message
    assert result.details == {}
    assert target.read_bytes() == content.encode()


async def test_overlap_names_edits_by_their_given_order(tmp_path: Path) -> None:
    _write(tmp_path / "f.txt", "one two three\n")
    edits = [{"oldText": "two three", "newText": "x"}, {"oldText": "one two", "newText": "y"}]
    result = await _edit(tmp_path, {"path": "f.txt", "edits": edits})
    assert _text(result).startswith("edits[1] and edits[0] overlap in f.txt.")


async def test_empty_edit_list_is_rejected(tmp_path: Path) -> None:
    _write(tmp_path / "f.txt", "x\n")
    result = await _edit(tmp_path, {"path": "f.txt", "edits": []})
    assert result.is_error
    assert _text(result) == (
        "Edit tool input is invalid. edits must contain at least one replacement."
    )


async def test_missing_file(tmp_path: Path) -> None:
    result = await _edit(tmp_path, {"path": "missing.txt", "edits": _one("a", "b")})
    assert _text(result) == "Could not edit file: missing.txt. Error code: ENOENT."
    assert not (tmp_path / "missing.txt").exists()


async def test_read_only_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = _write(tmp_path / "ro.txt", "text\n")
    target.chmod(0o444)
    real_access = os.access

    def access_like_an_ordinary_user(path: Any, mode: int, **kwargs: Any) -> bool:
        # root may write anything; answer from the permission bits as for other users
        if mode & os.W_OK and not os.stat(path).st_mode & stat.S_IWUSR:
            return False
        return real_access(path, mode, **kwargs)

    monkeypatch.setattr(os, "access", access_like_an_ordinary_user)
    result = await _edit(tmp_path, {"path": "ro.txt", "edits": _one("text", "new")})
    assert _text(result) == "Could not edit file: ro.txt. Error code: EACCES."
    assert target.read_bytes() == b"text\n"


async def test_access_failure_without_code(tmp_path: Path) -> None:
    def broken_access(path: str) -> None:
        raise RuntimeError("disk offline")

    tool = EditTool(EditOperations(access=broken_access))
    result = await _edit(tmp_path, {"path": "broken.txt", "edits": _one("a", "b")}, tool)
    assert _text(result) == "Could not edit file: broken.txt. Error: disk offline."


async def test_directory_is_not_editable(tmp_path: Path) -> None:
    (tmp_path / "adir").mkdir()
    result = await _edit(tmp_path, {"path": "adir", "edits": _one("a", "b")})
    assert _text(result) == "EISDIR: illegal operation on a directory, read"


async def test_aborted_call_changes_nothing(tmp_path: Path) -> None:
    target = _write(tmp_path / "f.txt", "a\n")
    signal = AbortSignal()
    signal.abort()
    tool = edit.TOOL
    ctx = ToolContext(cwd=tmp_path, signal=signal)
    result = await execute(tool, {"path": "f.txt", "edits": _one("a", "b")}, ctx)
    assert _text(result) == "Operation aborted"
    assert target.read_bytes() == b"a\n"


async def test_named_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    try:
        result = await asyncio.wait_for(
            _edit(tmp_path, {"path": "pipe", "edits": _one("a", "b")}), 5
        )
    finally:  # let a reader stuck opening the pipe go on, so no thread hangs for ever
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert _text(result) == f"Not a regular file: {fifo} (named pipe)"
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    # the file's lock was released: a later mutation of the same path runs
    again = await asyncio.wait_for(_edit(tmp_path, {"path": "pipe", "edits": _one("a", "b")}), 5)
    assert again.is_error


async def test_file_over_2_gib_is_refused_like_node(tmp_path: Path) -> None:
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as handle:
        handle.truncate(2**31)  # sparse: one byte over Node's limit
    result = await _edit(tmp_path, {"path": "huge.txt", "edits": _one("a", "b")})
    assert _text(result) == "File size (2147483648) is greater than 2 GiB"


# --------------------------------------------------------------------------------------------
# fuzzy matching


@pytest.mark.parametrize(
    ("content", "old", "new", "expected"),
    [
        # trailing whitespace on the file's lines
        ("def f():   \n    return 1  \n", "def f():\n    return 1\n", "def g():\n", "def g():\n"),
        # full-width letters (NFKC)
        ("name = \uff21\uff22\uff23\n", "name = ABC", "name = xyz", "name = xyz\n"),
        # typographic quotes
        ("say(\u201chi\u201d, \u2018x\u2019)\n", "say(\"hi\", 'x')", "say()", "say()\n"),
        # dashes and minus signs
        ("a \u2014 b \u2013 c \u2212 d\n", "a - b - c - d", "abcd", "abcd\n"),
        # no-break and other special spaces
        ("x\u00a0=\u20091\n", "x = 1", "x = 2", "x = 2\n"),
    ],
)
async def test_fuzzy_match(tmp_path: Path, content: str, old: str, new: str, expected: str) -> None:
    target = _write(tmp_path / "f.txt", content)
    result = await _edit(tmp_path, {"path": "f.txt", "edits": _one(old, new)})
    assert _text(result) == "Successfully replaced 1 block(s) in f.txt."
    assert target.read_text(encoding="utf-8") == expected


async def test_fuzzy_edit_keeps_untouched_lines_byte_exact(tmp_path: Path) -> None:
    content = "keep \u2018this\u2019   \nconsole.log(\u2018hello\u2019);   \nkeep   \n"
    target = _write(tmp_path / "fuzzy.txt", content)
    edits = _one("console.log('hello');", "console.log('bye');")
    result = await _edit(tmp_path, {"path": "fuzzy.txt", "edits": edits})
    assert _text(result) == "Successfully replaced 1 block(s) in fuzzy.txt."
    assert target.read_text(encoding="utf-8") == (
        "keep \u2018this\u2019   \nconsole.log('bye');\nkeep   \n"
    )
    assert result.details is not None
    assert result.details["diff"] == (
        " 1 keep \u2018this\u2019   \n-2 console.log(\u2018hello\u2019);   \n"
        "+2 console.log('bye');\n 3 keep   "
    )


async def test_exact_match_is_preferred(tmp_path: Path) -> None:
    # an exact match exists, so nothing is normalized: the curly quotes on line 1 stay
    target = _write(tmp_path / "f.txt", "say \u201chi\u201d;\nsay 'hi';\n")
    result = await _edit(tmp_path, {"path": "f.txt", "edits": _one("'hi'", "'bye'")})
    assert _text(result) == "Successfully replaced 1 block(s) in f.txt."
    assert target.read_text(encoding="utf-8") == "say \u201chi\u201d;\nsay 'bye';\n"


async def test_uniqueness_is_judged_on_fuzzy_forms(tmp_path: Path) -> None:
    # the exact text occurs once, but its fuzzy form occurs twice: Pi refuses
    target = _write(tmp_path / "f.txt", 'say \u201chi\u201d;\nsay "hi";\n')
    result = await _edit(tmp_path, {"path": "f.txt", "edits": _one('"hi";', '"bye";')})
    assert _text(result).startswith("Found 2 occurrences of the text in f.txt.")
    assert target.read_text(encoding="utf-8") == 'say \u201chi\u201d;\nsay "hi";\n'


async def test_one_fuzzy_edit_puts_all_edits_in_fuzzy_space(tmp_path: Path) -> None:
    target = _write(tmp_path / "f.txt", "a = 1   \nb = \u201cx\u201d\nc = 3  \n")
    edits = [{"oldText": "a = 1", "newText": "a = 10"}, {"oldText": 'b = "x"', "newText": "b = 2"}]
    await _edit(tmp_path, {"path": "f.txt", "edits": edits})
    # the touched lines come from the normalized text, the untouched one keeps its spaces
    assert target.read_text(encoding="utf-8") == "a = 10\nb = 2\nc = 3  \n"


# --------------------------------------------------------------------------------------------
# writing


async def test_permission_bits_survive(tmp_path: Path) -> None:
    target = _write(tmp_path / "run.sh", "echo a\n")
    target.chmod(0o750)
    await _edit(tmp_path, {"path": "run.sh", "edits": _one("a", "b")})
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert target.read_text() == "echo b\n"


async def test_symlink_stays_a_link(tmp_path: Path) -> None:
    real = _write(tmp_path / "real.txt", "old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    await _edit(tmp_path, {"path": "link.txt", "edits": _one("old", "new")})
    assert link.is_symlink()
    assert real.read_text() == "new\n"


async def test_no_temporary_files_are_left(tmp_path: Path) -> None:
    _write(tmp_path / "f.txt", "a\n")
    await _edit(tmp_path, {"path": "f.txt", "edits": _one("a", "b")})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]


async def test_concurrent_edits_of_one_file_both_land(tmp_path: Path) -> None:
    target = _write(tmp_path / "f.txt", "".join(f"line {i}\n" for i in range(40)))
    calls = [
        _edit(tmp_path, {"path": "f.txt", "edits": _one(f"line {i}\n", f"LINE {i}\n")})
        for i in range(0, 40, 3)
    ]
    results = await asyncio.gather(*calls)
    assert all(not r.is_error for r in results)
    text = target.read_text()
    assert all(f"LINE {i}\n" in text for i in range(0, 40, 3))


async def test_cancelled_edit_holds_the_file_until_its_write_is_done(tmp_path: Path) -> None:
    target = _write(tmp_path / "f.txt", "x\n")
    first_started = threading.Event()
    release_first = threading.Event()

    def slow_first_write(path: str, text: str) -> None:
        if text == "y\n":
            first_started.set()
            release_first.wait(5)
        file_mutation.write_text_file(path, text)

    tool = EditTool(EditOperations(write_file=slow_first_write))
    ctx = ToolContext(cwd=tmp_path)
    first = asyncio.ensure_future(execute(tool, {"path": "f.txt", "edits": _one("x", "y")}, ctx))
    assert await asyncio.to_thread(first_started.wait, 5)
    first.cancel()
    # the second edit needs the first one's text: it must not read the file before that lands
    second = asyncio.ensure_future(execute(tool, {"path": "f.txt", "edits": _one("y", "z")}, ctx))
    await asyncio.sleep(0.1)
    assert not second.done()
    release_first.set()
    with pytest.raises(asyncio.CancelledError):
        await first
    assert _text(await second) == "Successfully replaced 1 block(s) in f.txt."
    assert target.read_text() == "z\n"


def _replacement(lines: int) -> tuple[str, str]:
    old_block = "".join(f"old line {i}\n" for i in range(lines))
    new_block = "".join(f"new line {i}\n" for i in range(lines))
    return old_block, new_block


@pytest.mark.timeout(60)
async def test_replacing_thousands_of_lines_is_quick_and_shown_as_one_block(
    tmp_path: Path,
) -> None:
    results: list[ToolResult] = []

    async def replace(name: str, lines: int) -> None:
        old_block, new_block = _replacement(lines)
        _write(tmp_path / name, "head\n" + old_block + "tail\n")
        results.append(await _edit(tmp_path, {"path": name, "edits": _one(old_block, new_block)}))

    # 250 lines (500 edits) are still searched for the best alignment. Past 1000 edits the
    # diff gives up and costs no more; searching every alignment of 4000 lines costs 256 times
    # as much (11 s; bench/tools_bench.py edit-4000 has the time).
    await assert_linear_growth_async(
        lambda: replace("small.txt", 250), lambda: replace("big.txt", 4000), factor=16
    )
    result = results[-1]
    assert _text(result) == "Successfully replaced 1 block(s) in big.txt."
    assert result.details is not None
    patch = result.details["patch"].split("\n")
    assert patch[:4] == ["--- big.txt", "+++ big.txt", "@@ -1,4002 +1,4002 @@", " head"]
    assert patch[4:4004] == [f"-old line {i}" for i in range(4000)]
    assert patch[4004:8004] == [f"+new line {i}" for i in range(4000)]
    assert patch[8004:] == [" tail", ""]
    assert result.details["firstChangedLine"] == 2


async def test_the_file_is_normalized_once_for_all_edits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    content = "".join(f"value_{i} = \u201cq{i}\u201d  \n" for i in range(300))
    _write(tmp_path / "f.py", content)
    whole_file_passes = 0
    normalize = edit.normalize_for_fuzzy_match

    def counting(text: str) -> str:
        nonlocal whole_file_passes
        if len(text) >= len(content) - 1:
            whole_file_passes += 1
        return normalize(text)

    monkeypatch.setattr(edit, "normalize_for_fuzzy_match", counting)
    edits = [
        {"oldText": f'value_{i} = "q{i}"', "newText": f"value_{i} = {i}"} for i in range(0, 300, 30)
    ]
    result = await _edit(tmp_path, {"path": "f.py", "edits": edits})
    assert _text(result) == "Successfully replaced 10 block(s) in f.py."
    assert whole_file_passes == 1  # was three per edit
    text = (tmp_path / "f.py").read_text()
    assert "value_30 = 30\n" in text and "value_31 = \u201cq31\u201d  \n" in text


# --------------------------------------------------------------------------------------------
# argument repairs (prepareArguments)


@pytest.mark.parametrize(
    ("given", "repaired"),
    [
        (
            {"path": "f", "edits": '[{"oldText": "a", "newText": "b"}]'},
            {"path": "f", "edits": [{"oldText": "a", "newText": "b"}]},
        ),
        (
            {"path": "f", "edits": '{"oldText": "a", "newText": "b"}'},
            {"path": "f", "edits": [{"oldText": "a", "newText": "b"}]},
        ),
        (
            {"path": "f", "edits": {"oldText": "a", "newText": "b"}},
            {"path": "f", "edits": [{"oldText": "a", "newText": "b"}]},
        ),
        (
            {"path": "f", "oldText": "a", "newText": "b"},
            {"path": "f", "edits": [{"oldText": "a", "newText": "b"}]},
        ),
        (
            {
                "path": "f",
                "edits": [{"oldText": "x", "newText": "y"}],
                "oldText": "a",
                "newText": "b",
            },
            {
                "path": "f",
                "edits": [{"oldText": "x", "newText": "y"}, {"oldText": "a", "newText": "b"}],
            },
        ),
        # not repairable: left for the schema check
        ({"path": "f", "edits": "not json"}, {"path": "f", "edits": "not json"}),
        ({"path": "f", "edits": '{"oldText": 1}'}, {"path": "f", "edits": '{"oldText": 1}'}),
        ({"path": "f", "oldText": "a"}, {"path": "f", "oldText": "a"}),
    ],
)
def test_prepare_arguments(given: dict[str, Any], repaired: dict[str, Any]) -> None:
    assert prepare_edit_arguments(json.loads(json.dumps(given))) == repaired


async def test_legacy_arguments_edit_the_file(tmp_path: Path) -> None:
    target = _write(tmp_path / "legacy.txt", "keep old value\n")
    result = await _edit(tmp_path, {"path": "legacy.txt", "oldText": "old", "newText": "new"})
    assert _text(result) == "Successfully replaced 1 block(s) in legacy.txt."
    assert target.read_text() == "keep new value\n"
    assert result.details == {
        "diff": "-1 keep old value\n+1 keep new value",
        "patch": (
            "--- legacy.txt\n+++ legacy.txt\n@@ -1,1 +1,1 @@\n-keep old value\n+keep new value\n"
        ),
        "firstChangedLine": 1,
    }


# --------------------------------------------------------------------------------------------
# schema


def _pi_parameters(name: str) -> dict[str, Any]:
    requests = json.loads((CONFORMANCE / "sp-default" / "expected-requests.json").read_text())
    tools = requests[0]["tools"]
    return next(t["function"]["parameters"] for t in tools if t["function"]["name"] == name)


def _shape(schema: Any) -> Any:
    """The schema without its descriptions, keys in their order."""
    if isinstance(schema, dict):
        return [(k, _shape(v)) for k, v in schema.items() if k != "description"]
    if isinstance(schema, list):
        return [_shape(v) for v in schema]
    return schema


def _descriptions(schema: Any) -> list[str]:
    if isinstance(schema, dict):
        own = [schema["description"]] if isinstance(schema.get("description"), str) else []
        return own + [d for v in schema.values() for d in _descriptions(v)]
    return []


def test_schema_has_pis_shape_in_our_words() -> None:
    pi = _pi_parameters("edit")
    assert _shape(edit.TOOL.parameters) == _shape(pi)
    ours = _descriptions(edit.TOOL.parameters)
    assert len(ours) == len(_descriptions(pi))
    assert not set(ours) & set(_descriptions(pi))
    assert (edit.TOOL.name, edit.TOOL.label) == ("edit", "edit")


async def test_access_error_code_comes_from_errno(tmp_path: Path) -> None:
    def read_only_file_system(path: str) -> None:
        raise OSError(errno.EROFS, "Read-only file system", path)

    tool = EditTool(EditOperations(access=read_only_file_system))
    result = await _edit(tmp_path, {"path": "f.txt", "edits": _one("a", "b")}, tool)
    assert _text(result) == "Could not edit file: f.txt. Error code: EROFS."
