"""The ``read`` tool as a model sees it: spec §2.1, the §1.9 markers and the §14.2 read cases."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import io
import json
import os
import threading
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from pi_lsp.tools import read as read_module
from pi_lsp.tools.base import (
    AbortSignal,
    ImageContent,
    TextContent,
    ToolContext,
    ToolError,
    ToolResult,
)
from pi_lsp.tools.images import MODEL_CANNOT_SEE_IMAGES, TOO_LARGE
from pi_lsp.tools.read import TOOL
from tests.conformance.pi_prose import prose_digest
from tests.growth import assert_linear_growth_async
from tests.shared_data import CONFORMANCE


async def read(cwd: Path, ctx: ToolContext | None = None, **args: Any) -> ToolResult:
    """Run ``read`` and report a failure the way the agent loop does (an error result)."""
    try:
        return await TOOL.execute(args, ctx or ToolContext(cwd=cwd))
    except ToolError as exc:
        return ToolResult.error(exc.message)


def text_of(result: ToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, TextContent)
    return first.text


def numbered(count: int, *, trailing_newline: bool) -> str:
    body = "\n".join(f"Line {i}" for i in range(1, count + 1))
    return body + "\n" if trailing_newline else body


def image_bytes(size: tuple[int, int], image_format: str, mode: str = "RGB") -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, "teal").save(out, format=image_format)
    return out.getvalue()


def decoded_size(block: ImageContent) -> tuple[int, int]:
    with Image.open(io.BytesIO(base64.b64decode(block.data))) as image:
        return image.size


# --- schema -------------------------------------------------------------------------------------


def test_schema_has_pi_names_types_and_order() -> None:
    requests = json.loads((CONFORMANCE / "sp-default" / "expected-requests.json").read_text())
    first = requests[0] if isinstance(requests, list) else requests
    body = first.get("body", first)
    pi_tool = next(t["function"] for t in body["tools"] if t["function"]["name"] == "read")
    pi_schema = pi_tool["parameters"]

    assert list(TOOL.parameters) == list(pi_schema)
    assert TOOL.parameters["required"] == pi_schema["required"]
    assert list(TOOL.parameters["properties"]) == list(pi_schema["properties"])
    for name, prop in pi_schema["properties"].items():
        assert TOOL.parameters["properties"][name]["type"] == prop["type"]
        assert list(TOOL.parameters["properties"][name]) == list(prop)
    assert (TOOL.name, TOOL.label) == ("read", "read")


def test_description_states_images_limits_and_continuation_in_own_words() -> None:
    for fact in ("jpg, png, gif, webp, bmp", "2000 lines", "50KB", "offset", "limit"):
        assert fact in TOOL.description
    requests = json.loads((CONFORMANCE / "sp-default" / "expected-requests.json").read_text())
    # the golden copy holds Pi's description as a digest: ours must differ from it
    assert prose_digest(TOOL.description) not in json.dumps(requests, ensure_ascii=False)


# --- §14.2 read bullets ---------------------------------------------------------------------------


async def test_small_file_comes_back_identical_without_details(tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("Hello, world!\nLine 2\nLine 3")
    result = await read(tmp_path, path="hello.txt")
    assert text_of(result) == "Hello, world!\nLine 2\nLine 3"
    assert result.details is None
    assert not result.is_error


async def test_2500_lines_stop_at_2000_with_a_line_marker(tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text(numbered(2500, trailing_newline=False))
    result = await read(tmp_path, path="long.txt")
    text = text_of(result)
    assert text.endswith(
        "Line 2000\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"
    )
    assert result.details is not None
    assert result.details["truncation"]["truncatedBy"] == "lines"
    assert result.details["truncation"]["outputLines"] == 2000


async def test_offset_and_limit_pick_a_window_and_say_what_is_left(tmp_path: Path) -> None:
    (tmp_path / "lines.txt").write_text(numbered(100, trailing_newline=False))
    result = await read(tmp_path, path="lines.txt", offset=41, limit=20)
    expected_lines = "\n".join(f"Line {i}" for i in range(41, 61))
    assert (
        text_of(result)
        == expected_lines + "\n\n[40 more lines in file. Use offset=61 to continue.]"
    )
    assert result.details is None


async def test_offset_beyond_the_end_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "three.txt").write_text("a\nb\nc")
    result = await read(tmp_path, path="three.txt", offset=100)
    assert result.is_error
    assert text_of(result) == "Offset 100 is beyond end of file (3 lines total)"
    assert result.details == {}


# --- the trailing newline counts as a line (spec §15.2) -------------------------------------------


async def test_trailing_newline_adds_a_line_to_markers_but_not_to_details(tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_text("".join(f"line {i}\n" for i in range(1, 3001)))
    result = await read(tmp_path, path="many.txt")
    assert text_of(result).endswith(
        "\n\n[Showing lines 1-2000 of 3001. Use offset=2001 to continue.]"
    )
    assert result.details is not None
    assert result.details["truncation"]["totalLines"] == 3000

    rest = await read(tmp_path, path="many.txt", offset=2001)
    assert text_of(rest) == "".join(f"line {i}\n" for i in range(2001, 3001))
    assert rest.details is None


async def test_limit_zero_returns_no_lines_and_points_at_the_start(tmp_path: Path) -> None:
    (tmp_path / "lines.txt").write_text(numbered(100, trailing_newline=True))
    result = await read(tmp_path, path="lines.txt", limit=0)
    assert text_of(result) == "\n\n[101 more lines in file. Use offset=1 to continue.]"


async def test_offset_zero_or_missing_reads_from_the_start(tmp_path: Path) -> None:
    (tmp_path / "abc.txt").write_text("a\nb\nc\n")
    assert text_of(await read(tmp_path, path="abc.txt", offset=0)) == "a\nb\nc\n"
    assert text_of(await read(tmp_path, path="abc.txt")) == "a\nb\nc\n"


async def test_limit_past_the_end_has_no_marker(tmp_path: Path) -> None:
    (tmp_path / "lines.txt").write_text(numbered(100, trailing_newline=False))
    result = await read(tmp_path, path="lines.txt", offset=99, limit=10)
    assert text_of(result) == "Line 99\nLine 100"


async def test_whole_number_floats_print_like_integers(tmp_path: Path) -> None:
    (tmp_path / "lines.txt").write_text(numbered(100, trailing_newline=False))
    result = await read(tmp_path, path="lines.txt", offset=41.0, limit=20.0)
    assert text_of(result).endswith("[40 more lines in file. Use offset=61 to continue.]")
    beyond = await read(tmp_path, path="lines.txt", offset=200.0)
    assert text_of(beyond) == "Offset 200 is beyond end of file (100 lines total)"


async def test_empty_file_is_one_empty_line(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_bytes(b"")
    result = await read(tmp_path, path="empty.txt")
    assert text_of(result) == ""
    assert result.details is None
    beyond = await read(tmp_path, path="empty.txt", offset=2)
    assert text_of(beyond) == "Offset 2 is beyond end of file (1 lines total)"


# --- byte limit and long lines --------------------------------------------------------------------


async def test_byte_limit_keeps_whole_lines_and_names_the_limit(tmp_path: Path) -> None:
    wide = "\n".join(f"Line {i}: " + "x" * 200 for i in range(1, 501)) + "\n"
    (tmp_path / "wide.txt").write_text(wide)
    result = await read(tmp_path, path="wide.txt")
    text = text_of(result)
    assert text.endswith(
        "\n\n[Showing lines 1-243 of 501 (50.0KB limit). Use offset=244 to continue.]"
    )
    assert text.split("\n")[242] == "Line 243: " + "x" * 200
    assert result.details is not None
    truncation = result.details["truncation"]
    assert (truncation["truncatedBy"], truncation["outputLines"]) == ("bytes", 243)
    assert truncation["outputBytes"] <= 51200


async def test_first_line_too_long_gives_only_a_sed_hint_with_the_path_as_given(
    tmp_path: Path,
) -> None:
    (tmp_path / "big.txt").write_text("x" * 60000 + "\nsecond\n")
    result = await read(tmp_path, path="./big.txt")
    assert text_of(result) == (
        "[Line 1 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '1p' ./big.txt | head -c 51200]"
    )
    assert result.details is not None
    assert result.details["truncation"]["firstLineExceedsLimit"] is True
    assert result.details["truncation"]["content"] == ""
    assert text_of(await read(tmp_path, path="big.txt", offset=2)) == "second\n"


async def test_long_line_at_the_offset_is_numbered_from_the_file_start(tmp_path: Path) -> None:
    (tmp_path / "mixed.txt").write_text("short\n" + "y" * 102400 + "\nend")
    result = await read(tmp_path, path="mixed.txt", offset=2)
    assert text_of(result) == (
        "[Line 2 is 100.0KB, exceeds 50.0KB limit. Use bash: sed -n '2p' mixed.txt | head -c 51200]"
    )


async def test_truncation_marker_wins_over_the_user_limit(tmp_path: Path) -> None:
    (tmp_path / "lines.txt").write_text(numbered(5000, trailing_newline=False))
    result = await read(tmp_path, path="lines.txt", offset=1001, limit=3000)
    text = text_of(result)
    assert text.startswith("Line 1001\n")
    assert text.endswith(
        "Line 3000\n\n[Showing lines 1001-3000 of 5000. Use offset=3001 to continue.]"
    )


# --- content is kept as the file has it ---------------------------------------------------------


async def test_crlf_line_endings_are_kept(tmp_path: Path) -> None:
    (tmp_path / "dos.txt").write_bytes(b"a\r\nb\r\n")
    assert text_of(await read(tmp_path, path="dos.txt")) == "a\r\nb\r\n"
    first = await read(tmp_path, path="dos.txt", limit=1)
    assert text_of(first) == "a\r\n\n[2 more lines in file. Use offset=2 to continue.]"


async def test_all_byte_values_decode_as_lossy_utf8(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)))
    text = text_of(await read(tmp_path, path="blob.bin"))
    assert len(text) == 256
    assert text[:128] == "".join(map(chr, range(128)))
    assert text[128:] == "\ufffd" * 128


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"\xf0\x80\x80", "\ufffd\ufffd\ufffd"),  # overlong lead: each byte on its own
        (b"\xe2\x82", "\ufffd"),  # truncated sequence: one replacement
        (b"\xed\xa0\x80", "\ufffd\ufffd\ufffd"),  # encoded surrogate
        (b"\xc0\xaf", "\ufffd\ufffd"),
        (b"\xf4\x90\x80\x80", "\ufffd" * 4),  # beyond U+10FFFF
        (b"a\xe2\x82\nb", "a\ufffd\nb"),  # a newline ends a bad sequence
        (b"\xef\xbb\xbfbom", "\ufeffbom"),  # the BOM stays, as in Node's toString
    ],
)
async def test_invalid_utf8_is_replaced_like_node(
    tmp_path: Path, raw: bytes, expected: str
) -> None:
    (tmp_path / "odd.txt").write_bytes(raw)
    assert text_of(await read(tmp_path, path="odd.txt")) == expected


async def test_replacement_characters_count_three_bytes_each(tmp_path: Path) -> None:
    (tmp_path / "ff.bin").write_bytes(b"\xff" * 20000 + b"\nok")  # 60000 bytes once decoded
    result = await read(tmp_path, path="ff.bin")
    assert text_of(result).startswith("[Line 1 is 58.6KB, exceeds 50.0KB limit.")
    assert result.details is not None
    assert result.details["truncation"]["totalBytes"] == 60003


def _rows(count: int) -> bytes:
    return b"".join(b"row %07d of a twenty megabyte file\n" % i for i in range(1, count + 1))


@pytest.mark.timeout(60)
async def test_large_file_from_line_500000_is_fast(tmp_path: Path) -> None:
    (tmp_path / "huge.txt").write_bytes(_rows(560_000))
    (tmp_path / "eighth.txt").write_bytes(_rows(70_000))
    assert (tmp_path / "huge.txt").stat().st_size > 20_000_000

    async def from_near_the_end(name: str, offset: int) -> None:
        await read(tmp_path, path=name, offset=offset, limit=3)
        await read(tmp_path, path=name, offset=offset)

    # finding line N must cost a pass over the bytes, not work per line that grows with N;
    # how many milliseconds that pass takes is bench/tools_bench.py read-w2
    await assert_linear_growth_async(
        lambda: from_near_the_end("eighth.txt", 62_500),
        lambda: from_near_the_end("huge.txt", 500_000),
        factor=8,
    )
    window = await read(tmp_path, path="huge.txt", offset=500_000, limit=3)
    rest = await read(tmp_path, path="huge.txt", offset=500_000)
    assert text_of(window) == (
        "row 0500000 of a twenty megabyte file\n"
        "row 0500001 of a twenty megabyte file\n"
        "row 0500002 of a twenty megabyte file\n\n"
        "[59999 more lines in file. Use offset=500003 to continue.]"
    )
    assert text_of(rest).endswith(
        "row 0501346 of a twenty megabyte file\n\n"
        "[Showing lines 500000-501346 of 560001 (50.0KB limit). Use offset=501347 to continue.]"
    )


# --- errors ---------------------------------------------------------------------------------------


async def test_missing_file_reports_the_node_access_error(tmp_path: Path) -> None:
    result = await read(tmp_path, path="missing.txt")
    assert result.is_error
    expected = f"ENOENT: no such file or directory, access '{tmp_path / 'missing.txt'}'"
    assert text_of(result) == expected


async def test_directory_reports_eisdir(tmp_path: Path) -> None:
    (tmp_path / "adir").mkdir()
    result = await read(tmp_path, path="adir")
    assert text_of(result) == "EISDIR: illegal operation on a directory, read"
    assert result.is_error


async def test_unreadable_file_reports_eacces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("hidden")
    secret.chmod(0)
    # root reads anything, so make the permission check answer as it would for a normal user
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    result = await read(tmp_path, path="secret.txt")
    assert text_of(result) == f"EACCES: permission denied, access '{secret}'"


async def test_path_through_a_file_reports_enotdir(tmp_path: Path) -> None:
    (tmp_path / "plain.txt").write_text("x")
    result = await read(tmp_path, path="plain.txt/inner")
    assert (
        text_of(result) == f"ENOTDIR: not a directory, access '{tmp_path / 'plain.txt' / 'inner'}'"
    )


async def test_file_vanishing_after_the_check_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "fleeting.txt"
    target.write_text("here for a moment")
    check = read_module._check_readable

    def check_then_delete(absolute: str) -> None:
        check(absolute)
        os.remove(absolute)

    monkeypatch.setattr(read_module, "_check_readable", check_then_delete)
    result = await read(tmp_path, path="fleeting.txt")
    assert result.is_error
    assert text_of(result) == f"ENOENT: no such file or directory, open '{target}'"


def _release_a_blocked_reader(fifo: Path) -> None:
    """Let a reader stuck opening ``fifo`` go on (to EOF), so no thread hangs for ever."""
    with contextlib.suppress(OSError):  # nobody is waiting to read
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


async def test_named_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    try:
        result = await asyncio.wait_for(read(tmp_path, path="pipe"), 5)
    finally:
        _release_a_blocked_reader(fifo)
    assert result.is_error
    assert text_of(result) == f"Not a regular file: {fifo} (named pipe)"


async def test_endless_device_is_refused(tmp_path: Path) -> None:
    result = await asyncio.wait_for(read(tmp_path, path="/dev/zero"), 5)
    assert result.is_error
    assert text_of(result) == "Not a regular file: /dev/zero (character device)"


async def test_file_over_2_gib_is_refused_like_node(tmp_path: Path) -> None:
    huge = tmp_path / "huge.log"
    with huge.open("wb") as handle:
        handle.truncate(2**31)  # sparse: one byte over Node's limit
    result = await asyncio.wait_for(read(tmp_path, path="huge.log"), 30)
    assert result.is_error
    assert text_of(result) == "File size (2147483648) is greater than 2 GiB"


async def test_file_of_size_zero_in_proc_is_still_read(tmp_path: Path) -> None:
    # regular files whose size says 0 (procfs) are read to their end, as Node does
    result = await read(tmp_path, path="/proc/self/status")
    assert not result.is_error
    assert text_of(result).startswith("Name:")


async def test_already_aborted_call_does_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a")
    signal = AbortSignal()
    signal.abort()
    result = await read(tmp_path, ToolContext(cwd=tmp_path, signal=signal), path="a.txt")
    assert text_of(result) == "Operation aborted"


@pytest.mark.timeout(30)
async def test_abort_during_a_slow_read_returns_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.txt").write_text("a")
    signal = AbortSignal()
    loop = asyncio.get_running_loop()
    release, loaded = threading.Event(), threading.Event()

    def stuck_load(absolute: str) -> bytes:
        loop.call_soon_threadsafe(signal.abort)  # the user aborts while the file is being read
        release.wait(5)  # a stuck network share; a read that waits for it answers after 5 s
        loaded.set()
        return b"a"

    monkeypatch.setattr(read_module, "_load", stuck_load)
    try:
        result = await read(tmp_path, ToolContext(cwd=tmp_path, signal=signal), path="a.txt")
        assert text_of(result) == "Operation aborted"
        assert not loaded.is_set(), "the abort was answered only after the read had finished"
    finally:
        release.set()


# --- paths ----------------------------------------------------------------------------------------


async def test_at_prefix_is_dropped(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("from @")
    assert text_of(await read(tmp_path, path="@notes.txt")) == "from @"


async def test_tilde_is_the_home_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "home.txt").write_text("at home")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert text_of(await read(elsewhere, path="~/home.txt")) == "at home"


async def test_unicode_spaces_match_plain_spaces(tmp_path: Path) -> None:
    (tmp_path / "my file.txt").write_text("spaced")
    assert text_of(await read(tmp_path, path="my\u00a0file.txt")) == "spaced"
    assert text_of(await read(tmp_path, path="my\u3000file.txt")) == "spaced"


async def test_macos_screenshot_name_with_narrow_no_break_space(tmp_path: Path) -> None:
    name = "Screenshot 2024-05-01 at 10.15.32\u202fAM.png"
    (tmp_path / name).write_bytes(image_bytes((4, 3), "PNG"))
    result = await read(tmp_path, path="Screenshot 2024-05-01 at 10.15.32 AM.png")
    assert text_of(result).startswith("Read image file [image/png]")


async def test_nfd_and_curly_apostrophe_spellings_are_found(tmp_path: Path) -> None:
    (tmp_path / unicodedata.normalize("NFD", "café.txt")).write_text("decomposed")
    (tmp_path / "it\u2019s.txt").write_text("curly")
    assert text_of(await read(tmp_path, path="café.txt")) == "decomposed"
    assert text_of(await read(tmp_path, path="it's.txt")) == "curly"


async def test_absolute_path_ignores_cwd(tmp_path: Path) -> None:
    (tmp_path / "abs.txt").write_text("absolute")
    other = tmp_path / "sub"
    other.mkdir()
    assert text_of(await read(other, path=str(tmp_path / "abs.txt"))) == "absolute"


# --- images ---------------------------------------------------------------------------------------


async def test_png_for_a_text_only_model_carries_the_omission_note(tmp_path: Path) -> None:
    png = image_bytes((2, 2), "PNG")
    (tmp_path / "tiny.png").write_bytes(png)
    result = await read(tmp_path, path="tiny.png")
    assert text_of(result) == f"Read image file [image/png]\n{MODEL_CANNOT_SEE_IMAGES}"
    image = result.content[1]
    assert isinstance(image, ImageContent)
    assert image.mime_type == "image/png"
    assert base64.b64decode(image.data) == png  # small enough: sent untouched
    assert result.details is None


async def test_image_for_a_vision_model_has_no_note(tmp_path: Path) -> None:
    (tmp_path / "tiny.png").write_bytes(image_bytes((2, 2), "PNG"))
    ctx = ToolContext(cwd=tmp_path, model_supports_images=True)
    result = await read(tmp_path, ctx, path="tiny.png")
    assert text_of(result) == "Read image file [image/png]"
    assert len(result.content) == 2


@pytest.mark.parametrize(
    ("image_format", "mime_type"),
    [("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")],
)
async def test_inline_formats_are_kept(tmp_path: Path, image_format: str, mime_type: str) -> None:
    (tmp_path / "pic").write_bytes(image_bytes((8, 6), image_format))
    result = await read(tmp_path, ToolContext(cwd=tmp_path, model_supports_images=True), path="pic")
    assert text_of(result) == f"Read image file [{mime_type}]"
    image = result.content[1]
    assert isinstance(image, ImageContent)
    assert (image.mime_type, decoded_size(image)) == (mime_type, (8, 6))


async def test_content_decides_not_the_extension(tmp_path: Path) -> None:
    (tmp_path / "image-bytes.txt").write_bytes(image_bytes((2, 2), "PNG"))
    (tmp_path / "not-an-image.png").write_text("plain text in a .png file\n")
    image = await read(tmp_path, path="image-bytes.txt")
    assert text_of(image).startswith("Read image file [image/png]")
    text = await read(tmp_path, path="not-an-image.png")
    assert text_of(text) == "plain text in a .png file\n"
    assert len(text.content) == 1


async def test_bmp_is_converted_to_png_with_a_hint(tmp_path: Path) -> None:
    (tmp_path / "pic.bmp").write_bytes(image_bytes((2, 2), "BMP"))
    result = await read(tmp_path, path="pic.bmp")
    assert text_of(result) == (
        "Read image file [image/png]\n"
        "[Image converted from image/bmp to image/png.]\n"
        f"{MODEL_CANNOT_SEE_IMAGES}"
    )
    image = result.content[1]
    assert isinstance(image, ImageContent)
    assert (image.mime_type, decoded_size(image)) == ("image/png", (2, 2))


async def test_wide_image_is_scaled_into_the_box(tmp_path: Path) -> None:
    (tmp_path / "wide.png").write_bytes(image_bytes((3000, 40), "PNG"))
    result = await read(tmp_path, path="wide.png")
    assert text_of(result) == (
        "Read image file [image/png]\n"
        "[Image: original 3000x40, displayed at 2000x27. "
        "Multiply coordinates by 1.50 to map to original image.]\n"
        f"{MODEL_CANNOT_SEE_IMAGES}"
    )
    image = result.content[1]
    assert isinstance(image, ImageContent)
    assert decoded_size(image) == (2000, 27)


async def test_tall_image_is_scaled_by_its_height(tmp_path: Path) -> None:
    (tmp_path / "tall.gif").write_bytes(image_bytes((1000, 5000), "GIF", mode="P"))
    ctx = ToolContext(cwd=tmp_path, model_supports_images=True)
    result = await read(tmp_path, ctx, path="tall.gif")
    assert text_of(result) == (
        "Read image file [image/png]\n"
        "[Image: original 1000x5000, displayed at 400x2000. "
        "Multiply coordinates by 2.50 to map to original image.]"
    )


async def test_resizing_can_be_turned_off(tmp_path: Path) -> None:
    (tmp_path / "wide.png").write_bytes(image_bytes((3000, 40), "PNG"))
    ctx = ToolContext(cwd=tmp_path, model_supports_images=True, auto_resize_images=False)
    result = await read(tmp_path, ctx, path="wide.png")
    assert text_of(result) == "Read image file [image/png]"
    image = result.content[1]
    assert isinstance(image, ImageContent)
    assert decoded_size(image) == (3000, 40)


async def test_undecodable_png_is_omitted_with_a_reason(tmp_path: Path) -> None:
    header = image_bytes((4, 4), "PNG")[:33]  # signature and IHDR only
    broken = header + b"\x00\x00\x00\x10IDAT" + b"not zlib data!!!" + b"\x00\x00\x00\x00"
    (tmp_path / "broken.png").write_bytes(broken)
    result = await read(tmp_path, path="broken.png")
    assert text_of(result) == f"Read image file [image/png]\n{TOO_LARGE}\n{MODEL_CANNOT_SEE_IMAGES}"
    assert len(result.content) == 1
    assert not result.is_error


async def test_animated_png_is_read_as_text(tmp_path: Path) -> None:
    frames = [Image.new("RGB", (4, 4), color) for color in ("red", "blue")]
    out = io.BytesIO()
    frames[0].save(out, format="PNG", save_all=True, append_images=frames[1:])
    (tmp_path / "anim.png").write_bytes(out.getvalue())
    result = await read(tmp_path, path="anim.png")
    assert len(result.content) == 1
    assert not text_of(result).startswith("Read image file")
