"""The ``read`` tool: a file's text (or a window of its lines) or an image, as Pi 0.85.0 returns it.

Text is decoded as lossy UTF-8 and cut by :func:`truncate_head_bytes`; markers tell the model how
to continue. Lines for ``of N`` and ``more lines`` come from a plain split on ``"\\n"``, so a final
newline counts as one more line (spec §15.2), while ``details.truncation`` counts as the truncation
core does. The work happens on bytes: finding line 500,000 of a large file is a newline count in C,
and only the selected region is copied and checked.
"""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import Awaitable
from typing import Any, TypeVar

from pi_lsp.js.json import js_number
from pi_lsp.tools.base import (
    ABORTED_MESSAGE,
    AbortSignal,
    Content,
    TextContent,
    ToolContext,
    ToolError,
    ToolResult,
)
from pi_lsp.tools.images import (
    MODEL_CANNOT_SEE_IMAGES,
    SNIFF_BYTES,
    OmittedImage,
    prepare_image,
    sniff_image_mime,
)
from pi_lsp.tools.node_errors import node_error_message, read_regular_file
from pi_lsp.tools.paths import resolve_read_path
from pi_lsp.tools.truncation import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    is_valid_utf8,
    truncate_head_bytes,
)

Number = int | float
_T = TypeVar("_T")

DESCRIPTION = (
    "Show what a file contains. Works for text and for images (jpg, png, gif, webp, bmp); an "
    "image is returned as an attachment. Text output stops after "
    f"{DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB, whichever limit is reached "
    "first. For large files pass offset/limit to pick a range of lines; to see everything, keep "
    "reading from the offset the output suggests until the end."
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "required": ["path"],
    "properties": {
        "path": {
            "type": "string",
            "description": "File to read, either absolute or relative to the working directory",
        },
        "offset": {
            "type": "number",
            "description": "First line to return, counting from 1",
        },
        "limit": {
            "type": "number",
            "description": "Largest number of lines to return",
        },
    },
}


class ReadTool:
    """Pi's built-in ``read``."""

    name = "read"
    label = "read"
    description = DESCRIPTION
    parameters = PARAMETERS

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        return args

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        ctx.check_aborted()
        return await _unless_aborted(_read(args, ctx), ctx.signal)


TOOL = ReadTool()


async def _read(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    path: str = args["path"]
    absolute = resolve_read_path(path, ctx.cwd)
    data = await asyncio.to_thread(_load, absolute)
    mime_type = sniff_image_mime(data[:SNIFF_BYTES])
    if mime_type is None:
        return await asyncio.to_thread(
            text_result, data, path, args.get("offset"), args.get("limit")
        )
    return await _image_result(data, mime_type, ctx)


# --- files ----------------------------------------------------------------------------------------


def _load(absolute: str) -> bytes:
    """Check that the file is readable (as Node's ``access(R_OK)``), then read all of it.

    Directories fail as Node's ``readFile`` does; pipes, sockets, devices and files over 2 GiB
    are refused instead of blocking or exhausting memory.
    """
    _check_readable(absolute)
    return read_regular_file(absolute)


def _check_readable(absolute: str) -> None:
    try:
        os.stat(absolute)
    except OSError as exc:
        raise ToolError(node_error_message(exc, "access", absolute)) from exc
    if not os.access(absolute, os.R_OK):
        denied = PermissionError(errno.EACCES, "permission denied")
        raise ToolError(node_error_message(denied, "access", absolute))


# --- images ---------------------------------------------------------------------------------------


async def _image_result(data: bytes, mime_type: str, ctx: ToolContext) -> ToolResult:
    prepared = await prepare_image(data, mime_type, auto_resize=ctx.auto_resize_images)
    model_note = () if ctx.model_supports_images else (MODEL_CANNOT_SEE_IMAGES,)
    if isinstance(prepared, OmittedImage):
        lines = (f"Read image file [{mime_type}]", prepared.message, *model_note)
        return ToolResult.text("\n".join(lines))
    lines = (f"Read image file [{prepared.mime_type}]", *prepared.hints, *model_note)
    content: tuple[Content, ...] = (TextContent("\n".join(lines)), prepared.content())
    return ToolResult(content=content)


# --- text -----------------------------------------------------------------------------------------


def text_result(data: bytes, path: str, offset: Number | None, limit: Number | None) -> ToolResult:
    """What ``read`` returns for a file's bytes that are not an image.

    ``path`` is echoed, as given, in the notice for an over-long first line.
    """
    total = data.count(b"\n") + 1  # a plain split: a final newline adds an empty "line"
    start: Number = max(0, offset - 1) if offset else 0
    if start >= total:
        raise ToolError(
            f"Offset {js_number(offset or 0)} is beyond end of file ({total} lines total)"
        )
    taken: Number | None = None
    stop = total
    if limit is not None:
        end = min(start + limit, total)
        taken = end - start
        stop = _slice_index(end, total)
    region = _lossless_or_replaced(_lines(data, _slice_index(start, total), stop, total))
    truncation = truncate_head_bytes(region)
    first_shown = start + 1

    if truncation.first_line_exceeds_limit:
        return ToolResult.text(
            _long_line_notice(first_shown, _first_line_bytes(region), path),
            {"truncation": truncation.to_json()},
        )
    if truncation.truncated:
        text = truncation.content + _continuation_marker(truncation, first_shown, total)
        return ToolResult.text(text, {"truncation": truncation.to_json()})
    if taken is not None and start + taken < total:
        remaining = total - (start + taken)
        next_offset = start + taken + 1
        return ToolResult.text(
            f"{truncation.content}\n\n[{js_number(remaining)} more lines in file. "
            f"Use offset={js_number(next_offset)} to continue.]"
        )
    return ToolResult.text(truncation.content)


def _long_line_notice(line: Number, line_bytes: int, path: str) -> str:
    line_text = js_number(line)
    return (
        f"[Line {line_text} is {format_size(line_bytes)}, exceeds {format_size(DEFAULT_MAX_BYTES)} "
        f"limit. Use bash: sed -n '{line_text}p' {path} | head -c {DEFAULT_MAX_BYTES}]"
    )


def _continuation_marker(truncation: TruncationResult, first_shown: Number, total: int) -> str:
    last_shown = first_shown + truncation.output_lines - 1
    why = "" if truncation.truncated_by == "lines" else f" ({format_size(DEFAULT_MAX_BYTES)} limit)"
    return (
        f"\n\n[Showing lines {js_number(first_shown)}-{js_number(last_shown)} of {total}{why}. "
        f"Use offset={js_number(last_shown + 1)} to continue.]"
    )


def _lines(data: bytes, first: int, stop: int, total: int) -> bytes:
    """Lines ``first`` up to ``stop`` (exclusive) of a plain split, joined by their newlines."""
    if stop <= first:
        return b""
    begin = _skip_lines(data, first)
    if stop == total:
        return data[begin:]
    return data[begin : _skip_lines(data, stop - first, begin) - 1]


_SCAN_CHUNK = 1 << 16


def _skip_lines(data: bytes, count: int, pos: int = 0) -> int:
    """Offset just past the ``count``-th newline from ``pos`` (the caller knows there are enough).

    Whole chunks are counted in C; only the chunk holding the target is walked newline by newline.
    """
    while count:
        chunk_end = min(len(data), pos + _SCAN_CHUNK)
        in_chunk = data.count(b"\n", pos, chunk_end)
        if in_chunk < count:
            count -= in_chunk
            pos = chunk_end
            continue
        for _ in range(count):
            pos = data.index(b"\n", pos, chunk_end) + 1
        count = 0
    return pos


def _lossless_or_replaced(region: bytes) -> bytes:
    """``region`` if it is valid UTF-8, else its lossy decoding (U+FFFD per bad run) re-encoded.

    Python's ``"replace"`` handler substitutes maximal invalid subparts, as WHATWG decoders (Node's
    ``buffer.toString("utf-8")``) do. A newline never belongs to a bad sequence, so decoding a
    region of lines gives the same text as decoding the whole file and splitting it.
    """
    if is_valid_utf8(region):
        return region
    return region.decode("utf-8", "replace").encode("utf-8")


def _first_line_bytes(region: bytes) -> int:
    newline = region.find(b"\n")
    return len(region) if newline < 0 else newline


def _slice_index(index: Number, length: int) -> int:
    """An index as JavaScript's ``slice`` reads it: truncated, negative counts from the end."""
    whole = int(index)
    if whole < 0:
        return max(0, length + whole)
    return min(whole, length)


# --- abort ----------------------------------------------------------------------------------------


async def _unless_aborted(work: Awaitable[_T], signal: AbortSignal | None) -> _T:
    """Await ``work``, but give up with ``Operation aborted`` as soon as ``signal`` fires."""
    if signal is None:
        return await work
    task = asyncio.ensure_future(work)
    aborted = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({task, aborted}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        aborted.cancel()
        if not task.done():
            task.cancel()
    if signal.aborted:
        if task.done() and not task.cancelled():
            task.exception()  # the abort is what the caller hears; mark any failure as seen
        raise ToolError(ABORTED_MESSAGE)
    return task.result()
