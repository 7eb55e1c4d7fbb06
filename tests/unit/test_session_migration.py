"""Migrating old session files (spec §8.4): in memory, keeping every field, in JS key order."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.js.json import json_stringify, parse_json
from pi_lsp.session.migration import migrate_records, migrated_entry_id, session_version
from pi_lsp.session.session_file import SessionFile
from tests.sessions import FIXTURE_NAMES, fixture_session_params

ENTRY_ID = re.compile(r"[0-9a-f]{8}")


def v1_records() -> list[dict[str, Any]]:
    return [
        {
            "type": "session",
            "id": "s-1",
            "timestamp": "2025-11-20T23:33:50.805Z",
            "cwd": "/w",
            "provider": "anthropic",
            "modelId": "claude",
            "thinkingLevel": "off",
            "branchedFrom": "/old.jsonl",
        },
        {"type": "message", "timestamp": "t1", "message": {"role": "user", "content": "a"}},
        {"type": "message", "timestamp": "t2", "message": {"role": "hookMessage", "x": 1}},
        {"type": "thinking_level_change", "timestamp": "t3", "thinkingLevel": "high"},
        {
            "type": "compaction",
            "timestamp": "t4",
            "summary": "S",
            "firstKeptEntryIndex": 2,
            "tokensBefore": 10,
            "extra": [1, 2],
        },
        {"type": "message", "timestamp": "t5", "message": {"role": "assistant"}, "zzz": None},
    ]


def test_v1_entries_get_fresh_ids_and_one_linear_chain() -> None:
    records = v1_records()
    report = migrate_records(records)
    assert report.changed and report.from_version == 1 and not report.notes
    entries = records[1:]
    ids = [e["id"] for e in entries]
    assert all(ENTRY_ID.fullmatch(i) for i in ids)
    assert len(set(ids)) == len(ids)
    assert [e["parentId"] for e in entries] == [None, *ids[:-1]]


def test_v1_keeps_every_field_and_appends_new_keys_last() -> None:
    original = v1_records()
    records = copy.deepcopy(original)
    migrate_records(records)
    header = records[0]
    assert list(header) == [*original[0], "version"] and header["version"] == 3
    for before, after in zip(original[1:], records[1:], strict=True):
        expected_keys = [k for k in before if k != "firstKeptEntryIndex"] + ["id", "parentId"]
        if before["type"] == "compaction":
            expected_keys.append("firstKeptEntryId")
        assert list(after) == expected_keys
    assert records[5]["zzz"] is None and records[4]["extra"] == [1, 2]


def test_compaction_index_counts_the_header_and_becomes_an_id() -> None:
    records = v1_records()
    migrate_records(records)
    compaction = records[4]
    assert "firstKeptEntryIndex" not in compaction
    assert compaction["firstKeptEntryId"] == records[2]["id"]


@pytest.mark.parametrize("index", [0, 5, 99, -1, 1.5])
def test_compaction_index_that_names_no_earlier_entry_is_dropped_with_a_note(
    index: float,
) -> None:
    records = v1_records()
    records[4]["firstKeptEntryIndex"] = index
    report = migrate_records(records)
    assert "firstKeptEntryIndex" not in records[4]
    assert "firstKeptEntryId" not in records[4]
    assert [note.record_index for note in report.notes] == [4]


def test_hook_message_role_becomes_custom_in_v1_and_v2() -> None:
    records = v1_records()
    migrate_records(records)
    assert records[2]["message"] == {"role": "custom", "x": 1}

    v2: list[dict[str, Any]] = [
        {"type": "session", "version": 2, "id": "s", "timestamp": "t", "cwd": "/"},
        {
            "type": "message",
            "id": "aaaaaaaa",
            "parentId": None,
            "timestamp": "t",
            "message": {"role": "hookMessage", "customType": "k", "content": "c"},
        },
    ]
    report = migrate_records(v2)
    assert report.changed and report.from_version == 2
    assert v2[0] == {"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"}
    assert v2[1]["id"] == "aaaaaaaa" and v2[1]["parentId"] is None
    assert list(v2[1]["message"]) == ["role", "customType", "content"]
    assert v2[1]["message"]["role"] == "custom"


def test_current_version_is_left_alone() -> None:
    records: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"},
        {"type": "message", "id": "x", "parentId": None, "message": {"role": "hookMessage"}},
    ]
    before = copy.deepcopy(records)
    report = migrate_records(records)
    assert not report.changed and records == before


@pytest.mark.parametrize(
    ("version", "expected", "noted"),
    [(None, 1, False), (2, 2, False), ("3", None, True), (True, None, True), (7, 7, True)],
)
def test_version_reading(version: Any, expected: Any, noted: bool) -> None:
    header: dict[str, Any] = {"type": "session", "id": "s"}
    if version is not None:
        header["version"] = version
    assert session_version(header) == expected
    records = [header]
    report = migrate_records(records)
    assert bool(report.notes) == noted
    if noted:
        assert records[0].get("version") == version  # untouched


# ---------------------------------------------------------------------------------------------
# The real v1 fixtures


def _fixture_records(source: Path) -> list[dict[str, Any]]:
    text = source.read_text(encoding="utf-8")
    return [parse_json(line) for line in text.split("\n") if line.strip()]


@pytest.mark.parametrize("source", fixture_session_params(*FIXTURE_NAMES))
def test_fixture_migrates_to_one_chain_keeping_every_field(source: Path) -> None:
    original = _fixture_records(source)
    assert "version" not in original[0]
    records = copy.deepcopy(original)
    report = migrate_records(records)
    assert report.changed and report.from_version == 1 and not report.notes
    for key in ("provider", "modelId", "thinkingLevel"):
        assert records[0][key] == original[0][key]
    previous = None
    for before, after in zip(original[1:], records[1:], strict=True):
        assert after["parentId"] == previous
        previous = after["id"]
        stripped = {
            k: v for k, v in after.items() if k not in ("id", "parentId", "firstKeptEntryId")
        }
        assert stripped == {k: v for k, v in before.items() if k != "firstKeptEntryIndex"}


@pytest.mark.parametrize("source", fixture_session_params("before-compaction.jsonl"))
def test_before_compaction_fixture_points_compactions_at_the_indexed_entries(
    source: Path,
) -> None:
    original = _fixture_records(source)
    assert original[0]["branchedFrom"].endswith(".jsonl")
    indexes = [r["firstKeptEntryIndex"] for r in original if r["type"] == "compaction"]
    assert indexes == [293, 551]
    records = copy.deepcopy(original)
    migrate_records(records)
    compactions = [r for r in records if r["type"] == "compaction"]
    assert [c["firstKeptEntryId"] for c in compactions] == [records[i]["id"] for i in indexes]
    assert records[0]["branchedFrom"] == original[0]["branchedFrom"]


@pytest.mark.parametrize("source", fixture_session_params("before-compaction.jsonl"))
def test_reading_migrates_in_memory_and_writing_back_keeps_every_field(
    source: Path, tmp_path: Path
) -> None:
    session = SessionFile.read(source)
    assert session.migrated_from == 1
    written = tmp_path / "v3.jsonl"
    from pi_lsp.session.session_file import serialize_records

    data = serialize_records([session.header, *session.entries])
    written.write_bytes(data)
    again = SessionFile.read(written)
    assert again.migrated_from is None and not again.findings
    assert again.header == session.header
    assert list(again.entries) == list(session.entries)
    # each line is exactly what JSON.stringify writes for the record
    lines = data.decode("utf-8").split("\n")[:-1]
    assert lines == [
        json_stringify(r, key_order="insertion") for r in [session.header, *session.entries]
    ]


def test_migrated_ids_are_the_same_at_every_migration_and_differ_per_session() -> None:
    ids = [[e["id"] for e in _migrated(v1_records())[1:]] for _ in range(2)]
    assert ids[0] == ids[1]
    other = v1_records()
    other[0]["id"] = "s-2"
    assert not set(ids[0]) & {e["id"] for e in _migrated(other)[1:]}


def test_a_migrated_id_already_taken_is_derived_again() -> None:
    first = migrated_entry_id("s-1", 1, set())
    again = migrated_entry_id("s-1", 1, {first})
    assert ENTRY_ID.fullmatch(again) and again != first
    assert migrated_entry_id("s-1", 1, {first}) == again


def _migrated(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    migrate_records(records)
    return records
