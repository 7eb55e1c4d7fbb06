"""Session files as Pi keeps them (spec §8): load, append, tree operations, branching, forks."""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.js.json import JsonParseError, js_number, json_stringify, parse_json
from pi_lsp.session.entries import (
    clean_session_name,
    default_session_dir,
    encode_cwd,
    file_timestamp,
    iso_timestamp,
    new_entry_id,
    uuid7,
    validate_session_id,
)
from pi_lsp.session.errors import (
    EntryNotFoundError,
    NotASessionError,
    SessionFileError,
    SessionLockedError,
    SessionReadOnlyError,
)
from pi_lsp.session.session_file import (
    SessionFile,
    find_most_recent_session,
    serialize_records,
)
from tests.sessions import FIXTURE_NAMES, fixture_session_params
from tests.shared_data import CONFORMANCE

ENTRY_ID = re.compile(r"[0-9a-f]{8}")
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")

USER = {"role": "user", "content": [{"type": "text", "text": "hello"}], "timestamp": 1}
ASSISTANT = {
    "role": "assistant",
    "content": [{"type": "text", "text": "hi"}],
    "api": "openai-completions",
    "provider": "p",
    "model": "m",
    "usage": {"input": 1, "output": 2, "cost": {"input": 0.000015, "total": 1e-7}},
    "stopReason": "stop",
    "timestamp": 2,
}


def lines_of(path: Path | str) -> list[dict[str, Any]]:
    text = Path(path).read_text(encoding="utf-8")
    assert text.endswith("\n")
    return [json.loads(line) for line in text.split("\n")[:-1]]


def write_session(path: Path, records: list[dict[str, Any]], tail: bytes = b"") -> Path:
    path.write_bytes(serialize_records(records) + tail)
    return path


def header(**extra: Any) -> dict[str, Any]:
    return {
        "type": "session",
        "version": 3,
        "id": "s1",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/w",
        **extra,
    }


def entry(
    entry_id: str, parent: str | None, entry_type: str = "message", **fields: Any
) -> dict[str, Any]:
    base: dict[str, Any] = {
        "type": entry_type,
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:01.000Z",
    }
    if entry_type == "message" and "message" not in fields:
        fields["message"] = USER
    return {**base, **fields}


# ---------------------------------------------------------------------------------------------
# Vocabulary: ids, timestamps, names


def test_entry_ids_are_8_hex_and_avoid_taken_ones() -> None:
    ids = {new_entry_id(set()) for _ in range(200)}
    assert all(ENTRY_ID.fullmatch(i) for i in ids)

    class Everything:
        def __contains__(self, item: object) -> bool:
            return True

    fallback = new_entry_id(Everything())
    assert str(uuid.UUID(fallback)) == fallback


def test_session_ids_are_ordered_uuid7() -> None:
    values = [uuid7() for _ in range(3000)]  # many within one millisecond
    assert all(v.version == 7 and v.variant == uuid.RFC_4122 for v in values)
    assert [v.int for v in values] == sorted(v.int for v in values)
    assert len({v.int for v in values}) == len(values)
    assert abs(int(uuid7().hex[:12], 16) - time.time() * 1000) < 60_000
    assert uuid7(1_000).int > values[-1].int  # a clock that goes back does not reorder ids


@pytest.mark.parametrize("good", ["a", "abc-1.2_x", "0198c5e2-7b1c-7cc0-8e8e-1234567890ab"])
def test_valid_session_ids(good: str) -> None:
    assert validate_session_id(good) == good


@pytest.mark.parametrize("bad", ["", "-a", "a-", "a b", "a/b", "ä", "a\n"])
def test_invalid_session_ids(bad: str) -> None:
    with pytest.raises(
        ValueError, match=r"^Session id must be non-empty, contain only alphanumeric"
    ):
        validate_session_id(bad)


def test_timestamps_and_file_names() -> None:
    assert iso_timestamp(1_773_614_418_123) == "2026-03-15T22:40:18.123Z"
    assert iso_timestamp(5) == "1970-01-01T00:00:00.005Z"
    assert ISO.fullmatch(iso_timestamp())
    assert file_timestamp("2026-03-15T22:40:18.123Z") == "2026-03-15T22-40-18-123Z"
    assert encode_cwd("/home/u/proj") == "--home-u-proj--"
    assert encode_cwd("/a:b\\c/") == "--a-b-c--"
    assert default_session_dir("/home/u/proj", "/ag") == "/ag/sessions/--home-u-proj--"


def test_session_names_are_cleaned() -> None:
    assert clean_session_name("  one\r\n\ntwo \u00a0") == "one two"
    assert clean_session_name("a\n b") == "a  b"  # only the CR/LF run becomes a space
    assert clean_session_name("\n") == ""


def test_json_lines_follow_javascript() -> None:
    assert [js_number(v) for v in (1e-7, 0.000015, 1e21, 5.0, -0.0, 2.5e-7, 1e20)] == [
        "1e-7",
        "0.000015",
        "1e+21",
        "5",
        "0",
        "2.5e-7",
        "100000000000000000000",
    ]
    value = parse_json('{"b":"\\ud800x","a":[1.0,{"é":null}],"c":"\\u0001\\n"}')
    assert (
        json_stringify(value, key_order="insertion")
        == '{"b":"\\ud800x","a":[1,{"é":null}],"c":"\\u0001\\n"}'
    )
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    assert json_stringify(deep, key_order="insertion") == "[" * 5001 + "]" * 5001
    for bad in ("NaN", '{"a":Infinity}', "{", "[1,]"):
        with pytest.raises(JsonParseError):
            parse_json(bad)


# ---------------------------------------------------------------------------------------------
# New sessions and the deferred write


def test_new_session_writes_nothing_before_the_first_assistant_message(tmp_path: Path) -> None:
    cwd = tmp_path / "proj"
    cwd.mkdir()
    session = SessionFile.create(
        str(cwd),
        agent_dir=str(tmp_path / "agent"),
        provider="oracle",
        model_id="oracle-model",
        thinking_level="off",
    )
    path = Path(session.path or "")
    assert path.parent == Path(default_session_dir(str(cwd), str(tmp_path / "agent")))
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_" + re.escape(session.session_id) + r"\.jsonl",
        path.name,
    )
    assert uuid.UUID(session.session_id).version == 7
    first = session.append_message(USER)
    assert not path.exists() and not session.persisted
    second = session.append_message(ASSISTANT)
    records = lines_of(path)
    assert records[0] == {
        "type": "session",
        "version": 3,
        "id": session.session_id,
        "timestamp": records[0]["timestamp"],
        "cwd": str(cwd),
    }
    assert list(records[0]) == ["type", "version", "id", "timestamp", "cwd"]
    types = [(r["type"], r.get("message", {}).get("role")) for r in records[1:]]
    assert types == [
        ("model_change", None),
        ("thinking_level_change", None),
        ("message", "user"),
        ("message", "assistant"),
    ]
    assert list(records[1]) == ["type", "id", "parentId", "timestamp", "provider", "modelId"]
    assert records[1]["parentId"] is None
    assert [r["parentId"] for r in records[2:]] == [r["id"] for r in records[1:-1]]
    assert [r["id"] for r in records[3:]] == [first, second]
    assert all(ISO.fullmatch(r["timestamp"]) for r in records)
    # JSON.stringify's numbers, not Python's
    assert '"cost":{"input":0.000015,"total":1e-7}' in path.read_text()
    # afterwards one line per append, also without an assistant message
    third = session.append_thinking_level_change("high")
    assert lines_of(path)[-1]["id"] == third and len(lines_of(path)) == 6
    session.close()


def test_session_closed_before_an_assistant_reply_leaves_no_file(tmp_path: Path) -> None:
    with SessionFile.create(str(tmp_path), session_dir=str(tmp_path / "s")) as session:
        session.append_message(USER)
    assert not (tmp_path / "s").exists()
    with pytest.raises(SessionFileError, match="closed"):
        session.append_message(USER)


def test_caller_chosen_session_id_is_validated(tmp_path: Path) -> None:
    session = SessionFile.create(str(tmp_path), session_dir=str(tmp_path), session_id="my.id-1")
    assert session.session_id == "my.id-1"
    with pytest.raises(ValueError, match="Session id must be non-empty"):
        SessionFile.create(str(tmp_path), session_dir=str(tmp_path), session_id="bad id")


def test_entry_shapes_and_key_order(tmp_path: Path) -> None:
    session = SessionFile.in_memory(str(tmp_path))
    m = session.append_message(USER)
    c = session.append_compaction("sum", m, 1234, {"readFiles": [], "modifiedFiles": []})
    session.append_compaction("hook", m, 1, from_hook=True, usage={"input": 1})
    session.append_custom_entry("k", {"x": 1})
    session.append_custom_entry("k2")
    session.append_custom_message_entry("k", "text", True)
    session.append_label_change(c, "L")
    session.append_label_change(c, None)
    session.append_session_info(" name\n")
    got = [
        {k: v for k, v in e.items() if k not in ("id", "parentId", "timestamp")}
        for e in session.entries[1:]
    ]
    assert got == [
        {
            "type": "compaction",
            "summary": "sum",
            "firstKeptEntryId": m,
            "tokensBefore": 1234,
            "details": {"readFiles": [], "modifiedFiles": []},
            "fromHook": False,
        },
        {
            "type": "compaction",
            "summary": "hook",
            "firstKeptEntryId": m,
            "tokensBefore": 1,
            "usage": {"input": 1},
            "fromHook": True,
        },
        {"type": "custom", "customType": "k", "data": {"x": 1}},
        {"type": "custom", "customType": "k2"},
        {"type": "custom_message", "customType": "k", "content": "text", "display": True},
        {"type": "label", "targetId": c, "label": "L"},
        {"type": "label", "targetId": c},
        {"type": "session_info", "name": "name"},
    ]
    assert list(session.entries[1]) == [
        "type",
        "id",
        "parentId",
        "timestamp",
        "summary",
        "firstKeptEntryId",
        "tokensBefore",
        "details",
        "fromHook",
    ]


# ---------------------------------------------------------------------------------------------
# Loading


def test_open_existing_file_leaf_labels_and_appends(tmp_path: Path) -> None:
    path = write_session(
        tmp_path / "s.jsonl",
        [
            header(),
            entry("a", None),
            entry("b", "a", message=ASSISTANT),
            entry("l1", "b", "label", targetId="a", label="first"),
            entry("c", "a"),
            entry("l2", "c", "label", targetId="a", label="second"),
            entry("l3", "l2", "label", targetId="b", label="gone"),
            entry("l4", "l3", "label", targetId="b", label=""),
        ],
    )
    before = path.read_bytes()
    with SessionFile.open(path) as session:
        assert path.read_bytes() == before  # a current file is not rewritten
        assert session.leaf_id == "l4"
        assert dict(session.labels) == {"a": "second"}
        assert session.get_label("b") is None
        assert session.cwd == "/w" and session.persisted
        new = session.append_message(USER)
        assert session.leaf_id == new
        assert lines_of(path)[-1]["parentId"] == "l4"
        assert [e["id"] for e in session.get_children("a")] == ["b", "c"]
        assert [e["id"] for e in session.get_branch("c")] == ["a", "c"]
        assert session.get_leaf_entry() is session.get_entry(new)
        assert [n.entry["id"] for n in session.get_tree()] == ["a"]


def test_skipped_lines_are_reported_with_their_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    body = serialize_records([header(), entry("a", None)])
    path.write_bytes(
        body
        + b"\n"  # blank: skipped silently
        + b"{not json\n"
        + b"[1, 2]\n"
        + serialize_records([entry("b", "a")])
        + b'{"type":"message","id":"c","par'  # torn by a crash
    )
    session = SessionFile.read(path)
    assert [e["id"] for e in session.entries] == ["a", "b"]
    assert session.leaf_id == "b"
    got = [(f.rule, f.where.start_line + 1, f.severity) for f in session.findings]
    assert got == [
        ("session-line-not-json", 4, "warning"),
        ("session-line-not-object", 5, "warning"),
        ("session-torn-last-line", 7, "warning"),
    ]
    assert all(f.where.path == str(path) for f in session.findings)
    assert "line 4 is not valid JSON" in session.findings[0].message


def test_bom_and_invalid_utf8_are_read_as_pi_reads_them(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    good = serialize_records([header(), entry("a", None)])
    path.write_bytes(
        b"\xef\xbb\xbf \n" + good + b'{"type":"custom","id":"b","parentId":"a",'
        b'"customType":"k","data":"x\xff"}\n'
    )
    session = SessionFile.read(path)
    assert [e["id"] for e in session.entries] == ["a", "b"]
    assert session.entries[1]["data"] == "x\ufffd"
    assert [(f.rule, f.where.start_line) for f in session.findings] == [("session-invalid-utf8", 3)]


def test_torn_last_line_gets_its_newline_when_opened_for_writing(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    good = serialize_records([header(), entry("a", None, message=ASSISTANT)])
    path.write_bytes(good + b'{"type":"mess')
    with SessionFile.open(path) as session:
        new = session.append_message(USER)
    assert path.read_bytes().startswith(good + b'{"type":"mess\n')
    again = SessionFile.read(path)
    assert [e["id"] for e in again.entries] == ["a", new]
    assert again.get_entry(new)["parentId"] == "a"  # type: ignore[index]
    assert [f.rule for f in again.findings] == ["session-line-not-json"]


def test_missing_final_newline_is_repaired_only_when_writing(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    data = serialize_records([header(), entry("a", None)])[:-1]
    path.write_bytes(data)
    session = SessionFile.read(path)
    assert [e["id"] for e in session.entries] == ["a"] and not session.findings
    assert path.read_bytes() == data
    SessionFile.open(path).close()
    assert path.read_bytes() == data + b"\n"


@pytest.mark.parametrize(
    ("content", "line", "reason"),
    [
        (b'{"type":"message","id":"a"}\n', 1, 'the first JSON line is a "message" entry'),
        (b'\n\n{"type":"session","id":5}\n', 3, "the session header has no string id"),
        (b"garbage\n{}\n", 2, "the first JSON line is an object without a type"),
        (b"  \n\n", 1, "it holds no JSON object lines"),
        (b"\x00\x01binary", 1, "it holds no JSON object lines"),
    ],
)
def test_not_a_session_names_file_and_line_and_leaves_it_untouched(
    tmp_path: Path, content: bytes, line: int, reason: str
) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    for load in (SessionFile.read, SessionFile.open):
        with pytest.raises(NotASessionError) as caught:
            load(path)
        assert str(caught.value).startswith(f"{path}:{line}: not a Pi session file")
        assert reason in str(caught.value)
        assert caught.value.line == line
    assert path.read_bytes() == content
    assert path.stat().st_mtime_ns == 1_000_000_000
    # the lock was released: a writer can still open... and fail the same way
    with pytest.raises(NotASessionError):
        SessionFile.open(path)


def test_zero_byte_file_gets_a_fresh_header_as_in_pi(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    reading = SessionFile.read(path)
    assert reading.entries == [] and path.read_bytes() == b""
    assert [f.rule for f in reading.findings] == ["session-empty-file"]
    with SessionFile.open(path, cwd=str(tmp_path)) as session:
        records = lines_of(path)
        assert len(records) == 1 and records[0]["id"] == session.session_id
        assert records[0]["cwd"] == str(tmp_path)
        session.append_message(USER)  # the file exists: written at once
    assert len(lines_of(path)) == 2


def test_missing_file_opened_for_writing_becomes_a_new_session_there(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "new.jsonl"
    with SessionFile.open(path, cwd=str(tmp_path)) as session:
        session.append_message(USER)
        assert not path.exists()
        session.append_message(ASSISTANT)
    assert [r["type"] for r in lines_of(path)] == ["session", "message", "message"]
    with pytest.raises(SessionFileError, match="cannot read the session file"):
        SessionFile.read(tmp_path / "nope.jsonl")


def test_structure_problems_are_reported(tmp_path: Path) -> None:
    path = write_session(
        tmp_path / "s.jsonl",
        [
            header(),
            entry("a", None),
            {"type": "message", "parentId": "a"},
            entry("a", None),
            entry("c", "zzz"),
            header(id="other"),
        ],
    )
    session = SessionFile.read(path)
    rules = [(f.rule, f.where.start_line + 1) for f in session.findings]
    assert rules == [
        ("session-extra-header", 6),
        ("session-entry-without-id", 3),
        ("session-duplicate-id", 4),
        ("session-missing-parent", 5),
    ]
    assert len(session.entries) == 4


# ---------------------------------------------------------------------------------------------
# Migration on open


def test_open_migrates_and_rewrites_keeping_unparsable_lines(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    v1: list[dict[str, Any]] = [
        {"type": "session", "id": "s", "timestamp": "t", "cwd": "/w", "provider": "x"},
        {"type": "message", "timestamp": "t", "message": USER},
        {"type": "message", "timestamp": "t", "message": ASSISTANT},
    ]
    raw = serialize_records(v1[:2]) + b"{broken\n" + serialize_records(v1[2:])
    path.write_bytes(raw)
    path.chmod(0o600)
    with SessionFile.open(path) as session:
        assert session.migrated_from == 1
        assert [f.rule for f in session.findings] == ["session-line-not-json", "session-migrated"]
        assert "file rewritten" in session.findings[1].message
    text = path.read_text().split("\n")
    assert text[2] == "{broken"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert not [p for p in tmp_path.iterdir() if p.name != "old.jsonl"]  # no temp files left
    records = [json.loads(line) for line in text if line and line != "{broken"]
    assert records[0] == {**v1[0], "version": 3}
    assert records[2]["parentId"] == records[1]["id"]
    again = path.read_bytes()
    SessionFile.open(path).close()  # now current: not rewritten again
    assert path.read_bytes() == again


@pytest.mark.parametrize("source", fixture_session_params(*FIXTURE_NAMES))
def test_real_fixture_round_trip(tmp_path: Path, source: Path) -> None:
    copy_path = tmp_path / source.name
    copy_path.write_bytes(source.read_bytes())
    read = SessionFile.read(source)
    with SessionFile.open(copy_path) as written:
        assert written.header == read.header == {**read.header, "version": 3}
        assert len(written.entries) == len(read.entries)
        new_id = written.append_message(USER)
    again = SessionFile.read(copy_path)
    assert again.migrated_from is None and not again.findings
    assert again.entries[-1]["id"] == new_id
    assert again.entries[-1]["parentId"] == again.entries[-2]["id"]
    # the v3 write of an unchanged v3 file is byte-identical to its input
    data = copy_path.read_bytes()
    assert serialize_records([again.header, *again.entries]) == data
    # and every field of the v1 file is still there
    original = [json.loads(line) for line in source.read_text().split("\n") if line]
    for before, after in zip(original[1:], again.entries, strict=False):
        for key, value in before.items():
            if key != "firstKeptEntryIndex":
                assert after[key] == value


def test_golden_session_files_have_pi_structure() -> None:
    goldens = sorted(CONFORMANCE.glob("*/expected-session.jsonl"))
    assert goldens
    for path in goldens:
        session = SessionFile.read(path)
        assert not session.findings, path
        assert session.header["version"] == 3 and list(session.header)[:2] == ["type", "version"]
        types = [e["type"] for e in session.entries]
        first_message = types.index("message")
        assert types[:first_message] == ["model_change", "thinking_level_change"], path
        chain = session.get_branch()
        assert chain == list(session.entries), path  # one linear chain, root first
        assert chain[0]["parentId"] is None
        for entry_ in session.entries:
            if entry_["type"] == "compaction":
                assert session.get_entry(entry_["firstKeptEntryId"]) is not None
                assert entry_["fromHook"] is False


# ---------------------------------------------------------------------------------------------
# Tree operations


def small_tree(tmp_path: Path) -> tuple[SessionFile, dict[str, str]]:
    session = SessionFile.in_memory(str(tmp_path))
    ids: dict[str, str] = {}
    ids["u1"] = session.append_message(USER)
    ids["a1"] = session.append_message(ASSISTANT)
    ids["u2"] = session.append_message(USER)
    return session, ids


def test_branch_and_reset_leaf(tmp_path: Path) -> None:
    session, ids = small_tree(tmp_path)
    session.branch(ids["u1"])
    other = session.append_message(ASSISTANT)
    assert session.get_entry(other)["parentId"] == ids["u1"]  # type: ignore[index]
    assert [e["id"] for e in session.get_children(ids["u1"])] == [ids["a1"], other]
    with pytest.raises(EntryNotFoundError, match=r"^Entry nope not found$"):
        session.branch("nope")
    session.reset_leaf()
    assert session.leaf_id is None and session.get_branch() == []
    root = session.append_message(USER)
    assert session.get_entry(root)["parentId"] is None  # type: ignore[index]


def test_branch_with_summary_records_the_leaf_before_the_move(tmp_path: Path) -> None:
    session, ids = small_tree(tmp_path)
    summary = session.branch_with_summary(ids["u1"], "## Goal", {"readFiles": []})
    e = session.get_entry(summary)
    assert e is not None and session.leaf_id == summary
    assert {k: e[k] for k in ("parentId", "fromId", "summary", "details")} == {
        "parentId": ids["u1"],
        "fromId": ids["u2"],
        "summary": "## Goal",
        "details": {"readFiles": []},
    }
    assert list(e)[4:] == ["fromId", "summary", "details"]
    session.reset_leaf()
    second = session.branch_with_summary(None, "s", from_hook=True, usage={"input": 3})
    e2 = session.get_entry(second)
    assert e2 is not None and e2["fromId"] == "root" and e2["parentId"] is None
    assert list(e2)[4:] == ["fromId", "summary", "usage", "fromHook"]
    with pytest.raises(EntryNotFoundError):
        session.branch_with_summary("nope", "s")


def test_labels_and_session_name(tmp_path: Path) -> None:
    session, ids = small_tree(tmp_path)
    with pytest.raises(EntryNotFoundError):
        session.append_label_change("nope", "x")
    label = session.append_label_change(ids["u1"], "start")
    assert session.leaf_id == label  # labels move the leaf too
    assert session.get_label(ids["u1"]) == "start"
    session.append_label_change(ids["u1"], "")
    assert session.get_label(ids["u1"]) is None
    assert session.session_name is None
    session.append_session_info("first\r\nname ")
    assert session.session_name == "first name"
    session.append_session_info("  ")
    assert session.session_name is None


def test_read_only_session_moves_its_leaf_but_never_writes(tmp_path: Path) -> None:
    path = write_session(tmp_path / "s.jsonl", [header(), entry("a", None), entry("b", "a")])
    before = path.read_bytes()
    session = SessionFile.read(path)
    session.branch("a")
    assert session.leaf_id == "a"
    with pytest.raises(SessionReadOnlyError):
        session.append_message(USER)
    assert path.read_bytes() == before


# ---------------------------------------------------------------------------------------------
# Branched sessions and forks


def test_create_branched_session(tmp_path: Path) -> None:
    path = write_session(
        tmp_path / "s.jsonl",
        [
            header(),
            entry("a", None),
            entry("L1", "a", "label", targetId="a", label="start"),
            entry("b", "L1", message=ASSISTANT),
            entry("c", "b", "compaction", summary="S", firstKeptEntryId="L1", tokensBefore=9),
            entry("L2", "c", "label", targetId="b", label="answer"),
            entry("L3", "L2", "label", targetId="zzz", label="elsewhere"),
            entry("d", "L3"),
            entry("x", "d"),
        ],
    )
    before = path.read_bytes()
    with SessionFile.open(path) as session:
        branched = session.create_branched_session("d")
        assert session.leaf_id == "x" and path.read_bytes() == before  # unchanged
    assert branched.path is not None and Path(branched.path).parent == tmp_path
    assert branched.session_id != "s1" and branched.header["parentSession"] == str(path)
    written = lines_of(branched.path)
    assert written[0] == branched.header
    body = written[1:]
    assert [e["id"] for e in body[:4]] == ["a", "b", "c", "d"]
    assert [e["parentId"] for e in body[:4]] == [None, "a", "b", "c"]
    assert body[2]["firstKeptEntryId"] == "b"  # pointed at the removed label L1
    labels = body[4:]
    assert [(e["type"], e["targetId"], e["label"]) for e in labels] == [
        ("label", "a", "start"),
        ("label", "b", "answer"),
    ]
    assert [e["parentId"] for e in labels] == ["d", labels[0]["id"]]
    assert branched.leaf_id == labels[-1]["id"]
    assert dict(branched.labels) == {"a": "start", "b": "answer"}
    with branched:
        branched.append_message(USER)
    assert len(lines_of(branched.path)) == 8


def test_branched_session_without_assistant_waits_and_in_memory_stays(tmp_path: Path) -> None:
    with SessionFile.create(str(tmp_path), session_dir=str(tmp_path)) as session:
        u = session.append_message(USER)
        session.append_message(ASSISTANT)
        branched = session.create_branched_session(u)
        assert branched.path is not None and not Path(branched.path).exists()
        branched.append_message(ASSISTANT)
        assert Path(branched.path).exists()
        branched.close()
        with pytest.raises(EntryNotFoundError):
            session.create_branched_session("nope")
    memory, ids = small_tree(tmp_path / "m")
    copy = memory.create_branched_session(ids["a1"])
    assert copy.path is None and "parentSession" not in copy.header
    assert [e["id"] for e in copy.entries] == [ids["u1"], ids["a1"]]
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("source", fixture_session_params("large-session.jsonl"))
def test_fork_from_copies_every_entry_into_the_target_cwd(source: Path, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    target = tmp_path / "target"
    with SessionFile.fork_from(source, str(target), agent_dir=str(agent)) as fork:
        assert fork.path is not None
        assert Path(fork.path).parent == Path(default_session_dir(str(target), str(agent)))
        assert fork.header["parentSession"] == str(source) and fork.header["cwd"] == str(target)
        records = lines_of(fork.path)
        original = SessionFile.read(source)
        assert records[1:] == list(fork.entries)
        assert len(fork.entries) == len(original.entries)
        # migrated before copying: ids and one chain, as a v3 file needs
        assert all(ENTRY_ID.fullmatch(r["id"]) for r in records[1:])
        assert fork.get_branch() == list(fork.entries)
        new = fork.append_message(USER)
    assert lines_of(fork.path)[-1]["id"] == new
    empty = tmp_path / "empty.jsonl"
    write_session(empty, [header()])
    with pytest.raises(SessionFileError, match="Cannot fork"):
        SessionFile.fork_from(empty, str(target), agent_dir=str(agent))


# ---------------------------------------------------------------------------------------------
# Continue most recent, in-memory sessions


def test_continue_recent_picks_the_newest_valid_session(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    cwd = tmp_path / "proj"
    folder = Path(default_session_dir(str(cwd), str(agent)))
    folder.mkdir(parents=True)
    old = write_session(folder / "a.jsonl", [header(id="old"), entry("a", None)])
    new = write_session(folder / "b.jsonl", [header(id="new"), entry("a", None)])
    (folder / "c.jsonl").write_text('{"type":"message"}\n')  # not a session: ignored
    (folder / "d.txt").write_text("")
    os.utime(old, ns=(1, 1_000_000_000))
    os.utime(new, ns=(1, 2_000_000_000))
    os.utime(folder / "c.jsonl", ns=(1, 3_000_000_000))
    assert find_most_recent_session(str(folder)) == str(new)
    with SessionFile.continue_recent(str(cwd), agent_dir=str(agent)) as session:
        assert session.session_id == "new" and session.cwd == str(cwd)
    # a custom session dir only counts sessions of this cwd
    custom = tmp_path / "custom"
    custom.mkdir()
    write_session(custom / "x.jsonl", [header(id="other", cwd="/elsewhere"), entry("a", None)])
    mine = write_session(custom / "y.jsonl", [header(id="mine", cwd=str(cwd)), entry("a", None)])
    os.utime(mine, ns=(1, 1_000_000_000))
    assert find_most_recent_session(str(custom), cwd=str(cwd)) == str(mine)
    assert find_most_recent_session(str(custom), cwd="/nowhere") is None
    with SessionFile.continue_recent(
        "/nowhere", session_dir=str(custom), provider="p", model_id="m", thinking_level="off"
    ) as fresh:
        assert fresh.path is not None and not os.path.exists(fresh.path)
        assert [e["type"] for e in fresh.entries] == ["model_change", "thinking_level_change"]
    assert find_most_recent_session(str(tmp_path / "missing")) is None


def test_header_scan_is_bounded(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "big.jsonl").write_bytes(b" " * (1 << 20) + serialize_records([header()]))
    assert find_most_recent_session(str(folder)) is None


def test_in_memory_session_restores_entries_and_never_touches_disk(tmp_path: Path) -> None:
    records = [entry("a", None), entry("b", "a")]
    session = SessionFile.in_memory(str(tmp_path), entries=records, provider="p", model_id="m")
    assert [e["id"] for e in session.entries] == ["a", "b"] and session.leaf_id == "b"
    session.append_message(ASSISTANT)
    assert session.path is None and not list(tmp_path.iterdir())
    old = SessionFile.in_memory(
        str(tmp_path),
        header={"type": "session", "id": "s", "timestamp": "t", "cwd": "/w"},
        entries=[{"type": "message", "timestamp": "t", "message": USER}],
    )
    assert old.migrated_from == 1 and ENTRY_ID.fullmatch(old.entries[0]["id"])
    assert old.header["version"] == 3


# ---------------------------------------------------------------------------------------------
# Writers: the lock and failed writes


def test_second_writer_is_refused_and_readers_are_not(tmp_path: Path) -> None:
    path = write_session(tmp_path / "s.jsonl", [header(), entry("a", None, message=ASSISTANT)])
    with SessionFile.open(path) as first:
        with pytest.raises(SessionLockedError, match="already open for writing"):
            SessionFile.open(path)
        assert [e["id"] for e in SessionFile.read(path).entries] == ["a"]
        first.append_message(USER)
    with SessionFile.open(path) as again:
        again.append_message(USER)
    assert len(lines_of(path)) == 4


def test_lock_holds_across_processes(tmp_path: Path) -> None:
    path = write_session(tmp_path / "s.jsonl", [header(), entry("a", None, message=ASSISTANT)])
    code = (
        "import sys\n"
        "from pi_lsp.session.session_file import SessionFile\n"
        "s = SessionFile.open(sys.argv[1])\n"
        "print('ready', flush=True)\n"
        "sys.stdin.readline()\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        with pytest.raises(SessionLockedError):
            SessionFile.open(path)
    finally:
        child.communicate("\n", timeout=30)
    SessionFile.open(path).close()


def test_lock_follows_a_migration_rewrite(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_bytes(serialize_records([{"type": "session", "id": "s", "cwd": "/"}]))
    with SessionFile.open(path) as session:
        assert session.migrated_from == 1
        with pytest.raises(SessionLockedError):
            SessionFile.open(path)


def test_failed_append_leaves_neither_a_partial_line_nor_the_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_session(tmp_path / "s.jsonl", [header(), entry("a", None, message=ASSISTANT)])
    before = path.read_bytes()
    real_write = os.write

    def half_then_full(fd: int, data: Any) -> int:
        if len(data) > 20:
            return real_write(fd, bytes(data[:20]))
        raise OSError(errno.ENOSPC, "No space left on device")

    with SessionFile.open(path) as session:
        monkeypatch.setattr(os, "write", half_then_full)
        with pytest.raises(SessionFileError, match="No space left on device"):
            session.append_message(USER)
        monkeypatch.setattr(os, "write", real_write)
        assert path.read_bytes() == before
        assert len(session.entries) == 1 and session.leaf_id == "a"
        new = session.append_message(USER)
    assert lines_of(path)[-1]["id"] == new and lines_of(path)[-1]["parentId"] == "a"
