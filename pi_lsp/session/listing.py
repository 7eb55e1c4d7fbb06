"""The sessions saved in a folder, for a picker: id, cwd, name, first prompt, size, age.

Each ``*.jsonl`` file is read once, line by line, without a lock and without writing; only the
lines that can be a ``message`` or ``session_info`` entry are parsed (a text search on each
line decides), so a long session costs a scan of its bytes, not a parse of every entry. A file
whose first JSON line is not a session header (or that cannot be read) is left out, as Pi's
"continue most recent" leaves it out.

``modified`` is the file's modification time, the newest file first.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pi_lsp.js.json import JsonParseError, parse_json
from pi_lsp.regular_files import MAX_SESSION_FILE_BYTES, open_regular_file
from pi_lsp.session.entries import iso_timestamp

__all__ = ["FIRST_MESSAGE_CHARS", "SessionListing", "list_sessions", "read_listing"]

#: At most this many characters of the first user message are kept (whitespace collapsed).
FIRST_MESSAGE_CHARS = 200

#: A line that may be a ``message`` or ``session_info`` entry (Pi writes compact JSON, but a
#: hand-edited file may have spaces); anything else is never parsed.
_WANTED = re.compile(rb'"type"\s*:\s*"(?:message|session_info)"')


@dataclass(frozen=True, slots=True)
class SessionListing:
    """One session file as a picker shows it."""

    file: str
    id: str
    cwd: str
    name: str | None
    modified_ns: int
    message_count: int
    first_message: str

    @property
    def modified(self) -> str:
        """The modification time as ``toISOString`` writes it (UTC, milliseconds)."""
        return iso_timestamp(self.modified_ns // 1_000_000)

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "id": self.id,
            "cwd": self.cwd,
            "name": self.name,
            "modified": self.modified,
            "messageCount": self.message_count,
            "firstMessage": self.first_message,
        }


def _object(line: bytes) -> dict[str, Any] | None:
    text = line.decode("utf-8", "replace").strip()
    if not text:
        return None
    try:
        value = parse_json(text)
    except JsonParseError:
        return None
    return value if isinstance(value, dict) else None


def _user_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = " ".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, Mapping) and block.get("type") == "text"
        )
    else:
        text = ""
    flat = " ".join(text.split())
    if len(flat) <= FIRST_MESSAGE_CHARS:
        return flat
    return flat[: FIRST_MESSAGE_CHARS - 1] + "…"


def _scan(path: str, lines: Iterable[bytes], modified_ns: int) -> SessionListing | None:
    header: dict[str, Any] | None = None
    name: str | None = None
    count = 0
    first = ""
    for line in lines:
        if header is None:
            record = _object(line)
            if record is None:
                continue
            if record.get("type") != "session" or not isinstance(record.get("id"), str):
                return None
            header = record
            continue
        if _WANTED.search(line) is None:
            continue
        record = _object(line)
        if record is None:
            continue
        kind = record.get("type")
        if kind == "session_info":
            value = record.get("name")
            name = value if isinstance(value, str) and value else None
        elif kind == "message":
            count += 1
            message = record.get("message")
            if not first and isinstance(message, Mapping) and message.get("role") == "user":
                first = _user_text(message)
    if header is None:
        return None
    cwd = header.get("cwd")
    return SessionListing(
        file=path,
        id=str(header["id"]),
        cwd=cwd if isinstance(cwd, str) else "",
        name=name,
        modified_ns=modified_ns,
        message_count=count,
        first_message=first,
    )


def read_listing(path: str) -> SessionListing | None:
    """The listing of one session file; ``None`` when it is not a session or cannot be read."""
    try:
        fd, info = open_regular_file(path, MAX_SESSION_FILE_BYTES)
        with open(fd, "rb") as handle:
            return _scan(path, handle, info.st_mtime_ns)
    except OSError:
        return None


def list_sessions(folder: str, *, cwd: str | None = None) -> list[SessionListing]:
    """The sessions in ``folder``, newest first; with ``cwd``, only those whose header ``cwd``
    is that folder (symbolic links resolved). A missing folder lists nothing."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    wanted = os.path.realpath(cwd) if cwd is not None else None
    found: list[SessionListing] = []
    for name in names:
        if not name.endswith(".jsonl"):
            continue
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            continue
        listing = read_listing(path)
        if listing is None:
            continue
        if wanted is not None and (not listing.cwd or os.path.realpath(listing.cwd) != wanted):
            continue
        found.append(listing)
    found.sort(key=lambda item: (item.modified_ns, os.path.basename(item.file)), reverse=True)
    return found
