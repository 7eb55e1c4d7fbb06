"""The vocabulary of a Pi session file: versions, entry types, ids, timestamps, file names.

Facts from spec §8.1–§8.3: entry ids are 8 lowercase hex characters (the start of a random
UUIDv4, drawn again on a collision, a whole UUID after 100 collisions), session ids are
UUIDv7, entry timestamps are ISO-8601 UTC with milliseconds and ``Z``, and session files live
in ``{agentDir}/sessions/--{cwd'}--/{timestamp}_{sessionId}.jsonl``.

Entries are plain ``dict[str, Any]`` in Pi's JSON shape; the builders here only choose the
keys and their order (``type``, ``id``, ``parentId``, ``timestamp``, then the payload), which
is the order Pi writes.
"""

from __future__ import annotations

import os
import re
import secrets
import threading
import time
import uuid
from collections.abc import Container
from datetime import UTC, datetime
from typing import Any, Final

from pi_lsp.js.text import js_trim
from pi_lsp.resources.agent_dir import resolve_path

__all__ = [
    "CURRENT_SESSION_VERSION",
    "ENTRY_TYPES",
    "SESSION_ID_PATTERN",
    "TYPE_BRANCH_SUMMARY",
    "TYPE_COMPACTION",
    "TYPE_CUSTOM",
    "TYPE_CUSTOM_MESSAGE",
    "TYPE_LABEL",
    "TYPE_MESSAGE",
    "TYPE_MODEL_CHANGE",
    "TYPE_SESSION",
    "TYPE_SESSION_INFO",
    "TYPE_THINKING_LEVEL_CHANGE",
    "Entry",
    "clean_session_name",
    "default_session_dir",
    "encode_cwd",
    "file_timestamp",
    "is_assistant_message",
    "iso_timestamp",
    "make_entry",
    "make_header",
    "new_entry_id",
    "new_session_id",
    "opening_entry_payloads",
    "session_file_name",
    "uuid7",
    "validate_session_id",
]

Entry = dict[str, Any]

CURRENT_SESSION_VERSION: Final = 3

TYPE_SESSION: Final = "session"
TYPE_MESSAGE: Final = "message"
TYPE_THINKING_LEVEL_CHANGE: Final = "thinking_level_change"
TYPE_MODEL_CHANGE: Final = "model_change"
TYPE_COMPACTION: Final = "compaction"
TYPE_BRANCH_SUMMARY: Final = "branch_summary"
TYPE_CUSTOM: Final = "custom"
TYPE_CUSTOM_MESSAGE: Final = "custom_message"
TYPE_LABEL: Final = "label"
TYPE_SESSION_INFO: Final = "session_info"

#: Every entry type a 0.85 session file holds after the header (spec §8.2).
ENTRY_TYPES: Final = frozenset(
    {
        TYPE_MESSAGE,
        TYPE_THINKING_LEVEL_CHANGE,
        TYPE_MODEL_CHANGE,
        TYPE_COMPACTION,
        TYPE_BRANCH_SUMMARY,
        TYPE_CUSTOM,
        TYPE_CUSTOM_MESSAGE,
        TYPE_LABEL,
        TYPE_SESSION_INFO,
    }
)

#: What a caller-provided session id must look like (spec §8.1).
SESSION_ID_PATTERN: Final = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?", re.ASCII)

_ID_ATTEMPTS = 100


# ---------------------------------------------------------------------------------------------
# Ids


def new_entry_id(taken: Container[str]) -> str:
    """A fresh entry id not in ``taken``: 8 hex digits, or a whole UUID if those keep colliding."""
    for _ in range(_ID_ATTEMPTS):
        candidate = str(uuid.uuid4())[:8]
        if candidate not in taken:
            return candidate
    return str(uuid.uuid4())


class _Uuid7Source:
    """UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then random bits.

    Ids made in the same millisecond stay in creation order: the 12 ``rand_a`` bits act as a
    counter started at a random value below 2048 each new millisecond; when it runs out, the
    timestamp is advanced by one millisecond (RFC 9562 §6.2, method 1 and 3).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last_ms = -1
        self._counter = 0

    def next(self, now_ms: int | None = None) -> uuid.UUID:
        with self._lock:
            ms = time.time_ns() // 1_000_000 if now_ms is None else now_ms
            if ms > self._last_ms:
                self._last_ms = ms
                self._counter = secrets.randbits(11)
            else:
                self._counter += 1
                if self._counter > 0xFFF:
                    self._last_ms += 1
                    self._counter = secrets.randbits(11)
            ms, counter = self._last_ms, self._counter
        value = (ms & 0xFFFF_FFFF_FFFF) << 80
        value |= 0x7 << 76
        value |= counter << 64
        value |= 0b10 << 62
        value |= secrets.randbits(62)
        return uuid.UUID(int=value)


_UUID7 = _Uuid7Source()


def uuid7(now_ms: int | None = None) -> uuid.UUID:
    """A new UUIDv7, later than every one made before in this process (even if the clock, or
    ``now_ms`` standing in for it, goes back)."""
    return _UUID7.next(now_ms)


def new_session_id() -> str:
    """A new session id: a UUIDv7 in its canonical lowercase text form."""
    return str(uuid7())


def validate_session_id(session_id: str) -> str:
    """Return ``session_id`` if Pi would accept it as a caller-chosen id, else raise ValueError."""
    if not isinstance(session_id, str) or SESSION_ID_PATTERN.fullmatch(session_id) is None:
        raise ValueError(
            "Session id must be non-empty, contain only alphanumeric characters, '.', '_' or "
            f"'-', and start and end with an alphanumeric character: {session_id!r}"
        )
    return session_id


# ---------------------------------------------------------------------------------------------
# Time


def iso_timestamp(epoch_ms: int | None = None) -> str:
    """``new Date().toISOString()``: ``2026-03-15T22:40:18.123Z`` (UTC, milliseconds)."""
    ms = time.time_ns() // 1_000_000 if epoch_ms is None else epoch_ms
    moment = datetime.fromtimestamp(ms // 1000, UTC)
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{ms % 1000:03d}Z"


def file_timestamp(iso: str) -> str:
    """The timestamp part of a session file name: ``:`` and ``.`` replaced by ``-``."""
    return iso.replace(":", "-").replace(".", "-")


# ---------------------------------------------------------------------------------------------
# Where session files live


def encode_cwd(cwd: str) -> str:
    """The folder name for a working directory: ``/home/u/proj`` → ``--home-u-proj--``."""
    resolved = resolve_path(cwd)
    if resolved[:1] in ("/", "\\"):
        resolved = resolved[1:]
    return "--" + re.sub(r"[/\\:]", "-", resolved) + "--"


def default_session_dir(cwd: str, agent_dir: str) -> str:
    """``{agentDir}/sessions/--{cwd'}--`` (not created here)."""
    return os.path.join(agent_dir, "sessions", encode_cwd(cwd))


def session_file_name(iso: str, session_id: str) -> str:
    """``{timestamp}_{sessionId}.jsonl`` for a header timestamp and session id."""
    return f"{file_timestamp(iso)}_{session_id}.jsonl"


# ---------------------------------------------------------------------------------------------
# Builders


def make_header(
    session_id: str, cwd: str, *, timestamp: str | None = None, parent_session: str | None = None
) -> Entry:
    """A current-version header; ``parentSession`` only when there is one."""
    header: Entry = {
        "type": TYPE_SESSION,
        "version": CURRENT_SESSION_VERSION,
        "id": session_id,
        "timestamp": timestamp if timestamp is not None else iso_timestamp(),
        "cwd": cwd,
    }
    if parent_session is not None:
        header["parentSession"] = parent_session
    return header


def make_entry(
    entry_type: str,
    entry_id: str,
    parent_id: str | None,
    payload: dict[str, Any],
    *,
    timestamp: str | None = None,
) -> Entry:
    """An entry in Pi's key order: ``type, id, parentId, timestamp``, then ``payload`` as given.

    Keys whose value is ``None`` in ``payload`` are kept (``null`` in the file); leave a key
    out of ``payload`` for a field Pi would omit.
    """
    entry: Entry = {
        "type": entry_type,
        "id": entry_id,
        "parentId": parent_id,
        "timestamp": timestamp if timestamp is not None else iso_timestamp(),
    }
    entry.update(payload)
    return entry


def opening_entry_payloads(
    provider: str, model_id: str, thinking_level: str
) -> list[tuple[str, dict[str, Any]]]:
    """The two entries a new session starts with: the model, then the thinking level."""
    return [
        (TYPE_MODEL_CHANGE, {"provider": provider, "modelId": model_id}),
        (TYPE_THINKING_LEVEL_CHANGE, {"thinkingLevel": thinking_level}),
    ]


def clean_session_name(name: str) -> str:
    """A session name as Pi stores it: each run of CR/LF becomes one space, then trimmed."""
    return js_trim(re.sub(r"[\r\n]+", " ", name))


def is_assistant_message(entry: Entry) -> bool:
    """Whether ``entry`` is a message entry holding an assistant message."""
    if entry.get("type") != TYPE_MESSAGE:
        return False
    message = entry.get("message")
    return isinstance(message, dict) and message.get("role") == "assistant"
