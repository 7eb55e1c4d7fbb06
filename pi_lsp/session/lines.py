"""The lines of a session file, parsed as Pi parses them, with every skipped line reported.

Pi reads the whole file as UTF-8 (invalid bytes become U+FFFD), trims it, splits it on ``\\n``
and ``JSON.parse``s each non-blank line, silently skipping the ones that fail (spec §8.3).
Here the same lines are kept, but each skipped one becomes a warning with its line number;
a last line without its newline that does not parse is called out as torn (a write cut short
by a crash), since that is almost always what it is.
"""

from __future__ import annotations

import gc
import os
import weakref
from array import array
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.js.json import JsonParseError, parse_json
from pi_lsp.js.text import JS_WHITESPACE, js_trim
from pi_lsp.resources.model import Finding, SourceRange
from pi_lsp.session.entry_store import LAZY_KINDS
from pi_lsp.session.errors import SessionFileError

__all__ = ["LineReader", "ParsedLines", "gc_paused", "parse_session_bytes", "parse_session_line"]

_PREVIEW = 60


@dataclass(slots=True)
class ParsedLines:
    """The JSON objects of a file in order, and where each one came from.

    ``lines[i]`` is the 0-based line of ``records[i]``. ``ends_with_newline`` is false when the
    file is non-empty and its last byte is not ``\\n`` (Pi appends one before writing more).
    """

    path: str
    records: list[dict[str, Any] | None] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    #: ``id``, ``parentId`` and ``type`` of each record as parsed (None when absent), read
    #: while the record was just made: later passes over a large file find it cold in memory
    ids: list[Any] = field(default_factory=list)
    parents: list[Any] = field(default_factory=list)
    kinds: list[Any] = field(default_factory=list)
    #: whether each record is a message entry holding an assistant message
    assistant: bytearray = field(default_factory=bytearray)
    #: with ``lazy``: where each record's line starts and ends in the bytes (records of the
    #: :data:`~pi_lsp.session.entry_store.LAZY_KINDS` are None, to be read again from there)
    starts: array[int] = field(default_factory=lambda: array("q"))
    ends: array[int] = field(default_factory=lambda: array("q"))
    findings: list[Finding] = field(default_factory=list)
    ends_with_newline: bool = True
    torn_last_line: bool = False


def _preview(text: str) -> str:
    text = js_trim(text)
    return text if len(text) <= _PREVIEW else text[:_PREVIEW] + "…"


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block (back on after it, if it was on).

    Parsing a large session allocates millions of containers (dicts and lists from JSON, none
    in a cycle); with the collector on, its passes over the growing heap cost more than the
    parse itself. Reference counting still frees everything as usual meanwhile.

    Left in the youngest generation, those objects would be walked by the next young
    collection, then the middle one, then a full one. Instead, when nothing in the process is
    frozen, ``gc.freeze()`` + ``gc.unfreeze()`` moves every tracked object straight into the
    oldest generation (two list splices, no walk), so only the next full collection sees them.
    That ages every other object of the process too: a young garbage cycle made just before
    waits for that full collection instead of a young one. Nothing stays frozen.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _decode_line(raw: bytes) -> tuple[str, bool]:
    """A line as text, as Node decodes it (invalid bytes → U+FFFD), and whether it was valid.

    Lines are split on the ``\n`` byte, which never occurs inside a UTF-8 sequence and ends
    any broken one, so decoding line by line gives the same text as decoding the whole file.
    """
    try:
        return raw.decode("utf-8"), True
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace"), False


def parse_session_bytes(path: str, data: bytes, *, lazy: bool = False) -> ParsedLines:
    """Parse the bytes of a session file (``path`` only labels the findings).

    The result is what decoding the whole file, trimming it, splitting it on ``\n`` and parsing
    each non-blank line gives; the lines are cut, decoded and parsed one at a time instead, each
    one dropped once parsed, so neither the whole text nor a second copy of the bytes exists.
    With ``lazy`` the records of message and custom entries after the first record are not
    kept (None): their ids, types and line spans are, for :func:`parse_session_line` later.
    """
    result = ParsedLines(path, ends_with_newline=not data or data.endswith(b"\n"))
    size = len(data)
    count = data.count(b"\n") + 1  # lines, as split("\n") makes them
    # The last non-blank line: JavaScript whitespace after it goes with the whole text's trim.
    last = count - 1
    end = size
    while last >= 0:
        start = data.rfind(b"\n", 0, end) + 1
        text, _valid = _decode_line(data[start:end])
        if last == 0 and text.startswith("\ufeff"):
            text = text[1:]
        if js_trim(text):
            break
        last -= 1
        end = start - 1
    if last < 0:
        return result
    records = result.records
    record_lines = result.lines
    findings = result.findings
    ids, parents, kinds = result.ids, result.parents, result.kinds
    assistant, starts, ends = result.assistant, result.starts, result.ends
    first: int | None = None
    first_bad: int | None = None
    torn_index = count - 1 if not result.ends_with_newline else -1
    position = 0
    for index in range(last + 1):
        # one line's bytes at a time: the file is never held twice
        end = data.find(b"\n", position)
        if end < 0:
            end = size
        raw = data[position:end]
        line_start = position
        position = end + 1
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            line = raw.decode("utf-8", "replace")
            if first_bad is None:
                first_bad = index
        del raw
        if index == 0 and line.startswith("\ufeff"):
            line = line[1:]  # the BOM, dropped as Pi's stripBom does
        if first is None:
            # Pi trims the whole text: JavaScript whitespace before the first line is gone.
            if not js_trim(line):
                continue
            first = index
            line = line.lstrip(JS_WHITESPACE)
        elif not line or (line[0] in JS_WHITESPACE and not js_trim(line)):
            continue
        if index == last:
            line = line.rstrip(JS_WHITESPACE)
        # inside, only JSON's own whitespace may surround a value
        try:
            value = parse_json(line)
        except JsonParseError as error:
            if index == torn_index:
                result.torn_last_line = True
                message = (
                    f"line {index + 1} is incomplete (the file ends without a newline and the "
                    "line is not valid JSON, as after a crash during a write); it is skipped"
                )
                rule = "session-torn-last-line"
            else:
                message = (
                    f"line {index + 1} is not valid JSON and is skipped ({error}): {_preview(line)}"
                )
                rule = "session-line-not-json"
            findings.append(_warning(path, index, rule, message))
            continue
        if not isinstance(value, dict):
            findings.append(
                _warning(
                    path,
                    index,
                    "session-line-not-object",
                    f"line {index + 1} is JSON but not an object and is skipped: {_preview(line)}",
                )
            )
            continue
        kind = value.get("type")
        is_assistant = False
        if kind == "message":
            body = value.get("message")
            is_assistant = isinstance(body, dict) and body.get("role") == "assistant"
        record_lines.append(index)
        ids.append(value.get("id"))
        parents.append(value.get("parentId"))
        kinds.append(kind)
        assistant.append(is_assistant)
        if lazy:
            starts.append(line_start)
            ends.append(end)
            if kind in LAZY_KINDS and records:
                records.append(None)
                continue
        records.append(value)
    if first_bad is not None:
        findings.insert(
            0,
            _warning(
                path,
                first_bad,
                "session-invalid-utf8",
                f"line {first_bad + 1} is not valid UTF-8; the bad bytes are read as U+FFFD",
            ),
        )
    return result


def parse_session_line(raw: bytes) -> Any:
    """A line's bytes, cut as :func:`parse_session_bytes` cut them, parsed as it parsed them."""
    text = _decode_line(raw)[0]
    if text.startswith("\ufeff"):
        text = text[1:]
    return parse_json(text.strip(JS_WHITESPACE))


def _warning(path: str, line: int, rule: str, message: str) -> Finding:
    return Finding(SourceRange.line(path, line), "warning", rule, message)


class LineReader:
    r"""Reads records of a loaded file again, from the file it was loaded from.

    Holds its own read-only descriptor of the file (the same inode the bytes came from: a
    file replaced by a rename later does not change what is read), closed when the reader is
    garbage-collected or closed. Each record is checked against the ``id`` the load
    saw; a file rewritten in place since gives a :class:`SessionFileError` naming the line.
    """

    __slots__ = ("__weakref__", "_ends", "_fd", "_finalizer", "_ids", "_lines", "_starts", "path")

    def __init__(
        self,
        path: str,
        fd: int,
        starts: array[int],
        ends: array[int],
        lines: Sequence[int],
        ids: Sequence[Any],
    ) -> None:
        """``fd`` becomes the reader's; record ``i`` is ``starts[i]:ends[i]`` of the file,
        0-based line ``lines[i]``, with ``id`` ``ids[i]``."""
        self.path = path
        self._fd: int | None = fd
        self._starts = starts
        self._ends = ends
        self._lines = array("q", lines)
        self._ids = ids
        self._finalizer = weakref.finalize(self, os.close, fd)

    def read(self, record: int) -> dict[str, Any]:
        """Record ``record`` parsed again (a fresh dict)."""
        line = self._lines[record]
        if self._fd is None:
            raise SessionFileError(self.path, f"line {line + 1}: the session file was closed")
        start = self._starts[record]
        length = self._ends[record] - start
        try:
            raw = os.pread(self._fd, length, start)
            value = parse_session_line(raw) if len(raw) == length else None
        except OSError as error:
            raise SessionFileError(
                self.path, f"line {line + 1}: cannot read the session file again: {error}"
            ) from None
        except JsonParseError:
            value = None
        if not isinstance(value, dict) or value.get("id") != self._ids[record]:
            raise SessionFileError(
                self.path,
                f"line {line + 1} changed on disk since the session was loaded "
                "(the file was rewritten in place); load the session again",
            )
        return value

    def close(self) -> None:
        self._fd = None
        self._finalizer()
