"""Bringing older session files to the current version (spec §8.4), in memory.

The records are the parsed lines of a file in order, header first; they are changed in place
so that key order follows JavaScript's (a key added to an object goes last, an existing key
keeps its place) and every field this module does not know stays where it was:

* v1 → v2: each entry gets an ``id`` and ``parentId`` = the entry before it (one linear
  chain); a compaction's ``firstKeptEntryIndex`` (an index into the records, header included)
  becomes ``firstKeptEntryId``;
* v2 → v3: a message of role ``hookMessage`` becomes role ``custom``;
* the header's ``version`` becomes 3.

Whether the file itself is rewritten is the caller's decision.

Pi gives migrated entries random ids and rewrites the file, so its ids are fixed from then on.
pi-lsp also reads old files without rewriting them (``pi-lsp session tree``, the server's
tree): random ids would change at every read, and an id shown once could not be named later.
So a migrated entry's id is derived from the session id and the entry's place among the
records: 8 hex digits like Pi's, the same at every read and in a rewritten file, distinct
within the file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Container
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.session.entries import (
    CURRENT_SESSION_VERSION,
    TYPE_COMPACTION,
    TYPE_MESSAGE,
    TYPE_SESSION,
)

__all__ = [
    "MigrationNote",
    "MigrationReport",
    "migrate_records",
    "migrated_entry_id",
    "session_version",
]


@dataclass(frozen=True, slots=True)
class MigrationNote:
    """Something a migration could not carry over exactly: ``record_index`` in the records."""

    record_index: int
    message: str


@dataclass(slots=True)
class MigrationReport:
    """What :func:`migrate_records` did.

    ``from_version`` is the version the records had (``None`` when the header's version is not
    a number and nothing was done); ``changed`` says whether anything was rewritten.
    """

    from_version: int | float | None
    changed: bool = False
    notes: list[MigrationNote] = field(default_factory=list)


def session_version(header: dict[str, Any]) -> int | float | None:
    """The header's version: missing or ``null`` means 1; ``None`` if it is not a number."""
    version = header.get("version")
    if version is None:
        return 1
    if isinstance(version, bool) or not isinstance(version, int | float):
        return None
    return version


def migrate_records(records: list[dict[str, Any]]) -> MigrationReport:
    """Migrate ``records`` (header first) to the current version, in place."""
    if not records:
        return MigrationReport(CURRENT_SESSION_VERSION)
    version = session_version(records[0])
    report = MigrationReport(version)
    if version is None:
        report.notes.append(
            MigrationNote(
                0,
                f"header version {records[0].get('version')!r} is not a number; "
                "the file is read as the current version",
            )
        )
        return report
    if version >= CURRENT_SESSION_VERSION:
        if version > CURRENT_SESSION_VERSION:
            report.notes.append(
                MigrationNote(
                    0,
                    f"header version {version} is newer than "
                    f"{CURRENT_SESSION_VERSION}; the file is read as version "
                    f"{CURRENT_SESSION_VERSION}",
                )
            )
        return report
    if version < 2:
        _v1_to_v2(records, report)
    _v2_to_v3(records)
    report.changed = True
    return report


def migrated_entry_id(session_id: str, index: int, taken: Container[str]) -> str:
    """The id of the entry at ``index`` in the records of session ``session_id``: 8 hex
    digits of a hash of both, not in ``taken`` (a collision hashes again with a counter)."""
    attempt = 0
    while True:
        seed = f"{session_id}\n{index}\n{attempt}".encode("utf-8", "surrogatepass")
        candidate = hashlib.sha256(seed).hexdigest()[:8]
        if candidate not in taken:
            return candidate
        attempt += 1


def _v1_to_v2(records: list[dict[str, Any]], report: MigrationReport) -> None:
    taken: set[str] = set()
    previous: str | None = None
    session_id = str(records[0].get("id", ""))
    for index, record in enumerate(records):
        if record.get("type") == TYPE_SESSION:
            record["version"] = 2
            continue
        entry_id = migrated_entry_id(session_id, index, taken)
        taken.add(entry_id)
        record["id"] = entry_id
        record["parentId"] = previous
        previous = entry_id
        if record.get("type") == TYPE_COMPACTION and "firstKeptEntryIndex" in record:
            _point_compaction(records, index, record, report)


def _point_compaction(
    records: list[dict[str, Any]], index: int, record: dict[str, Any], report: MigrationReport
) -> None:
    kept_index = record["firstKeptEntryIndex"]
    if isinstance(kept_index, bool) or not isinstance(kept_index, int | float):
        # Pi converts only a numeric index and leaves anything else in place
        report.notes.append(
            MigrationNote(
                index,
                f"compaction firstKeptEntryIndex {kept_index!r} is not a "
                "number and was left as it is",
            )
        )
        return
    target = (
        records[int(kept_index)]
        if kept_index == int(kept_index) and 0 <= kept_index < len(records)
        else None
    )
    if target is not None and target.get("type") != TYPE_SESSION and "id" in target:
        record["firstKeptEntryId"] = target["id"]
    else:
        report.notes.append(
            MigrationNote(
                index,
                f"compaction firstKeptEntryIndex {kept_index!r} does not "
                "point at an entry before it; the compaction keeps no entries",
            )
        )
    del record["firstKeptEntryIndex"]


def _v2_to_v3(records: list[dict[str, Any]]) -> None:
    for record in records:
        if record.get("type") == TYPE_SESSION:
            record["version"] = CURRENT_SESSION_VERSION
            continue
        if record.get("type") != TYPE_MESSAGE:
            continue
        message = record.get("message")
        if isinstance(message, dict) and message.get("role") == "hookMessage":
            message["role"] = "custom"
