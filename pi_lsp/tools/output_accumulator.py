"""Bounded capture of a command's output stream, with the whole of it spilled to a file.

Raw byte chunks arrive as the process writes them (a chunk may end inside a UTF-8 sequence or
between ``\\r`` and ``\\n``). The accumulator keeps counters over everything, a rolling tail of at
most ``4 × max_bytes`` decoded bytes in memory, and — once a limit is passed — a file in the temp
dir that receives every raw byte. Memory does not grow with the size of the output.

The model sees :meth:`OutputAccumulator.snapshot`: the tail cut by :func:`truncate_tail_bytes`,
with totals taken from the global counters (spec §1.10.1). Two Pi 0.85.0 defects are corrected
(spec §15.1): the size reported for a last line that ends in a newline is that line's real size,
and a last line longer than the rolling tail keeps its end instead of vanishing.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import tempfile
from dataclasses import dataclass

from pi_lsp.tools.node_errors import node_error_message
from pi_lsp.tools.truncation import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    complete_utf8_prefix_len,
    count_lines,
    decode_utf8,
    is_valid_utf8,
    truncate_tail_bytes,
    utf8_safe_suffix_start,
)

_NL = 0x0A

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class OutputSnapshot:
    """The model's view of the output so far."""

    truncation: TruncationResult
    #: size in bytes of the line the kept text ends in (the marker's ``line is …``)
    last_line_bytes: int
    #: the file holding every raw byte, once one exists
    full_output_path: str | None
    #: why the output could not be saved to a file (the file is then gone), else None
    spill_error: str | None = None


class OutputAccumulator:
    """Collects a byte stream within fixed memory; see the module docstring."""

    def __init__(
        self,
        max_lines: int = DEFAULT_MAX_LINES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        spill_prefix: str = "pi-output",
        temp_dir: str | None = None,
    ) -> None:
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self.max_rolling_bytes = max(2 * max_bytes, 1)
        self._spill_prefix = spill_prefix
        self._temp_dir = temp_dir
        self._pending = b""  # the start of a character whose remaining bytes have not arrived
        self._tail = bytearray()  # decoded output re-encoded: always valid UTF-8
        self._tail_at_line_start = True
        self._held_chunks: list[bytes] = []  # raw chunks not yet in a spill file
        self._spill_fd: int | None = None
        self.full_output_path: str | None = None
        #: set when the spill file could not be created or written; spilling then stops
        self.spill_error: str | None = None
        self.total_raw_bytes = 0
        self.total_decoded_bytes = 0
        self.completed_lines = 0
        self._open_line_bytes = 0  # bytes after the last newline
        self._last_closed_line_bytes = 0  # bytes of the line the last newline ended

    # --- counters ----------------------------------------------------------------------------

    @property
    def total_lines(self) -> int:
        return self.completed_lines + (1 if self._open_line_bytes else 0)

    @property
    def limit_exceeded(self) -> bool:
        return (
            self.total_raw_bytes > self.max_bytes
            or self.total_decoded_bytes > self.max_bytes
            or self.total_lines > self.max_lines
        )

    @property
    def truncated(self) -> bool:
        return self.total_lines > self.max_lines or self.total_decoded_bytes > self.max_bytes

    @property
    def last_line_bytes(self) -> int:
        """Size of the last line: the open one, else the one the final newline closed."""
        return self._open_line_bytes if self._open_line_bytes else self._last_closed_line_bytes

    # --- input -------------------------------------------------------------------------------

    def append(self, chunk: bytes, want_text: bool = True) -> str:
        """Take one raw chunk; returns the text it completes (for live display).

        With ``want_text=False`` the chunk is only validated, which is cheaper, and "" is
        returned.
        """
        if not chunk:
            return ""
        stream = self._pending + chunk if self._pending else chunk
        complete = complete_utf8_prefix_len(stream)
        self._pending = stream[complete:]
        whole = stream[:complete] if complete < len(stream) else stream
        text = ""
        try:
            if want_text:
                text = whole.decode("utf-8")
            elif not is_valid_utf8(whole):
                raise UnicodeDecodeError("utf-8", whole, 0, 1, "invalid")
            encoded = whole  # valid input decodes and re-encodes to itself
        except UnicodeDecodeError:
            text = whole.decode("utf-8", "replace")
            encoded = text.encode("utf-8")
            if not want_text:
                text = ""
        self.total_raw_bytes += len(chunk)
        self._take_decoded(encoded)
        if self._spill_fd is not None or self.limit_exceeded:
            self._ensure_spill_file()
            self._write_spill(chunk)
        elif self.spill_error is None:
            self._held_chunks.append(chunk)
        return text

    def finish(self) -> str:
        """End of stream: an unfinished character becomes U+FFFD; returns that text.

        The spill file, if the output needs one, is made by ``snapshot(persist_if_truncated)``.
        """
        text = self._pending.decode("utf-8", "replace")
        self._pending = b""
        if text:
            self._take_decoded(text.encode("utf-8"))
        return text

    def _take_decoded(self, encoded: bytes) -> None:
        if not encoded:
            return
        self.total_decoded_bytes += len(encoded)
        newlines = encoded.count(b"\n")
        if newlines:
            last = encoded.rfind(b"\n")
            if newlines == 1:
                self._last_closed_line_bytes = self._open_line_bytes + last
            else:
                self._last_closed_line_bytes = last - encoded.rfind(b"\n", 0, last) - 1
            self.completed_lines += newlines
            self._open_line_bytes = len(encoded) - last - 1
        else:
            self._open_line_bytes += len(encoded)
        self._tail += encoded
        if len(self._tail) > 2 * self.max_rolling_bytes:
            self._trim_tail()

    def _trim_tail(self) -> None:
        cut = utf8_safe_suffix_start(self._tail, self.max_rolling_bytes)
        self._tail_at_line_start = self._tail[cut - 1] == _NL
        del self._tail[:cut]

    # --- spill file --------------------------------------------------------------------------

    def _ensure_spill_file(self) -> None:
        if self.full_output_path is not None or self.spill_error is not None:
            return
        directory = self._temp_dir or tempfile.gettempdir()
        while True:
            path = os.path.join(directory, f"{self._spill_prefix}-{secrets.token_hex(8)}.log")
            try:
                self._spill_fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                break
            except FileExistsError:
                continue
            except OSError as exc:
                self._give_up_spilling(node_error_message(exc, "open", path))
                return
        self.full_output_path = path
        held, self._held_chunks = self._held_chunks, []
        for chunk in held:
            self._write_spill(chunk)

    def _write_spill(self, chunk: bytes) -> None:
        if self._spill_fd is None:
            return  # closed (the stream is over) or given up
        view = memoryview(chunk)
        try:
            while view:
                written = os.write(self._spill_fd, view)
                view = view[written:]
        except OSError as exc:
            self._give_up_spilling(node_error_message(exc, "write", None))

    def _give_up_spilling(self, reason: str) -> None:
        """Stop saving the output (the disk is full, the temp dir is gone …); keep counting.

        An incomplete file is removed rather than offered as the full output.
        """
        log.warning("cannot save the full output: %s", reason)
        self.spill_error = reason
        self._held_chunks = []
        if self._spill_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._spill_fd)
            self._spill_fd = None
        if self.full_output_path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.full_output_path)
            self.full_output_path = None

    def close(self) -> None:
        """Close the spill file (it stays on disk for the user)."""
        if self._spill_fd is not None:
            os.close(self._spill_fd)
            self._spill_fd = None
        self._held_chunks = []

    # --- output ------------------------------------------------------------------------------

    def snapshot(self, persist_if_truncated: bool = False) -> OutputSnapshot:
        """What the model would see now: the truncated tail with totals over everything."""
        tail = bytes(self._tail)
        if self._tail_at_line_start:
            cut = truncate_tail_bytes(
                tail, self.max_lines, self.max_bytes, total_lines=count_lines(tail)
            )
        else:
            first_nl = tail.find(b"\n")
            if 0 <= first_nl < len(tail) - 1:
                # Drop the cut-off start of a line; whole lines follow it.
                tail = tail[first_nl + 1 :]
                cut = truncate_tail_bytes(
                    tail, self.max_lines, self.max_bytes, total_lines=count_lines(tail)
                )
            else:
                # The tail lies inside the last line, longer than the tail: keep its end.
                cut = _last_line_end(tail, self.max_lines, self.max_bytes)
        truncated = self.truncated
        truncated_by = None
        if truncated:
            truncated_by = cut.truncated_by or (
                "bytes" if self.total_decoded_bytes > self.max_bytes else "lines"
            )
        result = TruncationResult(
            content=cut.content,
            truncated=truncated,
            truncated_by=truncated_by,
            total_lines=self.total_lines,
            total_bytes=self.total_decoded_bytes,
            output_lines=cut.output_lines,
            output_bytes=cut.output_bytes,
            last_line_partial=cut.last_line_partial,
            first_line_exceeds_limit=False,
            max_lines=self.max_lines,
            max_bytes=self.max_bytes,
        )
        if persist_if_truncated and truncated and self.full_output_path is None:
            self._ensure_spill_file()
        return OutputSnapshot(result, self.last_line_bytes, self.full_output_path, self.spill_error)


def _last_line_end(tail: bytes, max_lines: int, max_bytes: int) -> TruncationResult:
    """The cut of a tail that is the end of one line longer than everything kept in memory."""
    if max_lines < 1:
        return truncate_tail_bytes(tail, max_lines, max_bytes)
    body = tail[:-1] if tail.endswith(b"\n") else tail
    start = utf8_safe_suffix_start(body, max_bytes)
    content = body[start:]
    return TruncationResult(
        content=decode_utf8(content),
        truncated=True,
        truncated_by="bytes",
        total_lines=1,
        total_bytes=len(tail),
        output_lines=1,
        output_bytes=len(content),
        last_line_partial=True,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )
