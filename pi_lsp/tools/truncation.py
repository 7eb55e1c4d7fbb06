"""Head, tail and line truncation of tool output, as Pi 0.85.0 bounds what a model sees.

Both limits apply at once (lines and UTF-8 bytes); whichever is hit first wins. The cores work on
UTF-8 bytes and only look at the region they keep, so truncating a 100 MB output costs a newline
count plus a bounded scan at one end (see ``docs/benchmarks.md``). The ``str`` entry points encode
once and delegate.

Line counting follows Pi: split on ``"\\n"``; an empty input has no lines; a trailing newline does
not open a line; ``"\\r"`` is an ordinary character.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from pi_lsp.js.text import utf16_len

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500

TruncatedBy = Literal["lines", "bytes"]

_NL = 0x0A


@dataclass(frozen=True, slots=True)
class TruncationResult:
    """What was kept of an output and why; field names mirror Pi's ``TruncationResult``."""

    content: str
    truncated: bool
    truncated_by: TruncatedBy | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool
    first_line_exceeds_limit: bool
    max_lines: int
    max_bytes: int

    def to_json(self) -> dict[str, Any]:
        """The object as Pi writes it into tool-result details (camelCase, all fields)."""
        return {
            "content": self.content,
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "lastLinePartial": self.last_line_partial,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "maxLines": self.max_lines,
            "maxBytes": self.max_bytes,
        }


# --- measuring -----------------------------------------------------------------------------------


def encode_utf8(text: str) -> bytes:
    """UTF-8 bytes of ``text``; a lone surrogate costs three bytes, as in Node's Buffer."""
    return text.encode("utf-8", "surrogatepass")


def decode_utf8(data: bytes | bytearray | memoryview) -> str:
    """Inverse of :func:`encode_utf8` for bytes that came from it (or any valid UTF-8)."""
    return bytes(data).decode("utf-8", "surrogatepass")


def utf8_len(text: str) -> int:
    """Byte length of ``text`` in UTF-8 (Node ``Buffer.byteLength``)."""
    if text.isascii():
        return len(text)
    return len(encode_utf8(text))


def count_lines(data: bytes | bytearray) -> int:
    """Pi's line count: zero for empty input, a trailing newline does not open a line."""
    if not data:
        return 0
    n = data.count(b"\n")
    return n if data[-1] == _NL else n + 1


def is_continuation_byte(byte: int) -> bool:
    return byte & 0xC0 == 0x80


def utf8_safe_suffix_start(data: bytes | bytearray | memoryview, max_bytes: int) -> int:
    """Offset of the longest suffix of ``data`` that fits ``max_bytes`` and starts a character."""
    start = max(0, len(data) - max_bytes)
    while start < len(data) and is_continuation_byte(data[start]):
        start += 1
    return start


#: Validation decodes this much at a time: the decoded piece stays in the CPU cache, which
#: makes a 64 KiB chunk of mixed text about 2.4 times faster to check than in one go.
_VALIDATION_SLICE = 16 * 1024


def is_valid_utf8(data: bytes | bytearray | memoryview) -> bool:
    """Whether ``data`` is well-formed UTF-8, without keeping the decoded text."""
    if not isinstance(data, memoryview) and data.isascii():
        return True
    size = len(data)
    if size <= _VALIDATION_SLICE:
        try:
            codecs.utf_8_decode(data, "strict", True)
        except UnicodeDecodeError:
            return False
        return True
    view = memoryview(data)
    start = 0
    try:
        while start < size:
            end = min(size, start + _VALIDATION_SLICE)
            if end < size:
                # end the slice on a character boundary (an invalid tail fails below anyway)
                cut = complete_utf8_prefix_len(view[start:end])
                end = start + cut if cut else end
            codecs.utf_8_decode(view[start:end], "strict", True)
            start = end
    except UnicodeDecodeError:
        return False
    return True


def complete_utf8_prefix_len(data: bytes | bytearray | memoryview) -> int:
    """Length of ``data`` without a trailing character whose bytes are still incomplete."""
    end = len(data)
    index = end - 1
    # At most three continuation bytes can trail a lead byte.
    while index >= 0 and end - index <= 4 and is_continuation_byte(data[index]):
        index -= 1
    if index < 0 or end - index > 4:
        return end
    lead = data[index]
    needed = (
        2
        if 0xC2 <= lead <= 0xDF
        else 3
        if 0xE0 <= lead <= 0xEF
        else 4
        if 0xF0 <= lead <= 0xF4
        else 1
    )
    return index if end - index < needed else end


def format_size(num_bytes: int) -> str:
    """``0B``, ``1023B``, ``1.0KB``, ``50.0KB``, ``1.0MB``, rounded as JavaScript's toFixed(1)."""
    if num_bytes < 1024:
        return f"{num_bytes}B"
    if num_bytes < 1024 * 1024:
        return f"{_to_fixed_1(num_bytes / 1024)}KB"
    return f"{_to_fixed_1(num_bytes / (1024 * 1024))}MB"


def _to_fixed_1(value: float) -> str:
    # Decimal(value) is the exact binary value, as toFixed rounds it.
    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


# --- head ----------------------------------------------------------------------------------------


def truncate_head(
    text: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the beginning of ``text``: whole lines only, never a partial one."""
    data = encode_utf8(text)
    if len(data) <= max_bytes and count_lines(data) <= max_lines:
        return _untouched(text, data, max_lines, max_bytes)
    return truncate_head_bytes(data, max_lines, max_bytes)


def truncate_head_bytes(
    data: bytes, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """:func:`truncate_head` over UTF-8 bytes (``content`` is decoded from the kept bytes)."""
    total_lines = count_lines(data)
    total_bytes = len(data)
    if total_bytes <= max_bytes and total_lines <= max_lines:
        return _untouched(decode_utf8(data), data, max_lines, max_bytes)

    first_end = data.find(b"\n")
    first_len = total_bytes if first_end < 0 else first_end
    if first_len > max_bytes:
        return TruncationResult(
            content="",
            truncated=True,
            truncated_by="bytes",
            total_lines=total_lines,
            total_bytes=total_bytes,
            output_lines=0,
            output_bytes=0,
            last_line_partial=False,
            first_line_exceeds_limit=True,
            max_lines=max_lines,
            max_bytes=max_bytes,
        )

    # Lines live in data[:body_end]; a final newline closes the last line, it opens none.
    body_end = total_bytes - 1 if data.endswith(b"\n") else total_bytes
    # The kept region is data[:end]; it can never end past max_bytes, so no search looks further.
    window_end = min(body_end, max_bytes + 1)
    kept = 0
    end = 0
    pos = 0
    truncated_by: TruncatedBy = "lines"
    while kept < max_lines:
        nl = data.find(b"\n", pos, window_end)
        if nl >= 0:
            line_end = nl
        elif window_end == body_end:
            line_end = body_end
        else:
            truncated_by = "bytes"
            break
        if line_end > max_bytes:
            truncated_by = "bytes"
            break
        kept += 1
        end = line_end
        if line_end == body_end:
            break
        pos = line_end + 1
    content = data[:end]
    return TruncationResult(
        content=decode_utf8(content),
        truncated=True,
        truncated_by=truncated_by,
        total_lines=total_lines,
        total_bytes=total_bytes,
        output_lines=kept,
        output_bytes=len(content),
        last_line_partial=False,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


# --- tail ----------------------------------------------------------------------------------------


def truncate_tail(
    text: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the end of ``text``; a single line longer than the budget keeps its UTF-8-safe end."""
    data = encode_utf8(text)
    if len(data) <= max_bytes and count_lines(data) <= max_lines:
        return _untouched(text, data, max_lines, max_bytes)
    return truncate_tail_bytes(data, max_lines, max_bytes)


def truncate_tail_bytes(
    data: bytes | bytearray,
    max_lines: int = DEFAULT_MAX_LINES,
    max_bytes: int = DEFAULT_MAX_BYTES,
    *,
    total_lines: int | None = None,
) -> TruncationResult:
    """:func:`truncate_tail` over UTF-8 bytes.

    ``total_lines`` may be passed when the caller already counted them (the accumulator does).
    """
    if total_lines is None:
        total_lines = count_lines(data)
    total_bytes = len(data)
    if total_bytes <= max_bytes and total_lines <= max_lines:
        return _untouched(decode_utf8(data), bytes(data), max_lines, max_bytes)

    body_end = total_bytes - 1 if total_bytes and data[-1] == _NL else total_bytes
    # The kept region is data[start:body_end]. A line fits when the region that includes it stays
    # within max_bytes, so its newline can sit no earlier than ``lowest``: searches stop there.
    lowest = max(0, body_end - max_bytes - 1)
    kept = 0
    start = body_end
    line_end = body_end
    truncated_by: TruncatedBy = "lines"
    partial = False
    while kept < max_lines:
        nl = data.rfind(b"\n", lowest, line_end)
        line_start = nl + 1
        if body_end - line_start > max_bytes or (nl < 0 and lowest > 0):
            truncated_by = "bytes"
            if kept == 0:
                # Not even the last line fits: keep its end, cut at a character boundary.
                start = utf8_safe_suffix_start(memoryview(data)[:line_end], max_bytes)
                kept = 1
                partial = True
            break
        kept += 1
        start = line_start
        if nl < 0:
            break
        line_end = nl
    content = bytes(data[start:body_end])
    return TruncationResult(
        content=decode_utf8(content),
        truncated=True,
        truncated_by=truncated_by,
        total_lines=total_lines,
        total_bytes=total_bytes,
        output_lines=kept,
        output_bytes=len(content),
        last_line_partial=partial,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


# --- single lines --------------------------------------------------------------------------------

TRUNCATED_LINE_SUFFIX = "... [truncated]"


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> tuple[str, bool]:
    """Cut ``line`` to ``max_chars`` UTF-16 units (grep); returns the text and whether it was cut.

    Where the cut splits a surrogate pair, the orphaned half becomes U+FFFD, which is what reaches
    the model once Pi's text is encoded as UTF-8.
    """
    if len(line) <= max_chars // 2 or utf16_len(line) <= max_chars:
        return line, False
    units = line.encode("utf-16-le", "surrogatepass")[: 2 * max_chars]
    head = units.decode("utf-16-le", "replace")
    return head + TRUNCATED_LINE_SUFFIX, True


def _untouched(
    text: str, data: bytes | bytearray, max_lines: int, max_bytes: int
) -> TruncationResult:
    lines = count_lines(data)
    return TruncationResult(
        content=text,
        truncated=False,
        truncated_by=None,
        total_lines=lines,
        total_bytes=len(data),
        output_lines=lines,
        output_bytes=len(data),
        last_line_partial=False,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )
